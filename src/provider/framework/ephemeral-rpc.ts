// The ephemeral-resource RPCs (Terraform >= 1.10): validate the config; open with a wholly known
// config and encode the result (which Terraform never writes to plan or state); close with the
// private bytes open returned. Renewal is not used: results are good for the whole run.
import { decodeDynamicValue, encodeDynamicValue } from '../../protocol/codec';
import type { ProviderRequest, ProviderResponse } from '../../protocol/types';
import { deferredConfigMissing, notConfigured, resourceContext, validateTypeConfig, type Runtime } from './context';
import type { EphemeralResourceDefinition } from './definition';
import { Diagnostics } from './diagnostics';
import { toModel } from './model';
import { encodeState } from './resource-rpc';

/** ValidateEphemeralResourceConfig: attribute validators, then the type's hook. */
export function validateEphemeral(
  def: EphemeralResourceDefinition,
  req: ProviderRequest<'validateEphemeralResourceConfig'>,
): ProviderResponse<'validateEphemeralResourceConfig'> {
  return validateTypeConfig(def, req.config);
}

/** OpenEphemeralResource: the result, and the private bytes close gets back. */
export async function openEphemeral(
  def: EphemeralResourceDefinition,
  rt: Runtime,
  req: ProviderRequest<'openEphemeralResource'>,
): Promise<ProviderResponse<'openEphemeralResource'>> {
  const t = def.schema.type;
  const config = decodeDynamicValue(req.config, t);
  const diagnostics = new Diagnostics();
  if (notConfigured(diagnostics, def, rt)) return { diagnostics: diagnostics.toArray() };
  // Terraform defers an open whose configuration is not yet known; getting one is a Terraform bug.
  if (deferredConfigMissing(def, 'open', config, diagnostics)) return { diagnostics: diagnostics.toArray() };
  const ctx = resourceContext(def, rt, 'OpenEphemeralResource', req.clientCapabilities, diagnostics);
  try {
    const opened = await def.open(ctx, { config: toModel(def.schema.attributes, config) });
    if (opened === undefined) {
      if (!diagnostics.hasErrors())
        diagnostics.addError(
          `Unable to open ${def.displayName}`,
          `${def.typeName} returned no result and no reason. This is a bug in the provider; please report it.`,
        );
      return { diagnostics: diagnostics.toArray() };
    }
    return { result: encodeDynamicValue(encodeState(def, diagnostics, opened.result), t), private: opened.private, diagnostics: diagnostics.toArray() };
  } catch (err) {
    ctx.reportError(err, `Unable to open ${def.displayName}`, def.displayName);
    return { diagnostics: diagnostics.toArray() };
  }
}

/** CloseEphemeralResource: releases what open made; runs after StopProvider too. */
export async function closeEphemeral(
  def: EphemeralResourceDefinition,
  rt: Runtime,
  req: ProviderRequest<'closeEphemeralResource'>,
): Promise<ProviderResponse<'closeEphemeralResource'>> {
  const diagnostics = new Diagnostics();
  if (def.close === undefined) return { diagnostics: [] };
  if (notConfigured(diagnostics, def, rt)) return { diagnostics: diagnostics.toArray() };
  const ctx = resourceContext(def, rt, 'CloseEphemeralResource', undefined, diagnostics);
  try {
    await def.close(ctx, { private: req.private });
  } catch (err) {
    ctx.reportError(err, `Unable to close ${def.displayName}`, def.displayName);
  }
  return { diagnostics: diagnostics.toArray() };
}
