// Wire-level request/response types of tfplugin6 as the provider framework sees them (camelCase of
// the proto fields), and the ProviderServer interface the gRPC server calls. Values stay encoded
// (DynamicValue) here: the framework decodes them with the schema's type in hand (see codec.ts).
import { Types, type CtyType } from './cty';

/** An encoded cty value; Terraform sends msgpack, and JSON only in a few places. */
export interface DynamicValue {
  msgpack?: Uint8Array;
  json?: Uint8Array;
}

/** One step of an attribute path. */
export type AttributePathStep = { attributeName: string } | { elementKeyString: string } | { elementKeyInt: number };

/** A path to a value inside an object, e.g. `[{ attributeName: 'entries' }, { elementKeyInt: 0 }]`. */
export type AttributePath = AttributePathStep[];

/** A problem or remark shown to the user; ties to an attribute when one is at fault. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail?: string;
  attribute?: AttributePath;
}

/** How a description is formatted. */
export type StringKind = 'plain' | 'markdown';

/** An attribute: either a cty `type` or a `nestedType` (nested attributes), never both. */
export interface SchemaAttribute {
  name: string;
  type?: CtyType;
  nestedType?: SchemaObject;
  description?: string;
  descriptionKind?: StringKind;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  deprecated?: boolean;
  writeOnly?: boolean;
}

/** The object type of nested attributes and how it nests. */
export interface SchemaObject {
  attributes: SchemaAttribute[];
  nesting: 'single' | 'list' | 'set' | 'map';
}

/** A nested block type within a block. */
export interface SchemaNestedBlock {
  typeName: string;
  block: SchemaBlock;
  nesting: 'single' | 'list' | 'set' | 'map' | 'group';
  minItems?: number;
  maxItems?: number;
}

/** A configuration block: attributes and nested block types. */
export interface SchemaBlock {
  version?: number;
  attributes: SchemaAttribute[];
  blockTypes?: SchemaNestedBlock[];
  description?: string;
  descriptionKind?: StringKind;
  deprecated?: boolean;
}

/** A versioned schema of a provider, resource or data source. */
export interface Schema {
  version: number;
  block: SchemaBlock;
}

function objectTypeOf(attrs: Readonly<Record<string, CtyType>>, optional: string[]): CtyType {
  return Types.object(attrs, optional);
}

function hasDynamic(t: CtyType): boolean {
  switch (t.kind) {
    case 'dynamic':
      return true;
    case 'list':
    case 'set':
    case 'map':
      return hasDynamic(t.element);
    case 'tuple':
      return t.elements.some(hasDynamic);
    case 'object':
      return Object.values(t.attributes).some(hasDynamic);
    default:
      return false;
  }
}

/** Wraps an element type by nesting mode; like Terraform, a list or map of something dynamic is dynamic. */
function nest(inner: CtyType, nesting: SchemaNestedBlock['nesting']): CtyType {
  switch (nesting) {
    case 'single':
    case 'group':
      return inner;
    case 'list':
      return hasDynamic(inner) ? Types.dynamic : Types.list(inner);
    case 'map':
      return hasDynamic(inner) ? Types.dynamic : Types.map(inner);
    case 'set':
      return Types.set(inner);
  }
}

function attributeType(a: SchemaAttribute): CtyType {
  if (a.nestedType) return nestedObjectType(a.nestedType);
  if (!a.type) throw new TypeError(`attribute "${a.name}" has neither type nor nestedType`);
  return a.type;
}

function nestedObjectType(o: SchemaObject): CtyType {
  const attrs: Record<string, CtyType> = {};
  for (const a of o.attributes) attrs[a.name] = attributeType(a);
  // Optional nested attributes are optional in the type constraint; values still carry all of them.
  const optional = o.attributes.filter((a) => a.optional).map((a) => a.name);
  return nest(objectTypeOf(attrs, optional), o.nesting);
}

/** The object type of a block's values: attributes, nested attribute types and nested blocks. */
export function schemaBlockType(b: SchemaBlock): CtyType {
  const attrs: Record<string, CtyType> = {};
  for (const a of b.attributes) attrs[a.name] = attributeType(a);
  for (const nb of b.blockTypes ?? []) attrs[nb.typeName] = nest(schemaBlockType(nb.block), nb.nesting);
  return Types.object(attrs);
}

/** What Terraform (the client) says it can handle. */
export interface ClientCapabilities {
  deferralAllowed: boolean;
  writeOnlyAttributesAllowed: boolean;
}

/** Optional protocol features the provider announces. */
export interface ServerCapabilities {
  planDestroy?: boolean;
  getProviderSchemaOptional?: boolean;
  moveResourceState?: boolean;
}

/** Stored state as Terraform hands it to UpgradeResourceState: JSON, or legacy flatmap. */
export interface RawState {
  json?: Uint8Array;
  flatmap?: Record<string, string>;
}

