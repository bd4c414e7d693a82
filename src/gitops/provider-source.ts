// The root module's provider blocks as written, for drift's account rules: which settings of a
// block are exactly one variable (`username = var.team`). A plan's JSON keeps what an expression
// references, not the expression, so `"${var.team}2"` and `var.team` look alike there; only the
// source tells them apart. The reader is deliberately plain: what it cannot follow line by line
// leaves the blocks concerned not known, and drift then does not resolve them, saying why (the
// file and line it could not follow).
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import * as path from 'node:path';
import { readZipFiles } from '../packaging';
import { type HclLine, hclLines, IDENT } from './hcl-lines';
import { isRecord } from './plan-json';

/** The settings of a provider block that are exactly one variable: `username = var.team` → `team`. */
export interface BareVariables {
  readonly username?: string;
  readonly base_url?: string;
}

/**
 * What the root module's source says of its provider blocks. `blocks`, by configuration key
 * (`proxyaccount`, `proxyaccount.other`): which settings are exactly one variable, or why the
 * key's block is not known (a file and line this reader does not follow, two blocks claiming the
 * key). `unsure`, by provider name: why no key of that name is known (a block of it whose alias
 * was not read, which may claim any of them), when so. `unread`: why no block of the directory is
 * known (a file this reader does not follow that may hold one, an override file), when so.
 */
export interface ProviderSource {
  readonly blocks: ReadonlyMap<string, BareVariables | string>;
  readonly unsure?: ReadonlyMap<string, string>;
  readonly unread?: string;
}

/** What the source says of one configuration key of the root module: its settings that are exactly one variable, or why that is not known. */
export function blockOf(source: ProviderSource, key: string): BareVariables | string {
  if (source.unread !== undefined) return source.unread;
  const unsure = source.unsure?.get(key.split('.')[0]!);
  if (unsure !== undefined) return unsure;
  return source.blocks.get(key) ?? `no provider block of ${key} was found in the root module's *.tf and *.tf.json files`;
}

/** One provider block of a file: its local name, its alias (null: not readable) and its settings (null: not readable), where it is, and why it is not readable. */
interface SourceBlock {
  readonly name: string;
  readonly alias: string | undefined | null;
  readonly settings: BareVariables | null;
  /** `main.tf line 7`. */
  readonly at: string;
  readonly why?: string;
}

/** Terraform merges override files into the other files' blocks: a block's settings are then in two places. */
const OVERRIDE_FILE = /(^|_)override\.tf(\.json)?$/;

/** A file of the root module as Terraform reads it: its name (no directory) and its text. */
export interface SourceFile {
  readonly name: string;
  readonly text: string;
}

/**
 * Reads the provider blocks of the root module in `dir` (its `*.tf` and `*.tf.json` files), for
 * the settings that are exactly one variable; see {@link providerSourceOf}.
 */
export function readProviderSource(dir: string): ProviderSource {
  let names: string[];
  try {
    names = readdirSync(dir).filter(isConfigurationFile);
  } catch (err) {
    return unread(`the directory could not be listed (${errorCode(err)})`);
  }
  const files: SourceFile[] = [];
  for (const name of names) {
    try {
      files.push({ name, text: readFileSync(path.join(dir, name), 'utf8') });
    } catch (err) {
      return unread(`${name} could not be read (${errorCode(err)})`);
    }
  }
  return providerSourceOf(files);
}

/**
 * The files Terraform reads as a module's configuration. It skips hidden files, vim's backups
 * (`~` at the end) and emacs's autosaves (`#` at both ends, so never a `.tf` file): a `#ops.tf` is
 * read, and so must it be here.
 */
export function isConfigurationFile(name: string): boolean {
  const ignored = name.startsWith('.') || name.endsWith('~') || (name.startsWith('#') && name.endsWith('#'));
  return (name.endsWith('.tf') || name.endsWith('.tf.json')) && !ignored;
}

/** Where a saved plan keeps its copy of the root module's files. */
const PLAN_ROOT_MODULE = 'tfconfig/m-/';
/** The largest file of that copy read (bytes). */
const PLAN_FILE_LIMIT = 256 * 1024 * 1024;

