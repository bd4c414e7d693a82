// UpgradeResourceState: Terraform sends the stored state as raw JSON on every plan. State written
// by an older schema version first goes through the resource's upgrade steps (one per version it
// has to leave); then, for every version, attributes the schema no longer has are dropped and new
// ones added as null, and the result is decoded with the current type.
import type { CtyType, CtyValue } from '../../protocol/cty';
import { setOwn, shapeOf } from '../../protocol/codec-path';
import { decodeJsonValue } from '../../protocol/codec';
import { CodecError, formatAttributePath } from '../../protocol/codec-error';
import type { Diagnostic, RawState } from '../../protocol/types';
import { errorDiagnostic } from './diagnostics';
import type { ObjectSchema } from './schema';

/** The decoded state, or why it could not be decoded. */
export type UpgradeResult = { readonly value: CtyValue; readonly diagnostics: Diagnostic[] };

/** Stored state as parsed JSON: attribute names to values. */
export type JsonState = { [attribute: string]: unknown };

/**
 * Turns state of one schema version into state of the next (version + 1), as parsed JSON: rename,
 * move or convert attributes. Throwing reports the state as not upgradable.
 */
export type StateUpgrader = (state: JsonState) => JsonState;

/**
 * The steps of a resource type, keyed by the version each one reads: `{ 0: step }` brings
 * version 0 state to version 1. A version without a step needs none beyond what every state gets
 * (dropped attributes removed, new ones null).
 */
export type StateUpgraders = Readonly<Partial<Record<number, StateUpgrader>>>;

