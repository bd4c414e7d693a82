// The schema DSL: attribute builders that carry everything the framework needs (type, flags,
// validators, plan modifiers, default) and a typed model, and `defineSchema`, which turns them
// into the protocol's Schema and cty type. Attribute names are the schema's snake_case names and
// the model uses the same keys (no renaming anywhere).
import { Types, type CtyType, type CtyValue } from '../../protocol/cty';
import { schemaBlockType, type AttributePath, type Diagnostic, type Schema, type SchemaAttribute, type SchemaBlock } from '../../protocol/types';

/** The primitive element types a collection attribute may hold. */
export type PrimitiveKind = 'string' | 'number' | 'bool';

/** The TypeScript type of a primitive kind. */
export type PrimitiveOf<P extends PrimitiveKind> = P extends 'string' ? string : P extends 'number' ? number : boolean;

/** What a validator is told besides the value. */
export interface ValidatorContext {
  /** Where the value sits; put diagnostics here. */
  readonly path: AttributePath;
  /** The attribute's own name. */
  readonly attributeName: string;
  /** True for sensitive attributes: never echo the value in a message. */
  readonly sensitive: boolean;
  /** The enclosing object's configured values (raw cty: may hold null or unknown). */
  readonly siblings: Readonly<Record<string, CtyValue>>;
}

/**
 * Checks one known, non-null configured value. Runs in ValidateResourceConfig,
 * ValidateDataResourceConfig and ValidateProviderConfig; unknown and null values, and collections
 * holding a null element (refused by the framework itself), are skipped.
 */
export interface Validator<T> {
  /** One line for docs and tests, e.g. "at most 30 characters". */
  readonly description: string;
  /** Returns the problems found, each on `ctx.path` (or deeper). */
  validate(value: T, ctx: ValidatorContext): Diagnostic[];
}

/** What a plan modifier sees; all values are raw cty (they may be unknown). */
export interface PlanModifierRequest {
  /** The attribute's path. */
  readonly path: AttributePath;
  /** The attribute's cty type (for comparisons: sets compare as sets). */
  readonly type: CtyType;
  /** The attribute's configured value. */
  readonly config: CtyValue;
  /** The attribute's prior value; null on create. */
  readonly prior: CtyValue;
  /** The value planned so far. */
  readonly planned: CtyValue;
  /** True when the object is being created (no prior state). */
  readonly creating: boolean;
  /** On update: true when the planned object differs from the prior one (after defaults). */
  readonly objectChanged: boolean;
}

/** A plan modifier's answer: a new planned value and/or a replacement request. */
export interface PlanModifierResult {
  /** Replaces the planned value when set. */
  readonly planned?: CtyValue;
  /** True when this change cannot be made in place. */
  readonly requiresReplace?: boolean;
  /** Problems found while planning. */
  readonly diagnostics?: readonly Diagnostic[];
}

/** Adjusts one attribute's planned value; runs in PlanResourceChange for create and update. */
export interface PlanModifier {
  /** One line for docs, e.g. "changing it replaces the object". */
  readonly description: string;
  /** Computes the adjustment. */
  modify(req: PlanModifierRequest): PlanModifierResult;
}

/** How a nested attribute holds its objects. */
export interface NestedAttributes {
  /** The attributes of each nested object. */
  readonly attributes: AttributeMap;
  /** `list` or `set` of objects. */
  readonly nesting: 'list' | 'set';
}

/**
 * One attribute. `T` is its model type when known and non-null; `R` is true for required
 * attributes (their model type is `T`, every other attribute's is `T | null`).
 */
export interface Attribute<T, R extends boolean = boolean> {
  /** The attribute's cty type. */
  readonly type: CtyType;
  /** Set for nested attributes (objects with their own attributes). */
  readonly nested?: NestedAttributes;
  /** Shown in `terraform providers schema` and the generated registry docs. */
  readonly description: string;
  /** Whether the description is Markdown. */
  readonly markdown: boolean;
  /** The configuration must set it. */
  readonly required: R;
  /** The configuration may set it. */
  readonly optional: boolean;
  /** The provider may set it. */
  readonly computed: boolean;
  /** Terraform hides it in plans and output. */
  readonly sensitive: boolean;
  /** Config-only (Terraform ≥ 1.11): never stored; always null in plan and state. */
  readonly writeOnly: boolean;
  /** Deprecation message shown as a warning when the attribute is configured. */
  readonly deprecated?: string;
  /** Config checks, run when the value is known and non-null. */
  readonly validators: ReadonlyArray<Validator<T>>;
  /** Plan adjustments, run in order after defaults. */
  readonly planModifiers: readonly PlanModifier[];
  /** Planned when the configuration leaves it null (needs optional + computed). */
  readonly default?: T;
}

