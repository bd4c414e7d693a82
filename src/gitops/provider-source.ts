// The root module's provider blocks as written, for drift's account rules: which settings of a
// block are exactly one variable (`username = var.team`). A plan's JSON keeps what an expression
// references, not the expression, so `"${var.team}2"` and `var.team` look alike there; only the
// source tells them apart. The reader is deliberately plain: what it cannot follow line by line
// leaves the blocks concerned not known, and drift then does not resolve them.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isRecord } from './plan-json';

/** The settings of a provider block that are exactly one variable: `username = var.team` → `team`. */
export interface BareVariables {
  readonly username?: string;
  readonly base_url?: string;
}

/**
 * What the root module's source says of its provider blocks, by configuration key (`proxyaccount`,
 * `proxyaccount.other`): which settings are exactly one variable. Null for a key whose block could
 * not be read plainly, or that two blocks claim; a key it lacks is not known either.
 */
export type ProviderSource = ReadonlyMap<string, BareVariables | null>;

/** One provider block of a file: its local name, its alias (null: not readable) and its settings (null: not readable). */
interface SourceBlock {
  readonly name: string;
  readonly alias: string | undefined | null;
  readonly settings: BareVariables | null;
}

const IDENT = '[A-Za-z_][A-Za-z0-9_-]*';
/** Terraform merges override files into the other files' blocks: a block's settings are then in two places. */
const OVERRIDE_FILE = /(^|_)override\.tf(\.json)?$/;

/**
 * Reads the provider blocks of the root module in `dir` (its `*.tf` and `*.tf.json` files), for
 * the settings that are exactly one variable. Anything this reader does not follow plainly (an
 * override file, a heredoc or comment it cannot end, a block on one line, a setting over several
 * lines) leaves the blocks concerned, or all of them, not known: they are then not resolved.
 */
export function readProviderSource(dir: string): ProviderSource {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.tf') || f.endsWith('.tf.json'))
      .sort();
  } catch {
    return new Map();
  }
  if (files.some((f) => OVERRIDE_FILE.test(f))) return new Map();
  const blocks: SourceBlock[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(path.join(dir, f), 'utf8');
    } catch {
      return new Map();
    }
    const found = f.endsWith('.json') ? jsonProviderBlocks(text) : hclProviderBlocks(text);
    if (found === undefined) return new Map();
    blocks.push(...found);
  }
  return byKey(blocks);
}

/** The blocks by configuration key; a key two blocks claim, or a name one of whose blocks has an alias not read, is not known. */
function byKey(blocks: readonly SourceBlock[]): Map<string, BareVariables | null> {
  const out = new Map<string, BareVariables | null>();
  const unsure = new Set(blocks.filter((b) => b.alias === null).map((b) => b.name));
  for (const b of blocks) {
    if (b.alias === null) continue;
    const key = b.alias === undefined ? b.name : `${b.name}.${b.alias}`;
    out.set(key, out.has(key) || unsure.has(b.name) ? null : b.settings);
  }
  return out;
}

/** One line of a `.tf` file: the nesting (braces, brackets, parentheses) it starts and ends at, and whether it starts and ends outside comments, strings and heredocs. */
interface HclLine {
  readonly text: string;
  readonly depth: number;
  readonly plain: boolean;
  readonly endDepth: number;
  readonly endsPlain: boolean;
}

/**
 * The lines of a `.tf` file with their nesting, comments, strings and heredocs skipped, so that
 * a `provider` line in a comment or a heredoc is not taken for a block. Undefined for text this
 * reader does not follow: an interpolation holding a string, a string or comment left open, a
 * nesting that does not close.
 */
function hclLines(text: string): HclLine[] | undefined {
  const out: HclLine[] = [];
  let depth = 0;
  let comment = false;
  let heredoc: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const start = { text: line, depth, plain: !comment && heredoc === undefined };
    if (heredoc !== undefined) {
      if (line.trim() === heredoc) heredoc = undefined;
      out.push({ ...start, endDepth: depth, endsPlain: heredoc === undefined });
      continue;
    }
    let i = 0;
    while (i < line.length) {
      if (comment) {
        const end = line.indexOf('*/', i);
        if (end < 0) break;
        comment = false;
        i = end + 2;
        continue;
      }
      const rest = line.slice(i);
      if (rest.startsWith('#') || rest.startsWith('//')) break;
      if (rest.startsWith('/*')) {
        comment = true;
        i += 2;
        continue;
      }
      if (rest.startsWith('<<')) {
        const h = new RegExp(`^<<-?(${IDENT})\\s*$`).exec(rest);
        if (h === null) return undefined;
        heredoc = h[1];
        break;
      }
      if (rest.startsWith('"')) {
        const end = stringEnd(line, i);
        if (end === undefined) return undefined;
        i = end;
        continue;
      }
      if ('{[('.includes(line[i]!)) depth++;
      else if ('}])'.includes(line[i]!) && --depth < 0) return undefined;
      i++;
    }
    out.push({ ...start, endDepth: depth, endsPlain: !comment && heredoc === undefined });
  }
  return comment || heredoc !== undefined || depth !== 0 ? undefined : out;
}

