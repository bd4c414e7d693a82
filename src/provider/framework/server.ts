// The ProviderServer the protocol layer calls: dispatches each RPC to the registered resource or
// data source and never throws (a bug becomes an error diagnostic, not a gRPC failure).
import { setMaxListeners } from 'node:events';
import { decodeDynamicValue } from '../../protocol/codec';
import { CodecError } from '../../protocol/codec-error';
import { createLogger } from '../../protocol/log';
import type { Diagnostic, ProviderRequest, ProviderResponse, ProviderServer, Schema } from '../../protocol/types';
import { importResourceState, applyResourceChange, planResourceChange, readResource, upgradeResourceState, validateResource } from './resource-rpc';
import { readDataSource, validateDataSource } from './data-source-rpc';
import type { DataSourceDefinition, EphemeralResourceDefinition, ProviderDefinition, ResourceDefinition } from './definition';
import { closeEphemeral, openEphemeral, validateEphemeral } from './ephemeral-rpc';
import type { ObjectSchema } from './schema';
import { Diagnostics, errorDiagnostic } from './diagnostics';
import { diagnosticFromError } from './errors';
import { toPlanModel } from './model';
import type { Runtime } from './context';
import { validateConfig } from './validate';

/** Serves one provider definition over the protocol's ProviderServer interface. */
export class FrameworkServer<D = unknown> implements ProviderServer {
  private data: D | undefined;
  /** The provider's beforePlan, run once per process. */
  private beforePlan: Promise<Diagnostic | undefined> | undefined;
  /** What beforePlan came to, once it settled. */
  private beforePlanSettled: { readonly failed: Diagnostic | undefined } | undefined;
  private readonly stop = new AbortController();
  private readonly logger = createLogger();
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly dataSources = new Map<string, DataSourceDefinition>();
  private readonly ephemeral = new Map<string, EphemeralResourceDefinition>();

  /** Registers the provider's resources and data sources; a duplicate type name is a bug. */
  constructor(private readonly provider: ProviderDefinition<ObjectSchema, D>) {
    // Every call of the run listens on this one signal, as many at once as Terraform runs calls
    // (and each API call a few times over): past Node's default of 10 it would print a leak warning.
    setMaxListeners(0, this.stop.signal);
    for (const r of provider.resources) addUnique(this.resources, r, 'resource');
    for (const d of provider.dataSources) addUnique(this.dataSources, d, 'data source');
    for (const e of provider.ephemeralResources ?? []) addUnique(this.ephemeral, e, 'ephemeral resource');
  }

  /** The configured provider data, once ConfigureProvider succeeded (for tests and tools). */
  get providerData(): D | undefined {
    return this.data;
  }

  /** Aborted when Terraform calls StopProvider. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Every schema of the provider; they never depend on configuration. */
  async getProviderSchema(): Promise<ProviderResponse<'getProviderSchema'>> {
    const schemas = <T extends { typeName: string; schema: { schema: Schema } }>(defs: Iterable<T>): Record<string, Schema> =>
      Object.fromEntries([...defs].map((d) => [d.typeName, d.schema.schema]));
    return {
      provider: this.provider.schema.schema,
      resourceSchemas: schemas(this.resources.values()),
      dataSourceSchemas: schemas(this.dataSources.values()),
      ephemeralResourceSchemas: schemas(this.ephemeral.values()),
      // Schemas never depend on configuration, so Terraform may cache them across starts.
      serverCapabilities: { getProviderSchemaOptional: true, planDestroy: false, moveResourceState: false },
      diagnostics: [],
    };
  }

  /** Validators of the provider block, then its validateConfig hook. */
  validateProviderConfig(req: ProviderRequest<'validateProviderConfig'>): Promise<ProviderResponse<'validateProviderConfig'>> {
    return guard('ValidateProviderConfig', {}, () => {
      const schema = this.provider.schema;
      const config = decodeDynamicValue(req.config, schema.type);
      const diagnostics = new Diagnostics();
      diagnostics.add(...validateConfig(schema.attributes, config));
      this.provider.validateConfig?.({ diagnostics, clientCapabilities: undefined }, toPlanModel(schema.attributes, config));
      return { diagnostics: diagnostics.toArray() };
    });
  }