/** Any attribute, as stored in an attribute map. */
export type AnyAttribute = Attribute<unknown, boolean>;

/** Attributes by schema name. */
export type AttributeMap = { readonly [name: string]: AnyAttribute };

/** Options shared by every attribute builder. */
export interface AttributeOptions<T> {
  /** Required: what the attribute means, for users and the registry docs. */
  readonly description: string;
  /** The description is Markdown. @default false */
  readonly markdown?: boolean;
  /** The configuration must set it. @default false */
  readonly required?: boolean;
  /** The configuration may set it. @default false */
  readonly optional?: boolean;
  /** The provider sets it (with `optional`: when the configuration does not). @default false */
  readonly computed?: boolean;
  /** Hide the value in plans and output. @default false */
  readonly sensitive?: boolean;
  /** Never stored (Terraform ≥ 1.11); read it from the config at apply. @default false */
  readonly writeOnly?: boolean;
  /** Deprecation message. @default not deprecated */
  readonly deprecated?: string;
  /** Config checks. @default none */
  readonly validators?: ReadonlyArray<Validator<T>>;
  /** Plan adjustments. @default none */
  readonly planModifiers?: readonly PlanModifier[];
  /** Planned when the configuration leaves the attribute null; needs optional + computed. @default none */
  readonly default?: T;
}

type RequiredOf<O> = O extends { readonly required: true } ? true : false;

/** The model type of an attribute map: snake_case keys as in the schema. */
export type ModelOfAttributes<A extends AttributeMap> = {
  -readonly [K in keyof A]: A[K] extends Attribute<infer T, infer R> ? (R extends true ? T : T | null) : never;
};

function build<T, R extends boolean>(type: CtyType, opts: AttributeOptions<T>, nested?: NestedAttributes): Attribute<T, R> {
  const required = opts.required === true;
  const optional = opts.optional === true;
  const computed = opts.computed === true;
  const writeOnly = opts.writeOnly === true;
  // Schema mistakes are bugs: fail at load time, where every test sees them.
  const problem =
    required && (optional || computed)
      ? 'required cannot be combined with optional or computed'
      : !required && !optional && !computed
        ? 'needs one of required, optional or computed'
        : opts.default !== undefined && !(optional && computed)
          ? 'a default needs optional and computed'
          : writeOnly && computed
            ? 'write-only attributes cannot be computed'
            : opts.description.trim() === ''
              ? 'needs a description'
              : undefined;
  if (problem !== undefined) throw new Error(`invalid attribute definition: ${problem}`);
  const attr: Attribute<T, boolean> = {
    type,
    description: opts.description,
    markdown: opts.markdown === true,
    required,
    optional,
    computed,
    sensitive: opts.sensitive === true,
    writeOnly,
    validators: opts.validators ?? [],
    planModifiers: opts.planModifiers ?? [],
    ...(nested !== undefined ? { nested } : {}),
    ...(opts.deprecated !== undefined ? { deprecated: opts.deprecated } : {}),
    ...(opts.default !== undefined ? { default: opts.default } : {}),
  };
  return attr as Attribute<T, R>;
}

function primitiveType(kind: PrimitiveKind): CtyType {
  return kind === 'string' ? Types.string : kind === 'number' ? Types.number : Types.bool;
}

function nestedObjectType(attributes: AttributeMap): CtyType {
  const attrs: Record<string, CtyType> = {};
  for (const [name, a] of Object.entries(attributes)) attrs[name] = a.type;
  return Types.object(attrs);
}