/** Implemented by the provider framework; the gRPC server decodes protobuf, calls this, encodes. */
export interface ProviderServer {
  /** Every command starts with it (unless a cached schema may be used): all schemas of the provider. */
  getProviderSchema(): Promise<{
    provider: Schema;
    providerMeta?: Schema;
    resourceSchemas: Record<string, Schema>;
    dataSourceSchemas: Record<string, Schema>;
    /** Ephemeral resource types (Terraform >= 1.10; older versions ignore them). */
    ephemeralResourceSchemas?: Record<string, Schema>;
    serverCapabilities?: ServerCapabilities;
    diagnostics: Diagnostic[];
  }>;
  /** Validate: the provider block, before ConfigureProvider; values may be unknown. */
  validateProviderConfig(req: { config: DynamicValue }): Promise<{ diagnostics: Diagnostic[] }>;
  /** Validate: one resource block's configuration; values may be unknown. */
  validateResourceConfig(req: { typeName: string; config: DynamicValue; clientCapabilities?: ClientCapabilities }): Promise<{ diagnostics: Diagnostic[] }>;
  /** Validate: one data block's configuration; values may be unknown. */
  validateDataResourceConfig(req: { typeName: string; config: DynamicValue }): Promise<{ diagnostics: Diagnostic[] }>;
  /** Before every plan and refresh, per resource in state: raw stored state to the current schema. */
  upgradeResourceState(req: { typeName: string; version: number; rawState: RawState }): Promise<{ upgradedState?: DynamicValue; diagnostics: Diagnostic[] }>;
  /** Once per process before any resource call that needs the API: the provider block's values. */
  configureProvider(req: { terraformVersion: string; config: DynamicValue; clientCapabilities?: ClientCapabilities }): Promise<{ diagnostics: Diagnostic[] }>;
  /** Refresh: the remote truth for a resource in state; no newState (null) means it is gone. */
  readResource(req: {
    typeName: string;
    currentState: DynamicValue;
    private: Uint8Array;
    providerMeta?: DynamicValue;
    clientCapabilities?: ClientCapabilities;
  }): Promise<{ newState?: DynamicValue; private?: Uint8Array; diagnostics: Diagnostic[] }>;
  /** Plan: proposed new state in, planned state (unknowns for computed values) and replace paths out. */
  planResourceChange(req: {
    typeName: string;
    priorState: DynamicValue;
    proposedNewState: DynamicValue;
    config: DynamicValue;
    priorPrivate: Uint8Array;
    providerMeta?: DynamicValue;
    clientCapabilities?: ClientCapabilities;
  }): Promise<{
    plannedState?: DynamicValue;
    requiresReplace: AttributePath[];
    plannedPrivate?: Uint8Array;
    diagnostics: Diagnostic[];
  }>;
  /** Apply: create (prior null), update, or delete (planned null); returns the new state. */
  applyResourceChange(req: {
    typeName: string;
    priorState: DynamicValue;
    plannedState: DynamicValue;
    config: DynamicValue;
    plannedPrivate: Uint8Array;
    providerMeta?: DynamicValue;
  }): Promise<{ newState?: DynamicValue; private?: Uint8Array; diagnostics: Diagnostic[] }>;
  /** `terraform import` and import blocks: an ID to state that ReadResource then completes. */
  importResourceState(req: { typeName: string; id: string; clientCapabilities?: ClientCapabilities }): Promise<{
    importedResources: Array<{ typeName: string; state: DynamicValue; private?: Uint8Array }>;
    diagnostics: Diagnostic[];
  }>;
  /** Plan and refresh: a data source's state from its configuration. */
  readDataSource(req: {
    typeName: string;
    config: DynamicValue;
    providerMeta?: DynamicValue;
    clientCapabilities?: ClientCapabilities;
  }): Promise<{ state?: DynamicValue; diagnostics: Diagnostic[] }>;
  /** Terraform asks the provider to stop in-flight work (Ctrl-C). */
  stopProvider(): Promise<{ error?: string }>;
  /** Validate: one ephemeral block's configuration; values may be unknown. Optional: absent = no ephemeral resources. */
  validateEphemeralResourceConfig?(req: { typeName: string; config: DynamicValue }): Promise<{ diagnostics: Diagnostic[] }>;
  /** Plan and apply: opens the ephemeral resource (its result never reaches plan or state); `private` goes to close. */
  openEphemeralResource?(req: {
    typeName: string;
    config: DynamicValue;
    clientCapabilities?: ClientCapabilities;
  }): Promise<{ result?: DynamicValue; private?: Uint8Array; diagnostics: Diagnostic[] }>;
  /** When `renewAt` passed; this provider never asks for renewal. */
  renewEphemeralResource?(req: { typeName: string; private?: Uint8Array }): Promise<{ private?: Uint8Array; diagnostics: Diagnostic[] }>;
  /** After the run used it (also after an error or an interrupt): releases what open made. */
  closeEphemeralResource?(req: { typeName: string; private?: Uint8Array }): Promise<{ diagnostics: Diagnostic[] }>;
  /**
   * Not an RPC, optional: releases, before the process exits, what the run opened and Terraform did
   * not close (Terraform skips closing ephemeral resources when anything upstream failed), opens
   * still in flight included. The server calls it once: at Shutdown, when Terraform is gone (its
   * process, or after SIGTERM its connection), or when its graceful stop after SIGTERM ran out of
   * time (server.ts). Settles within `withinMs`; logs, never throws, what it could not release.
   */
  releaseOnShutdown?(withinMs: number, log: (message: string) => void): Promise<void>;
}

/** The request of RPC `K` as the provider sees it (one name for every layer, instead of local aliases). */
export type ProviderRequest<K extends keyof ProviderServer> = Parameters<NonNullable<ProviderServer[K]>>[0];

/** The response of RPC `K` as the provider returns it. */
export type ProviderResponse<K extends keyof ProviderServer> = Awaited<ReturnType<NonNullable<ProviderServer[K]>>>;
