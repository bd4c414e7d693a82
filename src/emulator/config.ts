// The accounts file (--accounts): the parent accounts the emulator starts with, and their plans.
import { readFileSync } from 'node:fs';
import { isPlanName, PLAN_NAMES, type PlanName } from './plans';

/** A parent account to create at start-up and on reset. */
export interface AccountSeed {
  readonly username: string;
  readonly password: string;
  readonly plan: PlanName;
  /** Overrides the plan's sub-account limit; null = the plan's default. */
  readonly subAccountLimit: number | null;
  /** The parent's own monthly bandwidth limit in GB (0 = none); proxy servers enforce it. @default 0 */
  readonly monthlyLimit?: number;
  /** The parent's own total bandwidth limit in GB (0 = none); proxy servers enforce it. @default 0 */
  readonly totalLimit?: number;
}

/** The accounts used when no --accounts file is given. */
export const DEFAULT_ACCOUNTS: readonly AccountSeed[] = [{ username: 'demo', password: 'demo-password', plan: 'plan20', subAccountLimit: null }];

const USERNAME_RE = /^[A-Za-z0-9.@+-]{1,30}$/;
const KNOWN_FIELDS = new Set(['username', 'password', 'plan', 'subAccountLimit', 'monthlyLimit', 'totalLimit']);

/**
 * Validates the parsed content of an accounts file. Every problem is collected and reported at
 * once, naming the entry and field; passwords are never quoted.
 * @param source names the file in the error message
 */
export function parseAccounts(data: unknown, source: string): AccountSeed[] {
  const problems: string[] = [];
  const seeds: AccountSeed[] = [];
  const list = isObject(data) ? data['accounts'] : undefined;
  if (!Array.isArray(list) || list.length === 0) {
    problems.push('must be a JSON object {"accounts":[...]} with at least one account');
  } else {
    const seen = new Set<string>();
    list.forEach((entry: unknown, i: number) => {
      const at = `accounts[${i}]`;
      if (!isObject(entry)) {
        problems.push(`${at} must be an object`);
        return;
      }
      for (const key of Object.keys(entry)) {
        if (!KNOWN_FIELDS.has(key)) problems.push(`${at}: unknown field "${key}" (expected ${[...KNOWN_FIELDS].join(', ')})`);
      }
      const { username, password, plan, subAccountLimit, monthlyLimit, totalLimit } = entry;
      if (typeof username !== 'string' || !USERNAME_RE.test(username)) {
        problems.push(`${at}.username must be 1-30 characters of letters, digits and . @ + -`);
      } else if (seen.has(username)) {
        problems.push(`${at}.username "${username}" appears more than once`);
      } else {
        seen.add(username);
      }
      if (typeof password !== 'string' || password.length === 0 || password.length > 128) {
        problems.push(`${at}.password must be a non-empty string of at most 128 characters`);
      }
      if (!isPlanName(plan)) problems.push(`${at}.plan must be one of ${PLAN_NAMES.join(', ')}`);
      if (subAccountLimit !== undefined && !(Number.isSafeInteger(subAccountLimit) && (subAccountLimit as number) >= 0)) {
        problems.push(`${at}.subAccountLimit must be an integer >= 0`);
      }
      for (const [field, value] of [
        ['monthlyLimit', monthlyLimit],
        ['totalLimit', totalLimit],
      ] as const) {
        if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
          problems.push(`${at}.${field} must be an integer >= 0 (GB, 0 = no limit)`);
        }
      }
      if (problems.length === 0) {
        seeds.push({
          username: username as string,
          password: password as string,
          plan: plan as PlanName,
          subAccountLimit: subAccountLimit === undefined ? null : (subAccountLimit as number),
          monthlyLimit: (monthlyLimit as number | undefined) ?? 0,
          totalLimit: (totalLimit as number | undefined) ?? 0,
        });
      }
    });
  }
  if (problems.length > 0) throw new Error(`invalid accounts file ${source}:\n  - ${problems.join('\n  - ')}`);
  return seeds;
}

/** Reads and validates an accounts file. */
export function loadAccountsFile(path: string): AccountSeed[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read accounts file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`invalid accounts file ${path}: not JSON (${jsonFault(err, text)})`);
  }
  return parseAccounts(data, path);
}

/**
 * Where JSON text stops parsing, by position only: V8's messages quote the text around the fault,
 * which here is often a password (written without its quotes, the usual slip). "it ends early" or
 * "at line 3, column 18". The CLI has its own (src/gitops): the emulator is published alone.
 */
function jsonFault(err: unknown, text: string): string {
  const at = faultOffset(err, text);
  if (at === undefined) return 'it ends early';
  const lines = text.slice(0, at).split('\n');
  return `at line ${lines.length}, column ${lines[lines.length - 1]!.length + 1}`;
}

/** The offset of the character JSON.parse refused; undefined when the text only ends early. */
function faultOffset(err: unknown, text: string): number | undefined {
  const reading = faultReading(err, text.trimEnd().length);
  if (reading !== 'elsewhere') return reading;
  // "Unexpected token 'x', "…" is not valid JSON" gives no position: the fault ends the shortest
  // prefix that fails other than by ending early (the empty prefix does not, the whole text does).
  let passes = 0;
  let fails = text.length;
  while (fails - passes > 1) {
    const mid = (passes + fails) >>> 1;
    if (faultReading(parseError(text.slice(0, mid)), mid) === undefined) passes = mid;
    else fails = mid;
  }
  return fails - 1;
}

/**
 * What a JSON.parse error of a text of `end` characters says: the fault's offset, undefined when
 * the text ends early, or 'elsewhere' when it names no position (the fault is then in the text).
 */
function faultReading(err: unknown, end: number): number | undefined | 'elsewhere' {
  if (err === undefined) return undefined;
  const message = err instanceof Error ? err.message : '';
  const at = /position (\d+)/.exec(message);
  if (at !== null) return Number(at[1]) < end ? Number(at[1]) : undefined;
  return /end of (JSON|data)/i.test(message) || end === 0 ? undefined : 'elsewhere';
}

/** The error JSON.parse throws for `text`; undefined when it parses. */
function parseError(text: string): unknown {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return err;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
