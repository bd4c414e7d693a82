// Test helpers: build encoded requests with the protocol codec and decode answers, so each RPC
// handler is exercised exactly as the gRPC layer would call it.
import type { CtyType, CtyValue } from '../../src/protocol/cty';
import { decodeDynamicValue, encodeDynamicValue, encodeJsonValue } from '../../src/protocol/codec';
import type { ClientCapabilities, Diagnostic, DynamicValue } from '../../src/protocol/types';
import type { ObjectSchema } from '../../src/provider/framework';

/** Terraform ≥ 1.11 capabilities. */
export const TF111: ClientCapabilities = { deferralAllowed: false, writeOnlyAttributesAllowed: true };
/** An older Terraform that does not know write-only attributes. */
export const TF110: ClientCapabilities = { deferralAllowed: false, writeOnlyAttributesAllowed: false };

/** A full object value of `schema` (every attribute present, null unless given). */
export function obj(schema: ObjectSchema, values: Record<string, CtyValue> = {}): { [k: string]: CtyValue } {
  const out: { [k: string]: CtyValue } = {};
  for (const name of Object.keys(schema.attributes)) out[name] = name in values ? values[name]! : null;
  for (const name of Object.keys(values)) if (!(name in schema.attributes)) throw new Error(`no attribute ${name}`);
  return out;
}

/** Encodes a value the way Terraform sends it (msgpack). */
export function dv(schema: ObjectSchema | CtyType, value: CtyValue): DynamicValue {
  return encodeDynamicValue(value, typeOf(schema));
}

/** Encodes raw state as Terraform stores it (JSON). */
export function jsonState(schema: ObjectSchema, value: CtyValue): Uint8Array {
  return encodeJsonValue(value, schema.type);
}

/** Decodes a DynamicValue from an answer. */
export function decode(schema: ObjectSchema | CtyType, value: DynamicValue | undefined): CtyValue {
  return decodeDynamicValue(value, typeOf(schema));
}

/** Decodes an answer that must be an object. */
export function decodeObject(schema: ObjectSchema, value: DynamicValue | undefined): { [k: string]: CtyValue } {
  const v = decode(schema, value);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`expected an object, got ${JSON.stringify(v)}`);
  return v as { [k: string]: CtyValue };
}

/** Errors only. */
export function errors(diags: readonly Diagnostic[]): Diagnostic[] {
  return diags.filter((d) => d.severity === 'error');
}

/** The top-level attribute each diagnostic points at ('' when none). */
export function paths(diags: readonly Diagnostic[]): string[] {
  return diags.map((d) =>
    (d.attribute ?? [])
      .map((s) => ('attributeName' in s ? s.attributeName : 'elementKeyInt' in s ? `[${s.elementKeyInt}]` : `[${s.elementKeyString}]`))
      .join('.'),
  );
}

function typeOf(s: ObjectSchema | CtyType): CtyType {
  return 'kind' in s ? s : s.type;
}

/** Empty private data, as Terraform sends when none was stored. */
export const NO_PRIVATE = new Uint8Array();
