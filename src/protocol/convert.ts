// Pure converters between the generated wire messages (gen/tfplugin6) and the ProviderServer's
// types: one function per message, no I/O, no provider calls. Requests come in "fromWire",
// responses go out "toWire".
import { typeToJson } from './cty';
import type * as pb from './gen/tfplugin6';
import type {
  AttributePath,
  ClientCapabilities,
  Diagnostic,
  DynamicValue,
  RawState,
  Schema,
  SchemaAttribute,
  SchemaBlock,
  SchemaNestedBlock,
  SchemaObject,
  ServerCapabilities,
  StringKind,
} from './types';

import type { ProviderRequest, ProviderResponse } from './types';

export type { ProviderRequest, ProviderResponse };

// Enum numbers of tfplugin6 (see proto/tfplugin6.proto).
const SEVERITY = { error: 1, warning: 2 } as const;
const STRING_KIND: Record<StringKind, number> = { plain: 0, markdown: 1 };
const OBJECT_NESTING: Record<SchemaObject['nesting'], number> = { single: 1, list: 2, set: 3, map: 4 };
const BLOCK_NESTING: Record<SchemaNestedBlock['nesting'], number> = { single: 1, list: 2, set: 3, map: 4, group: 5 };

// ---------------------------------------------------------------- shared pieces, wire -> ours

/** A DynamicValue as the provider sees it; an absent one becomes `{}` (decodes as null). */
export function dynamicValueFromWire(m: pb.DynamicValue | undefined): DynamicValue {
  const out: DynamicValue = {};
  if (m?.msgpack && m.msgpack.length > 0) out.msgpack = m.msgpack;
  if (m?.json && m.json.length > 0) out.json = m.json;
  return out;
}

/** An optional DynamicValue (provider_meta): undefined when Terraform sent none. */
export function optionalDynamicValueFromWire(m: pb.DynamicValue | undefined): DynamicValue | undefined {
  return m ? dynamicValueFromWire(m) : undefined;
}

/** Client capabilities, or undefined when Terraform sent none. */
export function clientCapabilitiesFromWire(m: pb.ClientCapabilities | undefined): ClientCapabilities | undefined {
  return m ? { deferralAllowed: m.deferralAllowed, writeOnlyAttributesAllowed: m.writeOnlyAttributesAllowed } : undefined;
}

/** Raw state: JSON and/or legacy flatmap, each only when present. */
export function rawStateFromWire(m: pb.RawState | undefined): RawState {
  const out: RawState = {};
  if (m?.json && m.json.length > 0) out.json = m.json;
  if (m && Object.keys(m.flatmap).length > 0) out.flatmap = { ...m.flatmap };
  return out;
}

/** An attribute path from the wire (steps with no selector set are dropped). */
export function attributePathFromWire(m: pb.AttributePath): AttributePath {
  const out: AttributePath = [];
  for (const s of m.steps) {
    if (s.attributeName !== undefined) out.push({ attributeName: s.attributeName });
    else if (s.elementKeyString !== undefined) out.push({ elementKeyString: s.elementKeyString });
    else if (s.elementKeyInt !== undefined) out.push({ elementKeyInt: s.elementKeyInt });
  }
  return out;
}

/** A diagnostic from the wire (used by tests and tools that play Terraform's side). */
export function diagnosticFromWire(m: pb.Diagnostic): Diagnostic {
  const d: Diagnostic = { severity: m.severity === SEVERITY.warning ? 'warning' : 'error', summary: m.summary };
  if (m.detail) d.detail = m.detail;
  if (m.attribute && m.attribute.steps.length > 0) d.attribute = attributePathFromWire(m.attribute);
  return d;
}

// ---------------------------------------------------------------- shared pieces, ours -> wire

/** A DynamicValue for the wire; undefined stays absent. */
export function dynamicValueToWire(v: DynamicValue | undefined): pb.DynamicValueInput | undefined {
  if (!v) return undefined;
  return { msgpack: v.msgpack, json: v.json };
}