/** Decodes raw stored state written by schema `version` with the current schema, after `upgraders`' steps. */
export function upgradeState(schema: ObjectSchema, version: number, raw: RawState, typeName: string, upgraders: StateUpgraders = {}): UpgradeResult {
  if (version > schema.version) {
    return failed(
      'State written by a newer provider',
      `The state of this ${typeName} has schema version ${version}, but this provider knows only up to version ${schema.version}. Use the provider version that wrote it, or newer.`,
    );
  }
  const json = raw.json;
  if (json === undefined || json.length === 0) {
    if (raw.flatmap !== undefined && Object.keys(raw.flatmap).length > 0) {
      return failed('Unsupported state format', `The state of this ${typeName} is in the legacy flatmap format, which this provider cannot read.`);
    }
    return { value: null, diagnostics: [] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8')); // a view: no copy
  } catch (err) {
    return failed('Unreadable state', `The stored state of this ${typeName} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  let stepped = false;
  for (let v = version; v < schema.version; v++) {
    const step = upgraders[v];
    if (step === undefined) continue;
    if (!isJsonState(parsed)) return failed('Unreadable state', `The stored state of this ${typeName} is not a JSON object.`);
    try {
      parsed = step(parsed);
      stepped = true;
    } catch (err) {
      return failed(
        'Unable to upgrade state',
        `The state of this ${typeName} could not be brought from schema version ${v} to ${v + 1}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  if (!stepped) {
    // Most state holds no numbers: then what JSON.parse gave is exact, and decoding it directly
    // saves parsing the text a second time with the number-preserving parser.
    const direct = fromParsedState(parsed, schema.type, true);
    if (direct !== CANNOT) return { value: direct, diagnostics: [] };
  }
  const normalized = normalize(parsed, schema.type);
  try {
    // Re-serialising goes through JS numbers; only do it when something had to change.
    const value = normalized.changed || stepped ? decodeJsonValue(JSON.stringify(normalized.value), schema.type) : decodeJsonValue(json, schema.type);
    return { value, diagnostics: [] };
  } catch (err) {
    // A value of the wrong type in stored state is the state's problem, not the provider's.
    if (!(err instanceof CodecError)) throw err;
    const path = err.path.length > 0 ? formatAttributePath(err.path) : undefined;
    const where = path !== undefined ? ` at ${path}` : '';
    return {
      value: null,
      diagnostics: [
        errorDiagnostic(
          'Invalid value in stored state',
          `The stored state of this ${typeName} (in the Terraform state file) has a value of the wrong type${where}: ${problemOf(err, path)}. ` +
            'The state file was edited or is corrupted. Repair the value in the state, or remove the resource with "terraform state rm ADDRESS" and import it again.',
          err.path.length > 0 ? err.path : undefined,
        ),
      ],
    };
  }
}

/** What a CodecError says is wrong, without the "at PATH: " its message begins with (the detail names the path once, itself). */
function problemOf(err: CodecError, path: string | undefined): string {
  const prefix = path === undefined ? '' : `at ${path}: `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
}

function isJsonState(v: unknown): v is JsonState {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function failed(summary: string, detail: string): UpgradeResult {
  return { value: null, diagnostics: [errorDiagnostic(summary, detail)] };
}

interface Normalized {
  readonly value: unknown;
  readonly changed: boolean;
}

function normalize(v: unknown, t: CtyType): Normalized {
  if (v === null || typeof v !== 'object') return { value: v, changed: false };
  switch (t.kind) {
    case 'object': {
      if (Array.isArray(v)) return { value: v, changed: false };
      const src = v as Record<string, unknown>;
      // Own keys only, and an output without a prototype: a stored key such as "toString" or
      // "__proto__" is data, never a member of Object.prototype.
      const out: Record<string, unknown> = Object.create(null);
      let changed = Object.keys(src).some((k) => !Object.hasOwn(t.attributes, k));
      for (const [name, at] of Object.entries(t.attributes)) {
        if (!Object.hasOwn(src, name)) {
          out[name] = null;
          changed = true;
          continue;
        }
        const n = normalize(src[name], at);
        out[name] = n.value;
        changed ||= n.changed;
      }
      return { value: out, changed };
    }
    case 'list':
    case 'set': {
      if (!Array.isArray(v)) return { value: v, changed: false };
      const items = v.map((el: unknown) => normalize(el, t.element));
      return { value: items.map((n) => n.value), changed: items.some((n) => n.changed) };
    }
    case 'map': {
      if (Array.isArray(v)) return { value: v, changed: false };
      const out: Record<string, unknown> = Object.create(null);
      let changed = false;
      for (const [k, el] of Object.entries(v as Record<string, unknown>)) {
        const n = normalize(el, t.element);
        out[k] = n.value;
        changed ||= n.changed;
      }
      return { value: out, changed };
    }
    default:
      return { value: v, changed: false };
  }
}

/** What fromParsedState answers when only the careful path can decode the state exactly. */
const CANNOT: unique symbol = Symbol('cannot decode from parsed JSON');

/**
 * Decodes stored state from JSON.parse's result as normalize + decodeJsonValue would, when that
 * is certain to give the same value: no JS number anywhere (JSON.parse has rounded it; only the
 * text has the exact decimal), no dynamic value, nothing the careful path would refuse or
 * convert. Otherwise CANNOT, and the careful path decides (with its error messages).
 * `dropUnknown`: attributes the type lacks are dropped, where normalize drops them (objects
 * reached through objects, lists, sets and maps, not tuples).
 */
function fromParsedState(v: unknown, t: CtyType, dropUnknown: boolean): CtyValue | typeof CANNOT {
  if (v === null) return null;
  switch (t.kind) {
    case 'string':
      return typeof v === 'string' ? v : CANNOT;
    case 'bool':
      return typeof v === 'boolean' ? v : CANNOT;
    case 'list':
    case 'set':
    case 'tuple': {
      if (!Array.isArray(v)) return CANNOT;
      if (t.kind === 'tuple' && v.length !== t.elements.length) return CANNOT;
      const out: CtyValue[] = [];
      for (let i = 0; i < v.length; i++) {
        const e = t.kind === 'tuple' ? fromParsedState(v[i], t.elements[i]!, false) : fromParsedState(v[i], t.element, dropUnknown);
        if (e === CANNOT) return CANNOT;
        out.push(e);
      }
      return out;
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return CANNOT;
      const out: { [key: string]: CtyValue } = {};
      for (const [k, el] of Object.entries(v)) {
        const e = fromParsedState(el, t.element, dropUnknown);
        if (e === CANNOT) return CANNOT;
        setOwn(out, k, e);
      }
      return out;
    }
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return CANNOT;
      const src = v as Record<string, unknown>;
      const attrs = t.attributes;
      // An attribute the type lacks: dropped where normalize would drop it; a name that is also
      // on Object.prototype ("toString") is left to the careful path, which treats it as data.
      for (const k in src) if (!Object.hasOwn(attrs, k) && (!dropUnknown || k in attrs)) return CANNOT;
      const out: { [key: string]: CtyValue } = {};
      for (const name of shapeOf(t).names) {
        const e = Object.hasOwn(src, name) ? fromParsedState(src[name], attrs[name]!, dropUnknown) : null;
        if (e === CANNOT) return CANNOT;
        setOwn(out, name, e);
      }
      return out;
    }
    default:
      return CANNOT; // numbers and dynamic values: only the text has them exactly
  }
}
