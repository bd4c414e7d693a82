// The resource RPCs, each the same shape: decode with the schema type, call the resource,
// encode. Exceptions from resource code become diagnostics (see context.ts); decoding errors
// and other bugs are caught one level up, in server.ts.
import { isWhollyKnown, type CtyValue } from '../../protocol/cty';
import { decodeDynamicValue, encodeDynamicValue } from '../../protocol/codec';
import type { ProviderRequest, ProviderResponse } from '../../protocol/types';
import { describeObject, notConfigured, resourceContext, runCrud, type Runtime } from './context';
import type { ResourceContext, ResourceDefinition, ResourceStateContext } from './definition';
import { Diagnostics } from './diagnostics';
import { fromModel, toModel, toPlanModel } from './model';
import { planResource, withoutWriteOnly } from './plan';
import { decodePrivate, encodePrivate, type PrivateState } from './private-state';
import { upgradeState } from './upgrade';
import { validateConfig } from './validate';

/** ValidateResourceConfig: attribute validators, write-only support, then the resource's hook. */
export function validateResource(def: ResourceDefinition, req: ProviderRequest<'validateResourceConfig'>): ProviderResponse<'validateResourceConfig'> {
  const config = decodeDynamicValue(req.config, def.schema.type);
  const diagnostics = new Diagnostics();
  const writeOnlyAllowed = req.clientCapabilities?.writeOnlyAttributesAllowed === true;
  diagnostics.add(...validateConfig(def.schema.attributes, config, { writeOnlyAllowed, exactNumbers: true }));
  def.validateConfig?.({ diagnostics, clientCapabilities: req.clientCapabilities }, toPlanModel(def.schema.attributes, config));
  return { diagnostics: diagnostics.toArray() };
}

/** PlanResourceChange: see plan.ts. */
export async function planResourceChange(
  def: ResourceDefinition,
  rt: Runtime,
  req: ProviderRequest<'planResourceChange'>,
): Promise<ProviderResponse<'planResourceChange'>> {
  const t = def.schema.type;
  const proposed = decodeDynamicValue(req.proposedNewState, t);
  let out: Awaited<ReturnType<typeof planResource>>;
  try {
    out = await planResource(def, {
      data: rt.data,
      prior: decodeDynamicValue(req.priorState, t),
      proposed,
      config: decodeDynamicValue(req.config, t),
      ...(req.clientCapabilities !== undefined ? { clientCapabilities: req.clientCapabilities } : {}),
    });
  } catch (err) {
    // A read the plan needs failed (modifyPlan may read the account): the plan fails, with the
    // error's facts, rather than as a provider bug.
    const ctx = resourceContext(def, rt, 'PlanResourceChange', req.clientCapabilities);
    ctx.reportError(err, `Unable to plan ${def.displayName}`, describeObject(def, toPlanModel(def.schema.attributes, proposed)));
    return { plannedState: req.proposedNewState, requiresReplace: [], plannedPrivate: req.priorPrivate, diagnostics: ctx.diagnostics.toArray() };
  }
  return {
    plannedState: encodeDynamicValue(out.planned, t),
    requiresReplace: out.requiresReplace,
    plannedPrivate: req.priorPrivate,
    diagnostics: out.diagnostics,
  };
}

