// PlanResourceChange's generic work. Create: computed attributes the config leaves null become
// their default or "known after apply". Update: they keep what Terraform proposes (the prior
// value) unless a default or a plan modifier says otherwise. Then plan modifiers run, then the
// resource's own modifyPlan hook; write-only attributes are always null.
import { ctyEqual, UNKNOWN, type CtyValue } from '../../protocol/cty';
import type { AttributePath, ClientCapabilities, Diagnostic } from '../../protocol/types';
import type { ResourceDefinition } from './definition';
import { Diagnostics } from './diagnostics';
import { attributeFromModel, attributeList, isCtyObject, toModel, toPlanModel, type CtyObject } from './model';

/** Decoded inputs of a plan. */
export interface PlanInput {
  /** Prior state; null on create. */
  readonly prior: CtyValue;
  /** Terraform's proposal (config merged with prior computed values); null on destroy. */
  readonly proposed: CtyValue;
  /** The configuration; null on destroy. */
  readonly config: CtyValue;
  /** What the calling Terraform supports. */
  readonly clientCapabilities?: ClientCapabilities;
  /** The configured provider data (undefined before configure), for modifyPlan's reads. */
  readonly data?: unknown;
}

/** The plan the framework answers with. */
export interface PlanOutput {
  /** The planned new state; null for destroy. */
  readonly planned: CtyValue;
  /** Attributes whose change forces replacement. */
  readonly requiresReplace: AttributePath[];
  /** Problems found. */
  readonly diagnostics: Diagnostic[];
}

/** Plans a create, update or destroy of one resource. */
export async function planResource(def: ResourceDefinition, input: PlanInput): Promise<PlanOutput> {
  if (input.proposed === null || !isCtyObject(input.proposed)) return { planned: null, requiresReplace: [], diagnostics: [] };
  const attributes = def.schema.attributes;
  const creating = input.prior === null;
  const prior: CtyObject = isCtyObject(input.prior) ? input.prior : {};
  const config: CtyObject = isCtyObject(input.config) ? input.config : {};
  const planned: CtyObject = { ...input.proposed };
  const diagnostics = new Diagnostics();
  const replace: AttributePath[] = [];
  const addReplace = (name: string): void => {
    if (!replace.some((p) => p.length === 1 && 'attributeName' in p[0]! && p[0].attributeName === name)) replace.push([{ attributeName: name }]);
  };

  const list = attributeList(attributes);
  for (const [name, a] of list.entries) {
    if (a.writeOnly) planned[name] = null;
    else if (a.computed && (config[name] ?? null) === null) {
      if (a.default !== undefined) planned[name] = attributeFromModel(a, a.default);
      else if (creating) planned[name] = UNKNOWN;
    }
  }

  const objectChanged = !creating && !ctyEqual(planned, input.prior, def.schema.type);
  for (const [name, a] of list.entries) {
    for (const modifier of a.planModifiers) {
      const result = modifier.modify({
        path: [{ attributeName: name }],
        type: a.type,
        config: config[name] ?? null,
        prior: prior[name] ?? null,
        planned: planned[name] ?? null,
        creating,
        objectChanged,
      });
      if (result.planned !== undefined) planned[name] = result.planned;
      if (result.requiresReplace === true) addReplace(name);
      if (result.diagnostics !== undefined) diagnostics.add(...result.diagnostics);
    }
  }

  if (def.modifyPlan !== undefined) {
    const adjustment = await def.modifyPlan(
      { diagnostics, clientCapabilities: input.clientCapabilities, data: input.data },
      {
        config: toPlanModel(attributes, config),
        prior: creating ? null : toModel(attributes, prior),
        planned: toPlanModel(attributes, planned),
      },
    );
    for (const [name, value] of Object.entries(adjustment?.planned ?? {})) {
      const a = attributes[name];
      if (a !== undefined && !a.writeOnly) planned[name] = attributeFromModel(a, value);
    }
    for (const name of adjustment?.requiresReplace ?? []) if (!creating) addReplace(name);
  }
  return { planned, requiresReplace: replace, diagnostics: diagnostics.toArray() };
}

/** Nulls every write-only attribute: they never reach plan or state. */
export function withoutWriteOnly(def: { schema: { attributes: ResourceDefinition['schema']['attributes'] } }, value: CtyObject): CtyObject {
  const out: CtyObject = { ...value };
  for (const name of attributeList(def.schema.attributes).writeOnly) out[name] = null;
  return out;
}