  /** Runs the provider's configure step; CRUD calls fail until it succeeds. */
  configureProvider(req: ProviderRequest<'configureProvider'>): Promise<ProviderResponse<'configureProvider'>> {
    return guard('ConfigureProvider', {}, async () => {
      const schema = this.provider.schema;
      const config = decodeDynamicValue(req.config, schema.type);
      const diagnostics = new Diagnostics();
      const ctx = { diagnostics, terraformVersion: req.terraformVersion, clientCapabilities: req.clientCapabilities, signal: this.signal };
      const data = await this.provider.configure(ctx, toPlanModel(schema.attributes, config));
      if (data !== undefined && !diagnostics.hasErrors()) this.data = data;
      return { diagnostics: diagnostics.toArray() };
    });
  }

  /** See validateResource in resource-rpc.ts. */
  validateResourceConfig(req: ProviderRequest<'validateResourceConfig'>): Promise<ProviderResponse<'validateResourceConfig'>> {
    return guard('ValidateResourceConfig', {}, () => withType(this.resources, 'resource', req.typeName, {}, (def) => validateResource(def, req)));
  }

  /** See validateDataSource in data-source-rpc.ts. */
  validateDataResourceConfig(req: ProviderRequest<'validateDataResourceConfig'>): Promise<ProviderResponse<'validateDataResourceConfig'>> {
    return guard('ValidateDataResourceConfig', {}, () => withType(this.dataSources, 'data source', req.typeName, {}, (def) => validateDataSource(def, req)));
  }

  /** See upgradeResourceState in resource-rpc.ts. */
  upgradeResourceState(req: ProviderRequest<'upgradeResourceState'>): Promise<ProviderResponse<'upgradeResourceState'>> {
    return guard('UpgradeResourceState', {}, () => withType(this.resources, 'resource', req.typeName, {}, (def) => upgradeResourceState(def, req)));
  }

  /** See readResource in resource-rpc.ts. */
  readResource(req: ProviderRequest<'readResource'>): Promise<ProviderResponse<'readResource'>> {
    // On a bug, answering without newState would drop the object from state: echo it back.
    const keep = { newState: req.currentState, private: req.private };
    return guard('ReadResource', keep, () => withType(this.resources, 'resource', req.typeName, keep, (def) => readResource(def, this.runtime(), req)));
  }

  /** See planResourceChange in resource-rpc.ts and plan.ts. */
  planResourceChange(req: ProviderRequest<'planResourceChange'>): Promise<ProviderResponse<'planResourceChange'>> {
    const empty = { requiresReplace: [] };
    return guard('PlanResourceChange', empty, () => {
      const plan = (failed: Diagnostic | undefined): ProviderResponse<'planResourceChange'> | Promise<ProviderResponse<'planResourceChange'>> =>
        failed !== undefined
          ? { ...empty, diagnostics: [failed] }
          : withType(this.resources, 'resource', req.typeName, empty, (def) => planResourceChange(def, this.runtime(), req));
      const before = this.beforePlanOutcome();
      return before instanceof Promise ? before.then(plan) : plan(before);
    });
  }

  /**
   * The provider's beforePlan hook, once per configured process: its failure as a diagnostic,
   * undefined when it passed or there is none; a promise only until the hook has settled (every
   * later plan goes on without waiting a turn of the event loop).
   */
  private beforePlanOutcome(): Diagnostic | undefined | Promise<Diagnostic | undefined> {
    if (this.beforePlanSettled !== undefined) return this.beforePlanSettled.failed;
    const hook = this.provider.beforePlan;
    const data = this.data;
    if (hook === undefined || data === undefined) return undefined;
    this.beforePlan ??= hook(data, this.signal).then(
      () => undefined,
      (err: unknown) =>
        diagnosticFromError(err, { summary: 'Unable to verify the provider credentials', object: 'the provider credentials' }, this.provider.describeError),
    );
    const pending = this.beforePlan;
    return pending.then((failed) => {
      this.beforePlanSettled = { failed };
      return failed;
    });
  }

  /** See applyResourceChange in resource-rpc.ts. */
  applyResourceChange(req: ProviderRequest<'applyResourceChange'>): Promise<ProviderResponse<'applyResourceChange'>> {
    const keep = { newState: req.priorState, private: req.plannedPrivate };
    return guard('ApplyResourceChange', keep, () =>
      withType(this.resources, 'resource', req.typeName, keep, (def) => applyResourceChange(def, this.runtime(), req)),
    );
  }

  /** See importResourceState in resource-rpc.ts. */
  importResourceState(req: ProviderRequest<'importResourceState'>): Promise<ProviderResponse<'importResourceState'>> {
    const none = { importedResources: [] };
    return guard('ImportResourceState', none, () =>
      withType(this.resources, 'resource', req.typeName, none, (def) => importResourceState(def, this.runtime(), req)),
    );
  }

