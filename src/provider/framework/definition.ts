// The interfaces a resource, data source and provider module implement. One module per type
// exports one definition checked with `satisfies ResourceDefinition<typeof schema>`; members
// appear in the order typeName, displayName, describe, schema, (validateConfig, modifyPlan),
// create, read, update, delete, import, (stateUpgraders).
import type { Unknown } from '../../protocol/cty';
import type { Logger } from '../../protocol/log';
import type { ClientCapabilities } from '../../protocol/types';
import type { Diagnostics } from './diagnostics';
import type { Model, PlanModel } from './model';
import type { ErrorDescriber } from './errors';
import type { PrivateState } from './private-state';
import type { ObjectSchema } from './schema';
import type { StateUpgraders } from './upgrade';

/** Context of validation and planning hooks: pure, no API access. */
export interface PlanContext<A extends string = string> {
  /** Add problems here; `addAttributeError(name, …)` takes the schema's attribute names. */
  readonly diagnostics: Diagnostics<A>;
  /** What the calling Terraform supports (write-only attributes, deferrals). */
  readonly clientCapabilities: ClientCapabilities | undefined;
}

/**
 * Context of create/read/update/delete/import and of data-source reads. `D` is what the
 * provider's configure step returned (the framework never looks inside it).
 */
export interface ResourceContext<D = unknown, A extends string = string> {
  /** What the provider's configure step returned, e.g. its API client. */
  readonly data: D;
  /** Add problems here (errors make the RPC fail; warnings are shown). */
  readonly diagnostics: Diagnostics<A>;
  // No stop signal here: the provider gets it once, in ConfigureContext, and binds it into what
  // `data` holds (e.g. an API client), so every call of every resource obeys it.
  /** Logs to Terraform's log at the level TF_LOG sets, with tf_rpc and tf_resource_type; never log a secret. */
  readonly log: Logger;
  /** What the calling Terraform supports, when it said (Read and Import carry it). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * Adds the diagnostic for a failed call: `summary` such as "Unable to deactivate
   * sub-account", `object` such as "sub-account 'alice'" (see errors.ts).
   */
  reportError(err: unknown, summary: string, object: string): void;
}

/**
 * Context of create, read and update: they may also set the private state saved with the state
 * they return (see private-state.ts).
 */
export interface ResourceStateContext<D = unknown, A extends string = string> extends ResourceContext<D, A> {
  /**
   * Sets the private state Terraform saves beside the state this call returns (undefined: none).
   * Not called, the private state stays as it came (`req.private`); ignored when the call returns
   * no state.
   */
  setPrivate(value: PrivateState | undefined): void;
}

/**
 * Context of `modifyPlan`: a plan may read (never write) through the provider's data, e.g. to
 * show what an apply would remove. `data` is undefined when the provider is not configured
 * (its configuration is not yet known): plan without reading then.
 */
export interface ModifyPlanContext<D = unknown, A extends string = string> extends PlanContext<A> {
  /** What the provider's configure step returned, or undefined. */
  readonly data: D | undefined;
}

/** What `modifyPlan` may return. */
export interface PlanAdjustment<S extends ObjectSchema> {
  /** Replaces planned values (UNKNOWN allowed); omitted keys keep the framework's plan. */
  readonly planned?: Partial<PlanModel<S>>;
  /** Attributes whose change replaces the object (besides requiresReplace modifiers). */
  readonly requiresReplace?: ReadonlyArray<keyof Model<S> & string>;
}

/**
 * A managed resource type. Throwing is allowed: the framework turns any exception into a
 * diagnostic "Unable to <operation> <displayName>" naming the object; for partial failures
 * add diagnostics yourself and still return what exists.
 */
