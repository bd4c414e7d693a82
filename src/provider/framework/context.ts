// Builds the contexts handed to resource and data-source code, and runs their code so that an
// exception becomes a diagnostic instead of reaching Terraform.
import type { ClientCapabilities } from '../../protocol/types';
import type { DataSourceDefinition, ResourceContext, ResourceDefinition } from './definition';
import { Diagnostics } from './diagnostics';
import { diagnosticFromError } from './errors';
import type { ProviderData } from './provider-data';

/** The resource or data source being served (what error messages need of it). */
export type Served = Pick<ResourceDefinition, 'typeName' | 'displayName' | 'schema'> & {
  describe?(model: Record<string, unknown>): string;
};

/** Names one object for error details. */
export function describeObject(def: Served, model: Record<string, unknown>): string {
  try {
    if (def.describe !== undefined) return def.describe(model);
  } catch {
    // A describe() that trips over a partial model must not hide the real error.
  }
  const id = model['id'];
  return typeof id === 'string' && id !== '' ? `${def.displayName} '${id}'` : def.displayName;
}

/** Builds the context of one CRUD call. */
export function resourceContext(
  def: Served,
  data: ProviderData,
  signal: AbortSignal,
  clientCapabilities: ClientCapabilities | undefined,
  diagnostics = new Diagnostics(),
): ResourceContext {
  const attributes = Object.keys(def.schema.attributes);
  return {
    data,
    diagnostics,
    signal,
    clientCapabilities,
    reportError(err, summary, object) {
      diagnostics.add(diagnosticFromError(err, { summary, object, attributes }));
    },
  };
}

/**
 * Runs one CRUD call; an exception becomes "Unable to <operation> <displayName>" on the
 * object. Returns `failed` when it threw.
 */
export async function runCrud<T>(
  def: Served,
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

/** The error for a CRUD call made before ConfigureProvider succeeded. */
export function notConfigured(diagnostics: Diagnostics, def: Served | DataSourceDefinition): void {
  diagnostics.addError(
    'Provider not configured',
    `The proxyaccount provider was not configured before ${def.typeName} was used; the provider block's errors above explain why.`,
  );
}
