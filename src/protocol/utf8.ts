// UTF-8 text for the protobuf and msgpack codecs, whose strings are nearly all short ASCII (type
// names, attribute names and values, IPs, ids). For those a JS loop beats a call into the native
// encoder or decoder; anything else goes to the native one.

const decoder = new TextDecoder('utf-8');

/** Below this many bytes/characters the JS loop is tried first. */
const SHORT = 32;

/** The text of bytes[start, end); invalid sequences become U+FFFD. */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start < SHORT) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = bytes[i]!;
      if (c >= 0x80) return decoder.decode(bytes.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decoder.decode(bytes.subarray(start, end));
}

/**
 * Copies short ASCII `s` to buf[pos…] (the caller has room for s.length bytes) and returns the
 * offset after it; -1 when `s` is long or not ASCII (then what was copied is garbage to overwrite).
 */
export function writeShortAscii(buf: Uint8Array, pos: number, s: string): number {
  const n = s.length;
  if (n >= SHORT) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return -1;
    buf[pos + i] = c;
  }
  return pos + n;
}