export interface ResourceDefinition<S extends ObjectSchema = ObjectSchema, D = unknown> {
  /** Terraform type name, e.g. `proxyaccount_sub_account`. */
  readonly typeName: string;
  /** Human name used in error summaries, e.g. `sub-account`. */
  readonly displayName: string;
  /** Names one object in error details, e.g. "sub-account 'alice'". @default `<displayName> '<id>'` */
  describe?(model: Partial<Model<S>>): string;
  /** The schema built with `defineSchema`. */
  readonly schema: S;
  /**
   * Cross-attribute checks beyond attribute validators; runs in ValidateResourceConfig after
   * them. Values may be UNKNOWN: skip those.
   */
  validateConfig?(ctx: PlanContext<AttributeName<S>>, config: PlanModel<S>): void;
  /**
   * Checks stored state before it is trusted (read, update, delete): the attributes that identify
   * the object must agree and be in range. A problem stops the call, with an error that names the
   * state and the attribute, before anything is sent; the state is kept as it is. `stored.private`
   * is the private state that came with it (a shape only it makes valid, e.g. a pending create).
   * `repair` replaces the error's default advice (the state was edited: remove it and import the
   * object again) when the resource knows how such a state arises and what to do.
   */
  checkState?(
    state: Model<S>,
    stored: { readonly private: PrivateState | undefined },
  ): { readonly attribute: keyof Model<S> & string; readonly problem: string; readonly repair?: string } | undefined;
  /**
   * Last step of PlanResourceChange for create and update (after defaults and plan modifiers):
   * adjust planned values, e.g. mark a value unknown the API will change.
   */
  modifyPlan?(
    ctx: ModifyPlanContext<D, AttributeName<S>>,
    req: { config: PlanModel<S>; prior: Model<S> | null; planned: PlanModel<S> },
  ): PlanAdjustment<S> | undefined | Promise<PlanAdjustment<S> | undefined>;
  /**
   * Creates the object. `planned` holds the plan with unknowns as null; `config` holds
   * write-only values. Returns the new state (every computed attribute filled), or undefined
   * after adding an error (nothing is saved). A state returned with an error is saved marked
   * tainted (an object that may exist; the next plan replaces it).
   */
  create(
    ctx: ResourceStateContext<D, AttributeName<S>>,
    req: { planned: Model<S>; config: Model<S>; private: PrivateState | undefined },
  ): Promise<Model<S> | undefined>;
  /**
   * Refreshes the object. `state` may hold only what `import` filled in. Returns the remote
   * truth, null when the object is gone (Terraform plans to recreate it), or undefined after
   * adding an error (state kept).
   */
  read(ctx: ResourceStateContext<D, AttributeName<S>>, req: { state: Model<S>; private: PrivateState | undefined }): Promise<Model<S> | null | undefined>;
  /**
   * Updates the object in place; never called when every attribute requires replacement.
   * Returns the new state, or undefined after adding an error (prior state kept).
   */
  update?(
    ctx: ResourceStateContext<D, AttributeName<S>>,
    req: { prior: Model<S>; planned: Model<S>; config: Model<S>; private: PrivateState | undefined },
  ): Promise<Model<S> | undefined>;
  /**
   * Deletes the object; an object already gone counts as deleted. `private` is what the plan
   * carried: none when Terraform replaces a tainted object (it plans those as new).
   */
  delete(ctx: ResourceContext<D, AttributeName<S>>, req: { prior: Model<S>; private: PrivateState | undefined }): Promise<void>;
  /**
   * Turns an import ID into a partial state; Terraform then calls `read`. Attributes left out
   * are null. Returns undefined after adding an error. @default `{ id }`
   */
  import?(ctx: ResourceContext<D, AttributeName<S>>, id: string): Promise<Partial<Model<S>> | undefined>;
  /**
   * When the schema's `version` goes up: the steps that bring older state to it, keyed by the
   * version each reads (`{ 0: (s) => ({ ...s, size: Number(s.size) }) }` makes version 0 state
   * version 1). Needed only when a change is more than adding or removing attributes, which every
   * state gets for free. @default no steps
   */
  readonly stateUpgraders?: StateUpgraders;
}

/** A data source type. */
export interface DataSourceDefinition<S extends ObjectSchema = ObjectSchema, D = unknown> {
  /** Terraform type name, e.g. `proxyaccount_sub_account`. */
  readonly typeName: string;
  /** Human name used in error summaries. */
  readonly displayName: string;
  /** Names the looked-up object in error details. @default `<displayName>` */
  describe?(config: Partial<Model<S>>): string;
  /** The schema built with `defineSchema`. */
  readonly schema: S;
  /** Cross-attribute checks; values may be UNKNOWN. */
  validateConfig?(ctx: PlanContext<AttributeName<S>>, config: PlanModel<S>): void;
  /** Reads the data; `config` is wholly known. Returns the full model or undefined after an error. */
  read(ctx: ResourceContext<D, AttributeName<S>>, req: { config: Model<S> }): Promise<Model<S> | undefined>;
}