/** Where a quoted string that opens at `from` ends; undefined when it does not end on its line, or holds an interpolation with a string in it. */
function stringEnd(line: string, from: number): number | undefined {
  let i = from + 1;
  while (i < line.length) {
    if (line[i] === '\\') i += 2;
    else if (line[i] === '"') return i + 1;
    else if (line.startsWith('$${', i) || line.startsWith('%%{', i)) i += 3;
    else if (line.startsWith('${', i) || line.startsWith('%{', i)) {
      const end = line.slice(i + 2).search(/["}]/);
      if (end < 0 || line[i + 2 + end] === '"' || line.slice(i + 2, i + 2 + end).includes('{')) return undefined;
      i += end + 3;
    } else i++;
  }
  return undefined;
}

const COMMENT = '\\s*(?:(?:#|//).*)?$';

/**
 * The provider blocks of a `.tf` file; undefined when a `provider` line at the top is not one this
 * reader follows (its label unquoted, say). An empty block on one line (`provider "proxyaccount" {}`)
 * sets nothing; any other block on one line is not read.
 */
function hclProviderBlocks(text: string): SourceBlock[] | undefined {
  const lines = hclLines(text);
  if (lines === undefined) return undefined;
  const out: SourceBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.plain || line.depth !== 0 || !/^\s*provider\b/.test(line.text)) continue;
    const open = new RegExp(`^\\s*provider\\s+"(${IDENT})"\\s*\\{(.*)$`).exec(line.text);
    if (open === null) return undefined;
    const name = open[1]!;
    if (line.endDepth === 0) {
      const empty = line.endsPlain && new RegExp(`^\\s*\\}${COMMENT}`).test(open[2]!);
      out.push(empty ? { name, alias: undefined, settings: {} } : { name, alias: null, settings: null });
      continue;
    }
    const end = lines.findIndex((l, j) => j > i && l.endDepth === 0);
    if (end < 0) return undefined;
    const opens = new RegExp(`^${COMMENT}`).test(open[2]!) && line.endsPlain && line.endDepth === 1;
    out.push(opens ? hclBlock(name, lines.slice(i + 1, end), lines[end]!) : { name, alias: null, settings: null });
    i = end;
  }
  return out;
}

/** One `.tf` provider block: each line inside one whole setting, a blank or a comment, and `}` alone on the last; else not readable. */
function hclBlock(name: string, body: readonly HclLine[], closing: HclLine): SourceBlock {
  const unreadable: SourceBlock = { name, alias: null, settings: null };
  if (!closing.plain || !closing.endsPlain || closing.depth !== 1 || !new RegExp(`^\\s*\\}${COMMENT}`).test(closing.text)) return unreadable;
  const settings: { username?: string; base_url?: string } = {};
  let alias: string | undefined;
  for (const line of body) {
    const whole = line.plain && line.endsPlain && line.depth === 1 && line.endDepth === 1;
    if (!whole) return unreadable;
    if (new RegExp(`^${COMMENT}`).test(line.text)) continue;
    const setting = new RegExp(`^\\s*(${IDENT})\\s*=`).exec(line.text);
    if (setting === null) return unreadable;
    if (setting[1] === 'alias') {
      const a = new RegExp(`^\\s*alias\\s*=\\s*"(${IDENT})"${COMMENT}`).exec(line.text);
      if (a === null) return unreadable;
      alias = a[1];
    }
    const bare = new RegExp(`^\\s*(username|base_url)\\s*=\\s*var\\.(${IDENT})${COMMENT}`).exec(line.text);
    if (bare !== null) settings[bare[1] as 'username' | 'base_url'] = bare[2]!;
  }
  return { name, alias, settings };
}

/** The provider blocks of a `.tf.json` file; undefined when it is not JSON or its `provider` is not of Terraform's shapes. */
function jsonProviderBlocks(text: string): SourceBlock[] | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(doc)) return undefined;
  if (doc.provider === undefined) return [];
  if (!isRecord(doc.provider)) return undefined;
  const out: SourceBlock[] = [];
  for (const [name, value] of Object.entries(doc.provider)) {
    if (name === '//') continue;
    for (const b of Array.isArray(value) ? value : [value]) out.push(jsonBlock(name, b));
  }
  return out;
}

/** One `.tf.json` provider block: a string that is one interpolation of one variable (`"${var.team}"`) is that variable. */
function jsonBlock(name: string, b: unknown): SourceBlock {
  if (!isRecord(b)) return { name, alias: null, settings: null };
  const alias = b.alias === undefined ? undefined : typeof b.alias === 'string' && new RegExp(`^${IDENT}$`).test(b.alias) ? b.alias : null;
  const bare = (v: unknown): string | undefined => (typeof v === 'string' ? new RegExp(`^\\$\\{\\s*var\\.(${IDENT})\\s*\\}$`).exec(v)?.[1] : undefined);
  const username = bare(b.username);
  const baseUrl = bare(b.base_url);
  return { name, alias, settings: { ...(username !== undefined ? { username } : {}), ...(baseUrl !== undefined ? { base_url: baseUrl } : {}) } };
}
