// Reads the reviewed roster file (YAML or JSON, by extension) and checks it before any construct
// is built, so a bad file fails with every problem listed and where it is.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AccountRoster, RosterDefinition } from 'cdktf-provider-proxyaccount';

/** A roster file, parsed and checked. */
export interface RosterFile {
  /** The file as given, for messages. */
  readonly name: string;
  readonly roster: RosterDefinition;
}

/** Parses `file` as YAML (`.yaml`, `.yml`) or JSON (anything else) and validates it as a roster. */
export function readRosterFile(file: string): RosterFile {
  const text = fs.readFileSync(file, 'utf8');
  const name = path.relative(process.cwd(), file) || file;
  const yaml = /\.ya?ml$/i.test(file);
  let data: unknown;
  try {
    // The yaml package refuses a key written twice in one mapping; JSON.parse keeps the last.
    data = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new Error(`${name} is not valid ${yaml ? 'YAML' : 'JSON'}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const twice = yaml ? undefined : keyWrittenTwice(text);
  if (twice !== undefined) {
    throw new Error(`${name} is not a valid roster: the key ${JSON.stringify(twice.key)} is written twice in ${twice.path || 'the top-level object'}, ` +
      'and only the last would count: keep one');
  }
  // Data read from a file can hold no reference: validate() refuses any value spelling a token
  // marker (`${TfToken[...]}`), which the synth would replace by another resource's attribute.
  // allowReferences is for references put in by code, never for a file.
  const violations = AccountRoster.validate(data);
  if (violations.length > 0) {
    throw new Error(`${name} is not a valid roster (${violations.length} problem${violations.length === 1 ? '' : 's'}):\n` +
      violations.map((v) => `  - ${v}`).join('\n'));
  }
  // validate() has just checked the shape, so the data is a RosterDefinition.
  return { name, roster: data as RosterDefinition };
}

/** One object or array being read: its path in the roster's notation, and where it is. */
interface Level {
  readonly path: string;
  /** The keys seen so far, for an object; undefined for an array. */
  readonly keys?: Set<string>;
  /** The last key seen (object), or the index of the current element (array). */
  current: string | number;
}

/**
 * The first key that occurs twice in one object of `text`, which JSON.parse has accepted (so a
 * string ends at its first unescaped quote), with the object's path (`teams[0].members[1]`).
 * JSON.parse keeps the last value silently, so a reviewed file could say two things at once.
 */
function keyWrittenTwice(text: string): { key: string; path: string } | undefined {
  const stack: Level[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      let next = end + 1;
      while (/\s/.test(text[next] ?? '')) next += 1;
      if (top?.keys !== undefined && text[next] === ':') {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return { key, path: top.path };
        top.keys.add(key);
        top.current = key;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      const path = top === undefined ? '' : typeof top.current === 'number' ? `${top.path}[${top.current}]` : top.path ? `${top.path}.${top.current}` : top.current;
      stack.push(c === '{' ? { path, keys: new Set(), current: '' } : { path, current: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',' && top !== undefined && typeof top.current === 'number') {
      top.current += 1;
    }
  }
  return undefined;
}