  /** See readDataSource in data-source-rpc.ts. */
  readDataSource(req: ProviderRequest<'readDataSource'>): Promise<ProviderResponse<'readDataSource'>> {
    return guard('ReadDataSource', {}, () => withType(this.dataSources, 'data source', req.typeName, {}, (def) => readDataSource(def, this.runtime(), req)));
  }

  /** See validateEphemeral in ephemeral-rpc.ts. */
  validateEphemeralResourceConfig(req: ProviderRequest<'validateEphemeralResourceConfig'>): Promise<ProviderResponse<'validateEphemeralResourceConfig'>> {
    return guard('ValidateEphemeralResourceConfig', {}, () =>
      withType(this.ephemeral, 'ephemeral resource', req.typeName, {}, (def) => validateEphemeral(def, req)),
    );
  }

  /** See openEphemeral in ephemeral-rpc.ts. */
  openEphemeralResource(req: ProviderRequest<'openEphemeralResource'>): Promise<ProviderResponse<'openEphemeralResource'>> {
    return guard('OpenEphemeralResource', {}, () =>
      withType(this.ephemeral, 'ephemeral resource', req.typeName, {}, (def) => openEphemeral(def, this.runtime(), req)),
    );
  }

  /** Never asked for: open sets no renewal time. */
  async renewEphemeralResource(): Promise<ProviderResponse<'renewEphemeralResource'>> {
    return { diagnostics: [] };
  }

  /** See closeEphemeral in ephemeral-rpc.ts. */
  closeEphemeralResource(req: ProviderRequest<'closeEphemeralResource'>): Promise<ProviderResponse<'closeEphemeralResource'>> {
    return guard('CloseEphemeralResource', {}, () =>
      withType(this.ephemeral, 'ephemeral resource', req.typeName, {}, (def) => closeEphemeral(def, this.runtime(), req)),
    );
  }

  private runtime(): Runtime {
    const p = this.provider;
    return { data: this.data, signal: this.signal, providerName: p.typeName, describeError: p.describeError, logger: this.logger };
  }

  /** Aborts `signal`, which the configure step received. */
  async stopProvider(): Promise<ProviderResponse<'stopProvider'>> {
    this.stop.abort();
    return {};
  }
}

function addUnique<T extends { typeName: string }>(map: Map<string, T>, def: T, what: string): void {
  if (map.has(def.typeName)) throw new Error(`${what} type ${def.typeName} is registered twice`);
  map.set(def.typeName, def);
}

type WithDiagnostics = { diagnostics: Diagnostic[] };

function withType<D extends { typeName: string }, T extends WithDiagnostics>(
  map: ReadonlyMap<string, D>,
  what: string,
  typeName: string,
  fallback: Omit<T, 'diagnostics'>,
  run: (def: D) => T | Promise<T>,
): T | Promise<T> {
  const def = map.get(typeName);
  if (def === undefined) return { ...fallback, diagnostics: [unknownType(what, typeName)] } as T;
  return run(def);
}

function unknownType(what: string, typeName: string): Diagnostic {
  return errorDiagnostic(`Unknown ${what} type`, `This provider has no ${what} type named ${JSON.stringify(typeName)}.`);
}

/**
 * Runs one RPC; any exception (a bug, or a value Terraform should never send) becomes a
 * diagnostic. Not an async function: an RPC that finishes synchronously (validate, upgrade)
 * costs one settled promise, and an asynchronous one only the handler for its failure.
 */
function guard<T extends WithDiagnostics>(rpc: string, fallback: Omit<T, 'diagnostics'>, run: () => T | Promise<T>): Promise<T> {
  const failed = (err: unknown): T => {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof CodecError) {
      // Terraform converts values to the schema it was given, so a value that does not fit is a
      // schema Terraform holds from another version of the provider, or a bug: said so, on its path.
      const detail = `${rpc} failed: ${message}. The value does not fit this provider's schema: if the provider was changed since "terraform init", run it again; otherwise this is a bug in the provider, please report it.`;
      const path = err.path.length > 0 ? err.path : undefined;
      return { ...fallback, diagnostics: [errorDiagnostic('Invalid value from Terraform', detail, path)] } as T;
    }
    return {
      ...fallback,
      diagnostics: [errorDiagnostic('Internal provider error', `${rpc} failed: ${message}. This is a bug in the provider; please report it.`)],
    } as T;
  };
  try {
    const out = run();
    return out instanceof Promise ? out.then(undefined, failed) : Promise.resolve(out);
  } catch (err) {
    return Promise.resolve(failed(err));
  }
}