/** An attribute path for the wire. */
export function attributePathToWire(p: AttributePath): pb.AttributePathInput {
  return {
    steps: p.map((s): pb.AttributePath_StepInput => {
      if ('attributeName' in s) return { attributeName: s.attributeName };
      if ('elementKeyString' in s) return { elementKeyString: s.elementKeyString };
      return { elementKeyInt: s.elementKeyInt };
    }),
  };
}

/** A diagnostic for the wire. */
export function diagnosticToWire(d: Diagnostic): pb.DiagnosticInput {
  return {
    severity: d.severity === 'warning' ? SEVERITY.warning : SEVERITY.error,
    summary: d.summary,
    detail: d.detail,
    attribute: d.attribute && d.attribute.length > 0 ? attributePathToWire(d.attribute) : undefined,
  };
}

/** Diagnostics for the wire (tolerates a provider that returned none). */
export function diagnosticsToWire(ds: readonly Diagnostic[] | undefined): pb.DiagnosticInput[] {
  return (ds ?? []).map(diagnosticToWire);
}

function attributeToWire(a: SchemaAttribute): pb.Schema_AttributeInput {
  if (!a.type === !a.nestedType) {
    throw new TypeError(`schema attribute "${a.name}" needs exactly one of type and nestedType`);
  }
  return {
    name: a.name,
    type: a.type ? Buffer.from(typeToJson(a.type)) : undefined,
    nestedType: a.nestedType ? objectToWire(a.nestedType) : undefined,
    description: a.description,
    descriptionKind: STRING_KIND[a.descriptionKind ?? 'plain'],
    required: a.required,
    optional: a.optional,
    computed: a.computed,
    sensitive: a.sensitive,
    deprecated: a.deprecated,
    writeOnly: a.writeOnly,
  };
}

function objectToWire(o: SchemaObject): pb.Schema_ObjectInput {
  return { attributes: o.attributes.map(attributeToWire), nesting: OBJECT_NESTING[o.nesting] };
}

function blockToWire(b: SchemaBlock): pb.Schema_BlockInput {
  return {
    version: b.version,
    attributes: b.attributes.map(attributeToWire),
    blockTypes: (b.blockTypes ?? []).map(
      (nb): pb.Schema_NestedBlockInput => ({
        typeName: nb.typeName,
        block: blockToWire(nb.block),
        nesting: BLOCK_NESTING[nb.nesting],
        minItems: nb.minItems,
        maxItems: nb.maxItems,
      }),
    ),
    description: b.description,
    descriptionKind: STRING_KIND[b.descriptionKind ?? 'plain'],
    deprecated: b.deprecated,
  };
}

/** A schema for the wire (cty types become their JSON text). */
export function schemaToWire(s: Schema): pb.SchemaInput {
  return { version: s.version, block: blockToWire(s.block) };
}

function schemasToWire(m: Readonly<Record<string, Schema>>): Record<string, pb.SchemaInput> {
  const out: Record<string, pb.SchemaInput> = {};
  for (const [k, v] of Object.entries(m)) out[k] = schemaToWire(v);
  return out;
}

function serverCapabilitiesToWire(c: ServerCapabilities | undefined): pb.ServerCapabilitiesInput | undefined {
  return c ? { planDestroy: c.planDestroy, getProviderSchemaOptional: c.getProviderSchemaOptional, moveResourceState: c.moveResourceState } : undefined;
}

// ---------------------------------------------------------------- per RPC: requests

/** ValidateProviderConfig request. */
export function validateProviderConfigRequestFromWire(m: pb.ValidateProviderConfig_Request): ProviderRequest<'validateProviderConfig'> {
  return { config: dynamicValueFromWire(m.config) };
}

/** ValidateResourceConfig request. */
export function validateResourceConfigRequestFromWire(m: pb.ValidateResourceConfig_Request): ProviderRequest<'validateResourceConfig'> {
  return { typeName: m.typeName, config: dynamicValueFromWire(m.config), clientCapabilities: clientCapabilitiesFromWire(m.clientCapabilities) };
}

