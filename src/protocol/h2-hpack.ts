// HPACK (RFC 7541) as our HTTP/2 server needs it: a full decoder for what the client sends (the
// static and dynamic tables, integers, literals, Huffman strings, table size updates), and an
// encoder that only writes literals, never indexed ones, so that its own table stays empty and the
// client's decoder has nothing to keep in step with.
import { decodeHuffman, HuffmanError } from './h2-huffman';

/** A header field as decoded: name and value in latin1, one character per octet. */
export type HeaderField = readonly [name: string, value: string];

/** A header block that cannot be decoded: a connection error (COMPRESSION_ERROR) in HTTP/2. */
export class HpackError extends Error {}

/** RFC 7541 Appendix A, index 1 to 61. */
const STATIC_TABLE: readonly HeaderField[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** The per-entry overhead RFC 7541 §4.1 adds to a dynamic table entry's size. */
const ENTRY_OVERHEAD = 32;

/** Decodes the header blocks of one connection, in order (they share one dynamic table). */
export class HpackDecoder {
  /** Newest entry last. */
  private readonly entries: HeaderField[] = [];
  private size = 0;
  private maxSize: number;

  /**
   * @param settingsMaxSize the table size we announced (SETTINGS_HEADER_TABLE_SIZE); the client
   *   may lower the table below it with a size update, never raise it above.
   * @param maxListSize the most octets (names + values + 32 each) one block may decode to.
   */
  constructor(
    private readonly settingsMaxSize: number,
    private readonly maxListSize: number,
  ) {
    this.maxSize = settingsMaxSize;
  }

  /** Decodes one complete header block. Throws HpackError; the connection is then unusable. */
  decode(block: Uint8Array): HeaderField[] {
    const fields: HeaderField[] = [];
    const reader = { pos: 0 };
    let listSize = 0;
    let fieldSeen = false;
    while (reader.pos < block.length) {
      const byte = block[reader.pos]!;
      let field: HeaderField;
      if (byte & 0x80) {
        field = this.lookup(readInteger(block, reader, 7));
      } else if (byte & 0x40) {
        field = this.readLiteral(block, reader, 6);
        this.add(field);
      } else if (byte & 0x20) {
        // A size update is only allowed before the block's first field.
        if (fieldSeen) throw new HpackError('dynamic table size update after a header field');
        const size = readInteger(block, reader, 5);
        if (size > this.settingsMaxSize) throw new HpackError(`dynamic table size ${size} above the ${this.settingsMaxSize} announced`);
        this.maxSize = size;
        this.evict(0);
        continue;
      } else {
        // Without indexing (0000) and never indexed (0001) decode alike; neither enters the table.
        field = this.readLiteral(block, reader, 4);
      }
      fieldSeen = true;
      listSize += field[0].length + field[1].length + ENTRY_OVERHEAD;
      if (listSize > this.maxListSize) throw new HpackError(`header list larger than ${this.maxListSize} octets`);
      fields.push(field);
    }
    return fields;
  }

  private lookup(index: number): HeaderField {
    if (index === 0) throw new HpackError('header field index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const entry = this.entries[this.entries.length - 1 - (index - STATIC_TABLE.length - 1)];
    if (entry === undefined) throw new HpackError(`header field index ${index} beyond the dynamic table`);
    return entry;
  }

  private readLiteral(block: Uint8Array, reader: { pos: number }, prefixBits: number): HeaderField {
    const nameIndex = readInteger(block, reader, prefixBits);
    const name = nameIndex === 0 ? readString(block, reader) : this.lookup(nameIndex)[0];
    return [name, readString(block, reader)];
  }

  private add(field: HeaderField): void {
    const entrySize = field[0].length + field[1].length + ENTRY_OVERHEAD;
    // An entry larger than the whole table empties it and is not kept (RFC 7541 §4.4).
    this.evict(Math.min(entrySize, this.maxSize + 1));
    if (entrySize > this.maxSize) return;
    this.entries.push(field);
    this.size += entrySize;
  }

  /** Drops the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    let drop = 0;
    while (this.size + room > this.maxSize && drop < this.entries.length) {
      const [name, value] = this.entries[drop]!;
      this.size -= name.length + value.length + ENTRY_OVERHEAD;
      drop += 1;
    }
    if (drop > 0) this.entries.splice(0, drop);
  }
}

/** Reads an HPACK integer with an N-bit prefix (RFC 7541 §5.1), at most 2^31 − 1. */
function readInteger(block: Uint8Array, reader: { pos: number }, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  let value = block[reader.pos]! & max;
  reader.pos += 1;
  if (value < max) return value;
  let shift = 0;
  for (;;) {
    if (reader.pos >= block.length) throw new HpackError('truncated integer');
    const byte = block[reader.pos]!;
    reader.pos += 1;
    value += (byte & 0x7f) * 2 ** shift;
    if (value > 0x7fffffff) throw new HpackError('integer too large');
    if ((byte & 0x80) === 0) return value;
    shift += 7;
  }
}

function readString(block: Uint8Array, reader: { pos: number }): string {
  if (reader.pos >= block.length) throw new HpackError('truncated string');
  const huffman = (block[reader.pos]! & 0x80) !== 0;
  const length = readInteger(block, reader, 7);
  const start = reader.pos;
  const end = start + length;
  if (end > block.length) throw new HpackError('truncated string');
  reader.pos = end;
  if (!huffman) return Buffer.from(block.buffer, block.byteOffset + start, length).toString('latin1');
  try {
    return decodeHuffman(block, start, end);
  } catch (err) {
    throw err instanceof HuffmanError ? new HpackError(err.message) : err;
  }
}

/** Appends an HPACK integer with an N-bit prefix; `flags` are the bits above the prefix. */
function writeInteger(out: number[], value: number, prefixBits: number, flags: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(flags | value);
    return;
  }
  out.push(flags | max);
  let rest = value - max;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

function writeString(out: number[], text: string): void {
  const bytes = Buffer.from(text, 'latin1');
  writeInteger(out, bytes.length, 7, 0);
  for (const b of bytes) out.push(b);
}

/**
 * Encodes fields as literals without indexing (RFC 7541 §6.2.2), naming a static-table entry where
 * one has the name, and `:status 200` by its static index. With `emptyTable`, the block first sets
 * our encoder's dynamic table to size 0 (sent once per connection), which keeps any later change of
 * the client's SETTINGS_HEADER_TABLE_SIZE from asking anything of us.
 */
export function encodeHeaders(fields: readonly HeaderField[], emptyTable = false): Buffer {
  // A frozen list (the answer's fixed headers and trailers) is encoded once: every call sends it.
  const frozen = !emptyTable && Object.isFrozen(fields);
  if (frozen) {
    const known = ENCODED.get(fields);
    if (known !== undefined) return known;
  }
  const out: number[] = [];
  if (emptyTable) writeInteger(out, 0, 5, 0x20);
  for (const [name, value] of fields) {
    if (name === ':status' && value === '200') {
      out.push(0x88);
      continue;
    }
    const nameIndex = STATIC_NAME_INDEX.get(name) ?? 0;
    writeInteger(out, nameIndex, 4, 0x00);
    if (nameIndex === 0) writeString(out, name);
    writeString(out, value);
  }
  const block = Buffer.from(out);
  if (frozen) ENCODED.set(fields, block);
  return block;
}

const ENCODED = new WeakMap<readonly HeaderField[], Buffer>();

/** The first static index of each name. */
const STATIC_NAME_INDEX = new Map<string, number>();
STATIC_TABLE.forEach(([name], i) => {
  if (!STATIC_NAME_INDEX.has(name)) STATIC_NAME_INDEX.set(name, i + 1);
});
