// The value codec's public face: cty values to and from the encodings Terraform uses, always with
// the type in hand. Errors are CodecError carrying the attribute path where decoding failed.
import { decodeJsonValue } from './codec-json';
import { decodeMsgpack, encodeMsgpack } from './codec-msgpack';
import type { CtyType, CtyValue } from './cty';
import type { DynamicValue } from './types';

export { CodecError, formatAttributePath } from './codec-error';
export { decodeJsonValue, encodeJsonValue, type JsonDecodeOptions } from './codec-json';
export { decodeMsgpack, encodeMsgpack } from './codec-msgpack';

/** Decodes a DynamicValue (msgpack preferred, else JSON); an absent or empty one is null. */
export function decodeDynamicValue(dv: DynamicValue | undefined, t: CtyType): CtyValue {
  if (dv?.msgpack && dv.msgpack.length > 0) return decodeMsgpack(dv.msgpack, t);
  if (dv?.json && dv.json.length > 0) return decodeJsonValue(dv.json, t);
  return null;
}

/** Encodes a value as a msgpack DynamicValue, the form Terraform expects in responses. */
export function encodeDynamicValue(v: CtyValue, t: CtyType): DynamicValue {
  return { msgpack: encodeMsgpack(v, t) };
}