/** ValidateDataResourceConfig request. */
export function validateDataResourceConfigRequestFromWire(m: pb.ValidateDataResourceConfig_Request): ProviderRequest<'validateDataResourceConfig'> {
  return { typeName: m.typeName, config: dynamicValueFromWire(m.config) };
}

/** UpgradeResourceState request. */
export function upgradeResourceStateRequestFromWire(m: pb.UpgradeResourceState_Request): ProviderRequest<'upgradeResourceState'> {
  return { typeName: m.typeName, version: m.version, rawState: rawStateFromWire(m.rawState) };
}

/** ConfigureProvider request. */
export function configureProviderRequestFromWire(m: pb.ConfigureProvider_Request): ProviderRequest<'configureProvider'> {
  return {
    terraformVersion: m.terraformVersion,
    config: dynamicValueFromWire(m.config),
    clientCapabilities: clientCapabilitiesFromWire(m.clientCapabilities),
  };
}

/** ReadResource request. */
export function readResourceRequestFromWire(m: pb.ReadResource_Request): ProviderRequest<'readResource'> {
  return {
    typeName: m.typeName,
    currentState: dynamicValueFromWire(m.currentState),
    private: m.private,
    providerMeta: optionalDynamicValueFromWire(m.providerMeta),
    clientCapabilities: clientCapabilitiesFromWire(m.clientCapabilities),
  };
}

/** PlanResourceChange request. */
export function planResourceChangeRequestFromWire(m: pb.PlanResourceChange_Request): ProviderRequest<'planResourceChange'> {
  return {
    typeName: m.typeName,
    priorState: dynamicValueFromWire(m.priorState),
    proposedNewState: dynamicValueFromWire(m.proposedNewState),
    config: dynamicValueFromWire(m.config),
    priorPrivate: m.priorPrivate,
    providerMeta: optionalDynamicValueFromWire(m.providerMeta),
    clientCapabilities: clientCapabilitiesFromWire(m.clientCapabilities),
  };
}

/** ApplyResourceChange request. */
export function applyResourceChangeRequestFromWire(m: pb.ApplyResourceChange_Request): ProviderRequest<'applyResourceChange'> {
  return {
    typeName: m.typeName,
    priorState: dynamicValueFromWire(m.priorState),
    plannedState: dynamicValueFromWire(m.plannedState),
    config: dynamicValueFromWire(m.config),
    plannedPrivate: m.plannedPrivate,
    providerMeta: optionalDynamicValueFromWire(m.providerMeta),
  };
}

/** ImportResourceState request. */
export function importResourceStateRequestFromWire(m: pb.ImportResourceState_Request): ProviderRequest<'importResourceState'> {
  return { typeName: m.typeName, id: m.id, clientCapabilities: clientCapabilitiesFromWire(m.clientCapabilities) };
}

/** ReadDataSource request. */
export function readDataSourceRequestFromWire(m: pb.ReadDataSource_Request): ProviderRequest<'readDataSource'> {
  return {
    typeName: m.typeName,
    config: dynamicValueFromWire(m.config),
    providerMeta: optionalDynamicValueFromWire(m.providerMeta),
    clientCapabilities: clientCapabilitiesFromWire(m.clientCapabilities),
  };
}

// ---------------------------------------------------------------- per RPC: responses

/** GetProviderSchema response. */
export function getProviderSchemaResponseToWire(r: ProviderResponse<'getProviderSchema'>): pb.GetProviderSchema_ResponseInput {
  return {
    provider: schemaToWire(r.provider),
    providerMeta: r.providerMeta ? schemaToWire(r.providerMeta) : undefined,
    resourceSchemas: schemasToWire(r.resourceSchemas),
    dataSourceSchemas: schemasToWire(r.dataSourceSchemas),
    ephemeralResourceSchemas: schemasToWire(r.ephemeralResourceSchemas ?? {}),
    serverCapabilities: serverCapabilitiesToWire(r.serverCapabilities),
    diagnostics: diagnosticsToWire(r.diagnostics),
  };
}