/** Whether `file` is a saved plan (a zip), not plan JSON. */
function isSavedPlan(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from('PK\x03\x04', 'latin1'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The provider blocks the plan `plan` was made from: a saved plan holds a copy of the root
 * module's files (`tfconfig/m-/`), which is exactly what Terraform planned, wherever `dir` points;
 * plan JSON (or `-`) holds none, and `dir`'s files are read instead (the plan must have been made
 * there).
 */
export async function planProviderSource(plan: string, dir: string): Promise<ProviderSource> {
  if (plan === '-' || !isSavedPlan(plan)) return readProviderSource(dir);
  let entries: Map<string, Buffer>;
  try {
    // The directory reader has no limit; this one only guards memory against a crafted archive
    // (a CDKTF stack's one cdk.tf.json is easily megabytes).
    entries = await readZipFiles(plan, (name) => name.startsWith(PLAN_ROOT_MODULE) && !name.slice(PLAN_ROOT_MODULE.length).includes('/'), PLAN_FILE_LIMIT);
  } catch (err) {
    return unread(`the saved plan's copy of the root module's files could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (entries.size === 0) return unread("the saved plan holds no copy of the root module's files");
  return providerSourceOf([...entries].map(([name, bytes]) => ({ name: name.slice(PLAN_ROOT_MODULE.length), text: bytes.toString('utf8') })));
}

function unread(why: string): ProviderSource {
  return { blocks: new Map(), unread: why };
}

/**
 * The provider blocks of a root module's files, for the settings that are exactly one variable.
 * Anything this reader does not follow plainly (an override file, a heredoc, string or comment it
 * cannot end, a block on one line, a setting over several lines) leaves the blocks concerned, or
 * all of them, not known: they are then not resolved. A `.tf` file it does not follow leaves
 * every block unknown (it may hold one), unless the file never says `provider`, without which no
 * block can be written.
 */
export function providerSourceOf(files: readonly SourceFile[]): ProviderSource {
  const sorted = files.filter((f) => isConfigurationFile(f.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const override = sorted.find((f) => OVERRIDE_FILE.test(f.name));
  if (override !== undefined) return unread(`${override.name} is an override file, whose settings Terraform merges into the other files' blocks`);
  const blocks: SourceBlock[] = [];
  for (const f of sorted) {
    const found = f.name.endsWith('.json') ? jsonProviderBlocks(f.name, f.text) : hclProviderBlocks(f.name, f.text);
    if (typeof found === 'string') return unread(found);
    blocks.push(...found);
  }
  return byKey(blocks);
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/** The blocks by configuration key; a key two blocks claim, and every key of a name one of whose blocks has an alias not read, is not known, and says why. */
function byKey(blocks: readonly SourceBlock[]): ProviderSource {
  const out = new Map<string, BareVariables | string>();
  const first = new Map<string, SourceBlock>();
  const unsure = new Map<string, string>();
  for (const b of blocks) {
    if (b.alias === null && !unsure.has(b.name))
      unsure.set(b.name, `${b.at}: ${b.why ?? 'a provider block not read'}, so which configuration of ${b.name} it is cannot be told`);
  }
  for (const b of blocks) {
    if (b.alias === null) continue;
    const key = b.alias === undefined ? b.name : `${b.name}.${b.alias}`;
    const other = first.get(key);
    out.set(
      key,
      other !== undefined
        ? `two provider blocks configure ${key} (${other.at}, ${b.at})`
        : (b.settings ?? `${b.at}: ${b.why ?? 'its block could not be read'}`),
    );
    first.set(key, other ?? b);
  }
  return unsure.size > 0 ? { blocks: out, unsure } : { blocks: out };
}

const COMMENT = '\\s*(?:(?:#|//).*)?$';

/**
 * The provider blocks of a `.tf` file; why not, naming the line, when a `provider` line at the top
 * is not one this reader follows (its label unquoted, say), or the file is not followed and says
 * `provider` anywhere. An empty block on one line (`provider "proxyaccount" {}`) sets nothing;
 * any other block on one line is not read.
 */
function hclProviderBlocks(file: string, text: string): SourceBlock[] | string {
  const lines = hclLines(text);
  // Without the word, no provider block can be written: what the reader does not follow there is of no concern.
  if (!Array.isArray(lines)) return /\bprovider\b/.test(text) ? `${file} line ${lines.line}: ${lines.why}` : [];
  const out: SourceBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.plain || line.depth !== 0 || !/^\s*provider\b/.test(line.text)) continue;
    const at = `${file} line ${line.number}`;
    const open = new RegExp(`^\\s*provider\\s+"(${IDENT})"\\s*\\{(.*)$`).exec(line.text);
    if (open === null) return `${at}: a provider block this reader does not follow (its name not quoted, or its { not on its line)`;
    const name = open[1]!;
    if (line.endDepth === 0) {
      const empty = line.endsPlain && new RegExp(`^\\s*\\}${COMMENT}`).test(open[2]!);
      out.push(empty ? { name, alias: undefined, settings: {}, at } : { name, alias: null, settings: null, at, why: 'a block with settings on one line' });
      continue;
    }
    const end = lines.findIndex((l, j) => j > i && l.endDepth === 0);
    if (end < 0) return `${at}: a provider block that does not end`;
    const opens = new RegExp(`^${COMMENT}`).test(open[2]!) && line.endsPlain && line.endDepth === 1;
    out.push(
      opens
        ? hclBlock(name, file, line, lines.slice(i + 1, end), lines[end]!)
        : { name, alias: null, settings: null, at, why: 'a setting on the line that opens the block' },
    );
    i = end;
  }
  return out;
}

/** One `.tf` provider block: each line inside one whole setting, a blank or a comment, and `}` alone on the last; else not readable, saying which line. */
function hclBlock(name: string, file: string, open: HclLine, body: readonly HclLine[], closing: HclLine): SourceBlock {
  const at = `${file} line ${open.number}`;
  const unreadable = (line: HclLine, why: string): SourceBlock => ({
    name,
    alias: null,
    settings: null,
    at: `${file} line ${line.number}`,
    why: `${why}, in the provider block of line ${open.number}`,
  });
  if (!closing.plain || !closing.endsPlain || closing.depth !== 1 || !new RegExp(`^\\s*\\}${COMMENT}`).test(closing.text)) {
    return unreadable(closing, 'the end of the block, not as } alone on its line');
  }
  const settings: { username?: string; base_url?: string } = {};
  let alias: string | undefined;
  for (const line of body) {
    const whole = line.plain && line.endsPlain && line.depth === 1 && line.endDepth === 1;
    if (!whole) return unreadable(line, 'a setting over several lines, or a nested block');
    if (new RegExp(`^${COMMENT}`).test(line.text)) continue;
    const setting = new RegExp(`^\\s*(${IDENT})\\s*=`).exec(line.text);
    if (setting === null) return unreadable(line, 'not a setting');
    if (setting[1] === 'alias') {
      const a = new RegExp(`^\\s*alias\\s*=\\s*"(${IDENT})"${COMMENT}`).exec(line.text);
      if (a === null) return unreadable(line, 'an alias that is not a quoted name');
      alias = a[1];
    }
    const bare = new RegExp(`^\\s*(username|base_url)\\s*=\\s*var\\.(${IDENT})${COMMENT}`).exec(line.text);
    if (bare !== null) settings[bare[1] as 'username' | 'base_url'] = bare[2]!;
  }
  return { name, alias, settings, at };
}

/** The provider blocks of a `.tf.json` file; why not when it is not JSON or its `provider` is not of Terraform's shapes. */
function jsonProviderBlocks(file: string, text: string): SourceBlock[] | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return `${file} is not JSON`;
  }
  if (!isRecord(doc)) return `${file} is not a JSON object`;
  if (doc.provider === undefined) return [];
  if (!isRecord(doc.provider)) return `${file}: its provider is not an object of provider blocks`;
  const out: SourceBlock[] = [];
  for (const [name, value] of Object.entries(doc.provider)) {
    if (name === '//') continue;
    for (const b of Array.isArray(value) ? value : [value]) out.push(jsonBlock(name, file, b));
  }
  return out;
}

/** One `.tf.json` provider block: a string that is one interpolation of one variable (`"${var.team}"`) is that variable. */
function jsonBlock(name: string, at: string, b: unknown): SourceBlock {
  if (!isRecord(b)) return { name, alias: null, settings: null, at, why: `a provider block of ${name} that is not an object` };
  const alias = b.alias === undefined ? undefined : typeof b.alias === 'string' && new RegExp(`^${IDENT}$`).test(b.alias) ? b.alias : null;
  if (alias === null) return { name, alias, settings: null, at, why: 'an alias that is not a name' };
  const bare = (v: unknown): string | undefined => (typeof v === 'string' ? new RegExp(`^\\$\\{\\s*var\\.(${IDENT})\\s*\\}$`).exec(v)?.[1] : undefined);
  const username = bare(b.username);
  const baseUrl = bare(b.base_url);
  return { name, alias, settings: { ...(username !== undefined ? { username } : {}), ...(baseUrl !== undefined ? { base_url: baseUrl } : {}) }, at };
}
