// Builds the contexts handed to resource and data-source code, and runs their code so that an
// exception becomes a diagnostic instead of reaching Terraform.
import type { Logger } from '../../protocol/log';
import type { ClientCapabilities } from '../../protocol/types';
import { decodeDynamicValue } from '../../protocol/codec';
import { isWhollyKnown, type CtyValue } from '../../protocol/cty';
import type { Diagnostic, DynamicValue } from '../../protocol/types';
import type { DataSourceDefinition, EphemeralResourceDefinition, ResourceContext, ResourceDefinition } from './definition';
import { attributeList, toPlanModel } from './model';
import { validateConfig } from './validate';
import { Diagnostics } from './diagnostics';
import { diagnosticFromError, type ErrorDescriber } from './errors';

/** What the server hands each RPC: the configured data (undefined before configure) and the run's settings. */
export interface Runtime {
  /** What the provider's configure step returned; undefined until it succeeded. */
  readonly data: unknown;
  /** Aborted when Terraform calls StopProvider; handed to the configure step only. */
  readonly signal: AbortSignal;
  /** The provider's type name, for messages (e.g. `proxyaccount`). */
  readonly providerName: string;
  /** The provider's reading of its own errors. */
  readonly describeError: ErrorDescriber | undefined;
  /** The process's logger; each RPC's context gets one carrying tf_rpc and tf_resource_type. */
  readonly logger: Logger;
}

/** The resource or data source being served, as error messages need it. */
export type ServedType = Pick<ResourceDefinition, 'typeName' | 'displayName' | 'schema'> & {
  describe?(model: Record<string, unknown>): string;
};

/** Names one object for error details. */
export function describeObject(def: ServedType, model: Record<string, unknown>): string {
  try {
    if (def.describe !== undefined) return def.describe(model);
  } catch {
    // A describe() that trips over a partial model must not hide the real error.
  }
  const id = model['id'];
  return typeof id === 'string' && id !== '' ? `${def.displayName} '${id}'` : def.displayName;
}

/** Builds the context of one CRUD call (the runtime's data must be set). */
export function resourceContext(
  def: ServedType,
  rt: Runtime,
  rpc: string,
  clientCapabilities: ClientCapabilities | undefined,
  diagnostics = new Diagnostics(),
): ResourceContext {
  const attributes = attributeList(def.schema.attributes).names;
  return {
    data: rt.data,
    diagnostics,
    log: rt.logger.with({ tf_rpc: rpc, tf_resource_type: def.typeName }),
    clientCapabilities,
    reportError(err, summary, object) {
      diagnostics.add(diagnosticFromError(err, { summary, object, attributes }, rt.describeError));
    },
  };
}

/**
 * Runs one CRUD call; an exception becomes "Unable to <operation> <displayName>" on the
 * object. Returns `failed` when it threw.
 */
export async function runCrud<T>(
  def: ServedType,
  ctx: ResourceContext,
  operation: string,
  model: Record<string, unknown>,
  call: () => Promise<T>,
): Promise<{ readonly value: T; readonly failed: false } | { readonly failed: true }> {
  try {
    return { value: await call(), failed: false };
  } catch (err) {
    ctx.reportError(err, `Unable to ${operation} ${def.displayName}`, describeObject(def, model));
    return { failed: true };
  }
}

/**
 * Validate*Config of a data source or an ephemeral resource: attribute validators on the decoded
 * config, then the type's own hook.
 */
export function validateTypeConfig(def: DataSourceDefinition | EphemeralResourceDefinition, raw: DynamicValue): { diagnostics: Diagnostic[] } {
  const config = decodeDynamicValue(raw, def.schema.type);
  const diagnostics = new Diagnostics();
  diagnostics.add(...validateConfig(def.schema.attributes, config));
  def.validateConfig?.({ diagnostics, clientCapabilities: undefined }, toPlanModel(def.schema.attributes, config));
  return { diagnostics: diagnostics.toArray() };
}

/** Adds the error for a config Terraform should have deferred (not yet known); true when so. */
export function deferredConfigMissing(def: ServedType | DataSourceDefinition, verb: string, config: CtyValue, diagnostics: Diagnostics): boolean {
  if (isWhollyKnown(config)) return false;
  diagnostics.addError(
    `Unable to ${verb} ${def.displayName}`,
    `The configuration of ${def.typeName} is not yet known; Terraform should have deferred this ${verb}.`,
  );
  return true;
}

/** Adds the error for a CRUD call made before ConfigureProvider succeeded; true when so. */
export function notConfigured(diagnostics: Diagnostics, def: ServedType | DataSourceDefinition, rt: Runtime): boolean {
  if (rt.data !== undefined) return false;
  diagnostics.addError(
    'Provider not configured',
    `The ${rt.providerName} provider was not configured before ${def.typeName} was used; the provider block's errors above explain why.`,
  );
  return true;
}
