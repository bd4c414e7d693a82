// The data-source RPCs: validate the config, then read with a wholly known config.
import { decodeDynamicValue, encodeDynamicValue } from '../../protocol/codec';
import type { ProviderRequest, ProviderResponse } from '../../protocol/types';
import { deferredConfigMissing, describeObject, notConfigured, resourceContext, validateTypeConfig, type Runtime } from './context';
import type { DataSourceDefinition } from './definition';
import { Diagnostics } from './diagnostics';
import { toModel } from './model';
import { encodeState } from './resource-rpc';

/** ValidateDataResourceConfig: attribute validators, then the data source's hook. */
export function validateDataSource(
  def: DataSourceDefinition,
  req: ProviderRequest<'validateDataResourceConfig'>,
): ProviderResponse<'validateDataResourceConfig'> {
  return validateTypeConfig(def, req.config);
}

/** ReadDataSource: the full model the data source returns. */
export async function readDataSource(
  def: DataSourceDefinition,
  rt: Runtime,
  req: ProviderRequest<'readDataSource'>,
): Promise<ProviderResponse<'readDataSource'>> {
  const t = def.schema.type;
  const config = decodeDynamicValue(req.config, t);
  const diagnostics = new Diagnostics();
  if (notConfigured(diagnostics, def, rt)) return { diagnostics: diagnostics.toArray() };
  // Terraform defers reads whose config is not yet known; getting one here is a Terraform bug.
  if (deferredConfigMissing(def, 'read', config, diagnostics)) return { diagnostics: diagnostics.toArray() };
  const ctx = resourceContext(def, rt, 'ReadDataSource', req.clientCapabilities, diagnostics);
  const model = toModel(def.schema.attributes, config);
  let result: object | undefined;
  try {
    result = await def.read(ctx, { config: model });
  } catch (err) {
    ctx.reportError(err, `Unable to read ${def.displayName}`, describeObject(def, model));
    return { diagnostics: diagnostics.toArray() };
  }
  if (result === undefined) {
    if (!diagnostics.hasErrors()) {
      diagnostics.addError(
        `Unable to read ${def.displayName}`,
        `${def.typeName} returned no result and no reason. This is a bug in the provider; please report it.`,
      );
    }
    return { diagnostics: diagnostics.toArray() };
  }
  return { state: encodeDynamicValue(encodeState(def, diagnostics, result), t), diagnostics: diagnostics.toArray() };
}
