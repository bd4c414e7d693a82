// The Huffman code of HPACK (RFC 7541, Appendix B), decoding only: we never Huffman-encode what
// we send, but grpc-go (Terraform's side) encodes a header string whenever that makes it shorter.
//
// The code is canonical: sorted by length, then by symbol, each code is the previous one plus one,
// shifted left by the growth in length. So the lengths alone define it, and a decoder needs only
// how many codes each length has and the symbols in canonical order (the method of zlib's "puff").

/** Code length in bits of each symbol 0–255, then of EOS (256), from RFC 7541 Appendix B. */
const CODE_LENGTHS: readonly number[] = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11,
  10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7,
  8, 13, 19, 13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23,
  22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23,
  23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26,
  27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27,
  27, 27, 26, 30,
];

const EOS = 256;
const MAX_LENGTH = 30;

/** How many codes have each length (index 0 unused). */
const COUNTS = new Uint16Array(MAX_LENGTH + 1);
/** The symbols in canonical order: by length, then by value. */
const SYMBOLS = new Uint16Array(CODE_LENGTHS.length);
{
  for (const length of CODE_LENGTHS) COUNTS[length]! += 1;
  const offsets = new Uint16Array(MAX_LENGTH + 2);
  for (let len = 1; len <= MAX_LENGTH; len += 1) offsets[len + 1] = offsets[len]! + COUNTS[len]!;
  CODE_LENGTHS.forEach((length, symbol) => {
    SYMBOLS[offsets[length]!] = symbol;
    offsets[length]! += 1;
  });
}

/** Thrown for a string that is not valid HPACK Huffman code (a COMPRESSION_ERROR for HTTP/2). */
export class HuffmanError extends Error {}

/**
 * Decodes `bytes[start, end)` as HPACK Huffman code into latin1 text (one character per octet).
 * Refuses EOS inside the string and padding that is longer than 7 bits or not all ones.
 */
export function decodeHuffman(bytes: Uint8Array, start: number, end: number): string {
  // The shortest code has 5 bits, so n octets hold at most 8n/5 symbols.
  const out = Buffer.allocUnsafe(Math.ceil(((end - start) * 8) / 5));
  let n = 0;
  // The code being read, its length so far, and puff's running position in the canonical order.
  let code = 0;
  let first = 0;
  let index = 0;
  let len = 0;
  // Whether every bit of the unfinished code is 1 (a valid padding is a prefix of EOS).
  let allOnes = true;
  for (let i = start; i < end; i += 1) {
    const byte = bytes[i]!;
    for (let bit = 7; bit >= 0; bit -= 1) {
      const b = (byte >> bit) & 1;
      code |= b;
      allOnes &&= b === 1;
      len += 1;
      const count = COUNTS[len]!;
      if (code - count < first) {
        const symbol = SYMBOLS[index + (code - first)]!;
        if (symbol === EOS) throw new HuffmanError('EOS inside a Huffman-coded string');
        out[n] = symbol;
        n += 1;
        code = 0;
        first = 0;
        index = 0;
        len = 0;
        allOnes = true;
        continue;
      }
      if (len === MAX_LENGTH) throw new HuffmanError('invalid Huffman code');
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
  }
  if (len > 7 || !allOnes) throw new HuffmanError('invalid padding at the end of a Huffman-coded string');
  return out.toString('latin1', 0, n);
}

/** For tests: the code of each symbol, rebuilt the canonical way, as [code, length] pairs. */
export function huffmanCodes(): Array<[number, number]> {
  const order = CODE_LENGTHS.map((length, symbol) => ({ length, symbol })).sort((a, b) => a.length - b.length || a.symbol - b.symbol);
  const codes: Array<[number, number]> = new Array(CODE_LENGTHS.length);
  let code = 0;
  let previous = order[0]!.length;
  order.forEach(({ length, symbol }, i) => {
    if (i > 0) code = (code + 1) * 2 ** (length - previous);
    previous = length;
    codes[symbol] = [code, length];
  });
  return codes;
}