/** ApplyResourceChange: create, update or delete; a failed create saves nothing. */
export async function applyResourceChange(
  def: ResourceDefinition,
  rt: Runtime,
  req: ProviderRequest<'applyResourceChange'>,
): Promise<ProviderResponse<'applyResourceChange'>> {
  const t = def.schema.type;
  const attrs = def.schema.attributes;
  const prior = decodeDynamicValue(req.priorState, t);
  const planned = decodeDynamicValue(req.plannedState, t);
  const diagnostics = new Diagnostics();
  const stored = decodePrivate(req.plannedPrivate);
  const answer = (state: CtyValue, chosen?: PrivateChoice): ProviderResponse<'applyResourceChange'> => ({
    newState: encodeDynamicValue(state, t),
    private: privateBytes(chosen, req.plannedPrivate),
    diagnostics: diagnostics.toArray(),
  });
  if (notConfigured(diagnostics, def, rt)) return answer(prior);
  const ctx = resourceContext(def, rt, 'ApplyResourceChange', undefined, diagnostics);
  const priorModel = toModel(attrs, prior);
  if (prior !== null && stateProblem(def, priorModel, stored, diagnostics)) return answer(prior);

  if (planned === null) {
    await runCrud(def, ctx, 'delete', priorModel, () => def.delete(ctx, { prior: priorModel, private: stored }));
    // A failed delete keeps the object in state so the next apply tries again.
    return answer(diagnostics.hasErrors() ? prior : null);
  }

  const plannedModel = toModel(attrs, planned);
  const configModel = toModel(attrs, decodeDynamicValue(req.config, t));
  const withPrivate = privateChoice(ctx);
  if (prior === null) {
    const r = await runCrud(def, ctx, 'create', plannedModel, () =>
      def.create(withPrivate.ctx, { planned: plannedModel, config: configModel, private: stored }),
    );
    if (r.failed || r.value === undefined) {
      expectError(diagnostics, def, 'create');
      return answer(null);
    }
    return answer(encodeState(def, diagnostics, r.value), withPrivate);
  }

  const update = def.update;
  if (update === undefined) {
    diagnostics.addError(
      `Unable to update ${def.displayName}`,
      `${def.typeName} cannot be updated in place, yet Terraform planned an update. This is a bug in the provider; please report it.`,
    );
    return answer(prior);
  }
  const r = await runCrud(def, ctx, 'update', plannedModel, () =>
    update.call(def, withPrivate.ctx, { prior: priorModel, planned: plannedModel, config: configModel, private: stored }),
  );
  if (r.failed || r.value === undefined) {
    expectError(diagnostics, def, 'update');
    return answer(prior);
  }
  return answer(encodeState(def, diagnostics, r.value), withPrivate);
}

/** ReadResource: the remote truth; null when the object is gone (drift → recreate). */
export async function readResource(def: ResourceDefinition, rt: Runtime, req: ProviderRequest<'readResource'>): Promise<ProviderResponse<'readResource'>> {
  const t = def.schema.type;
  const state = decodeDynamicValue(req.currentState, t);
  const diagnostics = new Diagnostics();
  const answer = (v: CtyValue, chosen?: PrivateChoice): ProviderResponse<'readResource'> => ({
    newState: encodeDynamicValue(v, t),
    private: privateBytes(chosen, req.private),
    diagnostics: diagnostics.toArray(),
  });
  if (state === null) return answer(null);
  if (notConfigured(diagnostics, def, rt)) return answer(state);
  const ctx = resourceContext(def, rt, 'ReadResource', req.clientCapabilities, diagnostics);
  const model = toModel(def.schema.attributes, state);
  const stored = decodePrivate(req.private);
  if (stateProblem(def, model, stored, diagnostics)) return answer(state);
  const withPrivate = privateChoice(ctx);
  const r = await runCrud(def, ctx, 'read', model, () => def.read(withPrivate.ctx, { state: model, private: stored }));
  if (r.failed || r.value === undefined) {
    expectError(diagnostics, def, 'read');
    return answer(state);
  }
  return answer(r.value === null ? null : encodeState(def, diagnostics, r.value), withPrivate);
}

/** A create's, read's or update's context with `setPrivate`, and what it was given. */
interface PrivateChoice {
  readonly ctx: ResourceStateContext;
  /** What `setPrivate` was given last; undefined while it was not called. */
  chosen(): { readonly state: PrivateState | undefined } | undefined;
}

function privateChoice(ctx: ResourceContext): PrivateChoice {
  let chosen: { readonly state: PrivateState | undefined } | undefined;
  return {
    ctx: {
      ...ctx,
      setPrivate(state) {
        chosen = { state };
      },
    },
    chosen: () => chosen,
  };
}

