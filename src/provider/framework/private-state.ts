// A resource's private state: bytes Terraform stores beside an object's state, never shows, and
// hands back to the provider on every later call about that object (ReadResource, plans, applies).
// A resource keeps there what its state attributes cannot say, e.g. that a create's outcome is not
// settled yet. The framework reads and writes the bytes as one JSON object; a resource checks the
// shape of what it reads, since the bytes come from a state file like any stored value.

/** A JSON value of a private state. */
export type PrivateValue = string | number | boolean | null | readonly PrivateValue[] | { readonly [key: string]: PrivateValue };

/** A resource's private state: one JSON object. */
export type PrivateState = { readonly [key: string]: PrivateValue };

/**
 * The private state in `bytes`; undefined when there is none (Terraform sends no bytes then) or
 * the bytes are not a JSON object (another provider's format, or damage: read as none).
 */
export function decodePrivate(bytes: Uint8Array | undefined): PrivateState | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as PrivateState) : undefined;
  } catch {
    return undefined;
  }
}

/** The bytes of `state`; none for undefined (no private state). */
export function encodePrivate(state: PrivateState | undefined): Uint8Array {
  return state === undefined ? new Uint8Array() : new Uint8Array(Buffer.from(JSON.stringify(state), 'utf8'));
}