/**
 * An ephemeral resource type (Terraform >= 1.10): opened during plan and apply, its result usable
 * in provider configurations and write-only arguments, never in plan or state; closed when the
 * run is done with it (also after an error or an interrupt).
 */
export interface EphemeralResourceDefinition<S extends ObjectSchema = ObjectSchema, D = unknown> {
  /** Terraform type name, e.g. `proxyaccount_bearer_token`. */
  readonly typeName: string;
  /** Human name used in error summaries. */
  readonly displayName: string;
  /** The schema built with `defineSchema` (computed attributes are the result). */
  readonly schema: S;
  /** Cross-attribute checks; values may be UNKNOWN. */
  validateConfig?(ctx: PlanContext<AttributeName<S>>, config: PlanModel<S>): void;
  /**
   * Opens: returns the result (every computed attribute filled) and private bytes Terraform hands
   * back to `close`, or undefined after adding an error.
   */
  open(ctx: ResourceContext<D, AttributeName<S>>, req: { config: Model<S> }): Promise<{ result: Model<S>; private?: Uint8Array } | undefined>;
  /** Releases what `open` made; runs even after StopProvider. What is already gone counts as closed. */
  close?(ctx: ResourceContext<D, AttributeName<S>>, req: { private: Uint8Array | undefined }): Promise<void>;
}

/** Context of the provider's configure step. */
export interface ConfigureContext {
  /** Add one diagnostic per problem, on its attribute. */
  readonly diagnostics: Diagnostics;
  /** The Terraform version that called, e.g. `1.11.4`. */
  readonly terraformVersion: string;
  /** What the calling Terraform supports. */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * Aborts when Terraform calls StopProvider; hand it to whatever sends requests later (the
   * data returned here): it is the one place the stop signal reaches the provider.
   */
  readonly signal: AbortSignal;
}

/**
 * The provider itself: its configuration schema, configure step, registered types and its
 * reading of its own errors. `D` is the data its configure step hands every resource.
 */
export interface ProviderDefinition<S extends ObjectSchema = ObjectSchema, D = unknown> {
  /** Provider type name, e.g. `proxyaccount`. */
  readonly typeName: string;
  /** The provider block's schema. */
  readonly schema: S;
  /** Cross-attribute checks of the provider block; values may be UNKNOWN. */
  validateConfig?(ctx: PlanContext<AttributeName<S>>, config: PlanModel<S>): void;
  /**
   * Builds the shared provider data from the provider block (values may be UNKNOWN). Must not
   * send requests. Returns undefined after adding errors.
   */
  configure(ctx: ConfigureContext, config: PlanModel<S>): Promise<D | undefined>;
  /**
   * Called before the first PlanResourceChange of a configured process (once; concurrent plans
   * wait on the same call), e.g. to prove the credentials, so that a plan whose objects need no
   * request still fails on what the apply would fail on. A rejection is reported on every plan of
   * the process. @default none
   */
  beforePlan?(data: D, signal: AbortSignal): Promise<void>;
  /**
   * Reads the provider's own errors (e.g. its API client's) as diagnostics; undefined for an
   * error it does not recognise, which the framework reports as a bug. @default none recognised
   */
  readonly describeError?: ErrorDescriber;
  /** Every managed resource type. */
  // biome-ignore lint/suspicious/noExplicitAny: each type has its own schema; the list holds them all.
  readonly resources: ReadonlyArray<ResourceDefinition<any, D>>;
  /** Every data source type. */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  readonly dataSources: ReadonlyArray<DataSourceDefinition<any, D>>;
  /** Every ephemeral resource type. @default none */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  readonly ephemeralResources?: ReadonlyArray<EphemeralResourceDefinition<any, D>>;
}

/** The names of a schema's top-level attributes (for typed attribute paths). */
export type AttributeName<S extends ObjectSchema> = keyof Model<S> & string;

/** Re-exported so hooks can write `value === UNKNOWN` checks with one import. */
export type { Unknown };
