// Drives one resource type the way Terraform does (validate, plan with a proposed new state,
// apply, refresh, import), starting a fresh provider server per step as Terraform starts a fresh
// provider process per command. Values are plain cty objects.
import type { CtyValue } from '../../src/protocol/cty';
import type { ClientCapabilities, Diagnostic, ProviderServer } from '../../src/protocol/types';
import type { ObjectSchema } from '../../src/provider/framework';
import { decode, decodeObject, dv, errors, NO_PRIVATE, obj, TF111 } from './harness';

export type Obj = { [k: string]: CtyValue };

/** Raised when a step reports errors the test did not expect. */
export class StepFailed extends Error {
  constructor(
    step: string,
    readonly diagnostics: Diagnostic[],
  ) {
    super(`${step} failed: ${JSON.stringify(diagnostics)}`);
  }
}

export class ResourceDriver {
  constructor(
    private readonly newServer: () => Promise<ProviderServer>,
    readonly typeName: string,
    readonly schema: ObjectSchema,
    private readonly caps: ClientCapabilities = TF111,
  ) {}

  /** Terraform's proposed new state: config, with prior values for computed attributes left null. */
  proposed(prior: Obj | null, config: Obj): Obj {
    const out: Obj = {};
    for (const [name, a] of Object.entries(this.schema.attributes)) {
      const c = config[name] ?? null;
      out[name] = c === null && a.computed && prior !== null ? (prior[name] ?? null) : c;
    }
    return out;
  }

  async validate(config: Record<string, CtyValue>): Promise<Diagnostic[]> {
    const server = await this.newServer();
    return (await server.validateResourceConfig({ typeName: this.typeName, config: dv(this.schema, obj(this.schema, config)), clientCapabilities: this.caps }))
      .diagnostics;
  }

  async plan(prior: Obj | null, config: Record<string, CtyValue>) {
    const server = await this.newServer();
    const cfg = obj(this.schema, config);
    const res = await server.planResourceChange({
      typeName: this.typeName,
      priorState: dv(this.schema, prior),
      proposedNewState: dv(this.schema, this.proposed(prior, cfg)),
      config: dv(this.schema, cfg),
      priorPrivate: NO_PRIVATE,
      clientCapabilities: this.caps,
    });
    if (errors(res.diagnostics).length > 0) throw new StepFailed('plan', res.diagnostics);
    return { planned: decodeObject(this.schema, res.plannedState), requiresReplace: res.requiresReplace, diagnostics: res.diagnostics };
  }

  /** Applies a plan; returns the new state (null when none) and the diagnostics, without throwing. */
  async apply(prior: Obj | null, planned: Obj | null, config: Record<string, CtyValue> | null) {
    const server = await this.newServer();
    const res = await server.applyResourceChange({
      typeName: this.typeName,
      priorState: dv(this.schema, prior),
      plannedState: dv(this.schema, planned),
      config: dv(this.schema, config === null ? null : obj(this.schema, config)),
      plannedPrivate: NO_PRIVATE,
    });
    return { state: decode(this.schema, res.newState) as Obj | null, diagnostics: res.diagnostics };
  }

  /** validate + plan + apply of a create; throws on errors. */
  async create(config: Record<string, CtyValue>): Promise<Obj> {
    const v = errors(await this.validate(config));
    if (v.length > 0) throw new StepFailed('validate', v);
    const { planned } = await this.plan(null, config);
    const { state, diagnostics } = await this.apply(null, planned, config);
    if (errors(diagnostics).length > 0 || state === null) throw new StepFailed('apply', diagnostics);
    return state;
  }

  /** plan + apply of an in-place update; throws on errors or a planned replacement. */
  async update(prior: Obj, config: Record<string, CtyValue>): Promise<Obj> {
    const { planned, requiresReplace } = await this.plan(prior, config);
    if (requiresReplace.length > 0) throw new Error(`unexpected replacement: ${JSON.stringify(requiresReplace)}`);
    const { state, diagnostics } = await this.apply(prior, planned, config);
    if (errors(diagnostics).length > 0 || state === null) throw new StepFailed('apply', diagnostics);
    return state;
  }

  /** ReadResource; returns null when the object is gone. */
  async read(state: Obj): Promise<Obj | null> {
    const server = await this.newServer();
    const res = await server.readResource({
      typeName: this.typeName,
      currentState: dv(this.schema, state),
      private: NO_PRIVATE,
      clientCapabilities: this.caps,
    });
    if (errors(res.diagnostics).length > 0) throw new StepFailed('read', res.diagnostics);
    return decode(this.schema, res.newState) as Obj | null;
  }

  /** ImportResourceState then ReadResource, as `terraform import` does. */
  async import(id: string): Promise<{ state: Obj | null; diagnostics: Diagnostic[] }> {
    const server = await this.newServer();
    const res = await server.importResourceState({ typeName: this.typeName, id, clientCapabilities: this.caps });
    if (errors(res.diagnostics).length > 0) return { state: null, diagnostics: res.diagnostics };
    const imported = decodeObject(this.schema, res.importedResources[0]!.state);
    return { state: await this.read(imported), diagnostics: res.diagnostics };
  }

  /** plan + apply of a destroy; returns the diagnostics. */
  async destroy(state: Obj): Promise<Diagnostic[]> {
    const { state: after, diagnostics } = await this.apply(state, null, null);
    if (errors(diagnostics).length === 0 && after !== null) throw new Error('destroy left a state behind');
    return diagnostics;
  }
}