/** The private bytes to answer with: what the call chose, else those that came (passed on untouched). */
function privateBytes(choice: PrivateChoice | undefined, incoming: Uint8Array): Uint8Array {
  const chosen = choice?.chosen();
  return chosen === undefined ? incoming : encodePrivate(chosen.state);
}

/** Runs the resource's state check; on a problem adds the error (naming the state) and returns true. */
function stateProblem(def: ResourceDefinition, state: Record<string, unknown>, stored: PrivateState | undefined, diagnostics: Diagnostics): boolean {
  const found = def.checkState?.(state as never, { private: stored });
  if (found === undefined) return false;
  diagnostics.addError(
    `Inconsistent ${def.displayName} state`,
    `The stored state of this ${def.typeName} (${describeObject(def, state)}) is inconsistent: ${found.problem}. ` +
      (found.repair !== undefined
        ? `Nothing was sent to the API (acting on it could change another object). ${found.repair}`
        : 'The state file was edited or is corrupted, so nothing was sent to the API (acting on it could change another object). ' +
          `Repair it: remove it with "terraform state rm ADDRESS", then import the object again (terraform import, or an import block).`),
    [{ attributeName: found.attribute }],
  );
  return true;
}

/** ImportResourceState: a state holding the id and whatever import fills in; Terraform then reads. */
export async function importResourceState(
  def: ResourceDefinition,
  rt: Runtime,
  req: ProviderRequest<'importResourceState'>,
): Promise<ProviderResponse<'importResourceState'>> {
  const diagnostics = new Diagnostics();
  const none = (): ProviderResponse<'importResourceState'> => ({ importedResources: [], diagnostics: diagnostics.toArray() });
  let partial: Record<string, unknown> | undefined = { id: req.id };
  const importer = def.import;
  if (importer !== undefined) {
    if (notConfigured(diagnostics, def, rt)) return none();
    const ctx = resourceContext(def, rt, 'ImportResourceState', req.clientCapabilities, diagnostics);
    const r = await runCrud(def, ctx, 'import', { id: req.id }, () => importer.call(def, ctx, req.id));
    partial = r.failed ? undefined : r.value;
  }
  if (partial === undefined || diagnostics.hasErrors()) {
    expectError(diagnostics, def, 'import');
    return none();
  }
  const state = withoutWriteOnly(def, fromModel(def.schema.attributes, partial));
  return {
    importedResources: [{ typeName: def.typeName, state: encodeDynamicValue(state, def.schema.type) }],
    diagnostics: diagnostics.toArray(),
  };
}

/** UpgradeResourceState: raw JSON state through the type's upgrade steps, decoded with the current schema. */
export function upgradeResourceState(def: ResourceDefinition, req: ProviderRequest<'upgradeResourceState'>): ProviderResponse<'upgradeResourceState'> {
  const r = upgradeState(def.schema, req.version, req.rawState, def.typeName, def.stateUpgraders);
  if (r.diagnostics.some((d) => d.severity === 'error')) return { diagnostics: r.diagnostics };
  return { upgradedState: encodeDynamicValue(r.value, def.schema.type), diagnostics: r.diagnostics };
}

/** Encodes a model returned by resource code as state: write-only attributes nulled, no unknowns. */
export function encodeState(def: Pick<ResourceDefinition, 'schema' | 'typeName'>, diagnostics: Diagnostics, model: object): CtyValue {
  const value = withoutWriteOnly(def, fromModel(def.schema.attributes, model as Record<string, unknown>));
  if (!isWhollyKnown(value)) {
    diagnostics.addError(
      'Provider returned an unknown value',
      `${def.typeName} returned a state with unknown values. This is a bug in the provider; please report it.`,
    );
  }
  return value;
}

function expectError(diagnostics: Diagnostics, def: ResourceDefinition, operation: string): void {
  // Resource code that gives up must say why; a silent failure would leave Terraform guessing.
  if (!diagnostics.hasErrors()) {
    diagnostics.addError(
      `Unable to ${operation} ${def.displayName}`,
      `${def.typeName} ${operation} returned no result and no reason. This is a bug in the provider; please report it.`,
    );
  }
}