/** Attribute builders. Numbers are cty numbers; integer-ness is a validator's job. */
export const attr = {
  /** A string attribute. */
  string<const O extends AttributeOptions<string>>(opts: O): Attribute<string, RequiredOf<O>> {
    return build(Types.string, opts);
  },
  /** A number attribute (JS number in the model). */
  number<const O extends AttributeOptions<number>>(opts: O): Attribute<number, RequiredOf<O>> {
    return build(Types.number, opts);
  },
  /** A bool attribute. */
  bool<const O extends AttributeOptions<boolean>>(opts: O): Attribute<boolean, RequiredOf<O>> {
    return build(Types.bool, opts);
  },
  /** A list of primitives. */
  list<P extends PrimitiveKind, const O extends AttributeOptions<Array<PrimitiveOf<P>>>>(element: P, opts: O): Attribute<Array<PrimitiveOf<P>>, RequiredOf<O>> {
    return build(Types.list(primitiveType(element)), opts);
  },
  /** A set of primitives (an array in the model; order carries no meaning). */
  set<P extends PrimitiveKind, const O extends AttributeOptions<Array<PrimitiveOf<P>>>>(element: P, opts: O): Attribute<Array<PrimitiveOf<P>>, RequiredOf<O>> {
    return build(Types.set(primitiveType(element)), opts);
  },
  /** A map of primitives keyed by string. */
  map<P extends PrimitiveKind, const O extends AttributeOptions<Record<string, PrimitiveOf<P>>>>(
    element: P,
    opts: O,
  ): Attribute<Record<string, PrimitiveOf<P>>, RequiredOf<O>> {
    return build(Types.map(primitiveType(element)), opts);
  },
  /** A list of objects with their own attributes (a nested attribute, not a block). */
  listNested<N extends AttributeMap, const O extends AttributeOptions<Array<ModelOfAttributes<N>>>>(
    attributes: N,
    opts: O,
  ): Attribute<Array<ModelOfAttributes<N>>, RequiredOf<O>> {
    return build(Types.list(nestedObjectType(attributes)), opts, { attributes, nesting: 'list' });
  },
  /** A set of objects with their own attributes (an array in the model). */
  setNested<N extends AttributeMap, const O extends AttributeOptions<Array<ModelOfAttributes<N>>>>(
    attributes: N,
    opts: O,
  ): Attribute<Array<ModelOfAttributes<N>>, RequiredOf<O>> {
    return build(Types.set(nestedObjectType(attributes)), opts, { attributes, nesting: 'set' });
  },
};

/** A resource's, data source's or provider's schema, with its protocol forms precomputed. */
export interface ObjectSchema<A extends AttributeMap = AttributeMap> {
  /** The attributes, by name. */
  readonly attributes: A;
  /** Schema version (stored in state; UpgradeResourceState compares it). */
  readonly version: number;
  /** The object's description. */
  readonly description: string;
  /** The protocol schema sent in GetProviderSchema. */
  readonly schema: Schema;
  /** The object type values of this schema are decoded with. */
  readonly type: CtyType;
}

/** Options of {@link defineSchema}. */
export interface SchemaDefinition<A extends AttributeMap> {
  /** What the resource, data source or provider is. */
  readonly description: string;
  /** Markdown description. @default false */
  readonly markdown?: boolean;
  /** The attributes; object key order is the order shown in the schema. */
  readonly attributes: A;
  /** State schema version. @default 0 */
  readonly version?: number;
  /** Deprecation message for the whole resource. @default not deprecated */
  readonly deprecated?: string;
}

/** Builds a schema from attribute builders. */
export function defineSchema<A extends AttributeMap>(def: SchemaDefinition<A>): ObjectSchema<A> {
  const version = def.version ?? 0;
  const block: SchemaBlock = {
    version,
    attributes: toProtocolAttributes(def.attributes),
    description: def.description,
    descriptionKind: def.markdown === true ? 'markdown' : 'plain',
    ...(def.deprecated !== undefined ? { deprecated: true } : {}),
  };
  return {
    attributes: def.attributes,
    version,
    description: def.description,
    schema: { version, block },
    type: schemaBlockType(block),
  };
}

function toProtocolAttributes(attributes: AttributeMap): SchemaAttribute[] {
  return Object.entries(attributes).map(([name, a]) => {
    const out: SchemaAttribute = {
      name,
      description: a.description,
      descriptionKind: a.markdown ? 'markdown' : 'plain',
    };
    if (a.nested !== undefined) {
      out.nestedType = { attributes: toProtocolAttributes(a.nested.attributes), nesting: a.nested.nesting };
    } else {
      out.type = a.type;
    }
    if (a.required) out.required = true;
    if (a.optional) out.optional = true;
    if (a.computed) out.computed = true;
    if (a.sensitive) out.sensitive = true;
    if (a.writeOnly) out.writeOnly = true;
    if (a.deprecated !== undefined) out.deprecated = true;
    return out;
  });
}
