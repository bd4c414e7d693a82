// A JSON parser that keeps numbers as their text: JSON.parse would round 0.1-like and
// beyond-2^53 values in Terraform state before the codec could decide how to hold them.

/** A JSON number as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** A parsed JSON value; objects are Maps so that any key (even `__proto__`) is just a key. */
export type JsonNode = null | boolean | string | JsonNumber | JsonNode[] | Map<string, JsonNode>;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WS = /[ \t\n\r]*/y;

/** Parses JSON text; throws SyntaxError with the offset on malformed input. */
export function parseJsonText(text: string): JsonNode {
  let pos = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at offset ${pos}: ${what}`);
  };
  const skip = (): void => {
    WS.lastIndex = pos;
    WS.exec(text);
    pos = WS.lastIndex;
  };
  const readString = (): string => {
    STRING.lastIndex = pos;
    const m = STRING.exec(text);
    if (!m) return fail('malformed string');
    pos = STRING.lastIndex;
    return JSON.parse(m[0]) as string;
  };
  const value = (depth: number): JsonNode => {
    if (depth > 512) fail('nesting too deep');
    skip();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const out = new Map<string, JsonNode>();
      skip();
      if (text[pos] === '}') {
        pos++;
        return out;
      }
      for (;;) {
        skip();
        if (text[pos] !== '"') fail('expected an object key');
        const key = readString();
        skip();
        if (text[pos++] !== ':') fail('expected ":"');
        out.set(key, value(depth + 1));
        skip();
        const sep = text[pos++];
        if (sep === '}') return out;
        if (sep !== ',') fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      pos++;
      const out: JsonNode[] = [];
      skip();
      if (text[pos] === ']') {
        pos++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        skip();
        const sep = text[pos++];
        if (sep === ']') return out;
        if (sep !== ',') fail('expected "," or "]"');
      }
    }
    if (c === '"') return readString();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) return fail('unexpected character');
    pos = NUMBER.lastIndex;
    return new JsonNumber(m[0]);
  };
  const result = value(0);
  skip();
  if (pos !== text.length) fail('trailing characters');
  return result;
}