/** GetMetadata response, derived from the provider's schema (type names and capabilities only). */
export function getMetadataResponseToWire(r: ProviderResponse<'getProviderSchema'>): pb.GetMetadata_ResponseInput {
  return {
    serverCapabilities: serverCapabilitiesToWire(r.serverCapabilities),
    diagnostics: diagnosticsToWire(r.diagnostics),
    resources: Object.keys(r.resourceSchemas).map((typeName) => ({ typeName })),
    dataSources: Object.keys(r.dataSourceSchemas).map((typeName) => ({ typeName })),
    ephemeralResources: Object.keys(r.ephemeralResourceSchemas ?? {}).map((typeName) => ({ typeName })),
  };
}

/** OpenEphemeralResource request. */
export function openEphemeralResourceRequestFromWire(m: pb.OpenEphemeralResource_Request): {
  typeName: string;
  config: DynamicValue;
  clientCapabilities?: ClientCapabilities;
} {
  return { typeName: m.typeName, config: dynamicValueFromWire(m.config), clientCapabilities: clientCapabilitiesFromWire(m.clientCapabilities) };
}

/** OpenEphemeralResource response (no renewal: the result is good for the whole run). */
export function openEphemeralResourceResponseToWire(r: {
  result?: DynamicValue;
  private?: Uint8Array;
  diagnostics: Diagnostic[];
}): pb.OpenEphemeralResource_ResponseInput {
  return { result: dynamicValueToWire(r.result), private: r.private, diagnostics: diagnosticsToWire(r.diagnostics) };
}

/** Response of the three Validate*Config RPCs and ConfigureProvider: diagnostics only. */
export function diagnosticsResponseToWire(r: { diagnostics: Diagnostic[] }): { diagnostics: pb.DiagnosticInput[] } {
  return { diagnostics: diagnosticsToWire(r.diagnostics) };
}

/** UpgradeResourceState response. */
export function upgradeResourceStateResponseToWire(r: ProviderResponse<'upgradeResourceState'>): pb.UpgradeResourceState_ResponseInput {
  return { upgradedState: dynamicValueToWire(r.upgradedState), diagnostics: diagnosticsToWire(r.diagnostics) };
}

/** ReadResource response. */
export function readResourceResponseToWire(r: ProviderResponse<'readResource'>): pb.ReadResource_ResponseInput {
  return { newState: dynamicValueToWire(r.newState), private: r.private, diagnostics: diagnosticsToWire(r.diagnostics) };
}

/** PlanResourceChange response. */
export function planResourceChangeResponseToWire(r: ProviderResponse<'planResourceChange'>): pb.PlanResourceChange_ResponseInput {
  return {
    plannedState: dynamicValueToWire(r.plannedState),
    requiresReplace: (r.requiresReplace ?? []).map(attributePathToWire),
    plannedPrivate: r.plannedPrivate,
    diagnostics: diagnosticsToWire(r.diagnostics),
  };
}

/** ApplyResourceChange response. */
export function applyResourceChangeResponseToWire(r: ProviderResponse<'applyResourceChange'>): pb.ApplyResourceChange_ResponseInput {
  return { newState: dynamicValueToWire(r.newState), private: r.private, diagnostics: diagnosticsToWire(r.diagnostics) };
}

/** ImportResourceState response. */
export function importResourceStateResponseToWire(r: ProviderResponse<'importResourceState'>): pb.ImportResourceState_ResponseInput {
  return {
    importedResources: (r.importedResources ?? []).map((i) => ({
      typeName: i.typeName,
      state: dynamicValueToWire(i.state),
      private: i.private,
    })),
    diagnostics: diagnosticsToWire(r.diagnostics),
  };
}

/** ReadDataSource response. */
export function readDataSourceResponseToWire(r: ProviderResponse<'readDataSource'>): pb.ReadDataSource_ResponseInput {
  return { state: dynamicValueToWire(r.state), diagnostics: diagnosticsToWire(r.diagnostics) };
}

/** StopProvider response (the protocol's field is the upper-case `Error`). */
export function stopProviderResponseToWire(r: ProviderResponse<'stopProvider'>): pb.StopProvider_ResponseInput {
  return { Error: r.error ?? '' };
}
