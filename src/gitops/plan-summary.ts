// A plan in a few lines: one per resource change or drifted object, named by type and account
// rather than by CDKTF's hashed addresses (the demo's view). Reads plans parsed by plan-json.ts,
// the one plan reader, so the one secrets rule holds here too; objects are summarized by the
// resource-type catalogue.
import { type Catalogue, RESOURCE_TYPES } from '../resource-types';
import { kindOf, type Plan, type ResourceChange, SECRET_ATTRIBUTES, type Values } from './plan-json';
import { accountsGone, type GoneAccount } from './plan-overlaps';

/** Counts as in terraform's "Plan: N to add, N to change, N to destroy." line. */
export interface PlanCounts {
  readonly add: number;
  readonly change: number;
  readonly destroy: number;
}

/** Attributes that only repeat what the subject already says. */
const QUIET_ATTRIBUTES = new Set(['id', 'username']);

function isRecord(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function doesSomething(c: ResourceChange): boolean {
  const kind = kindOf(c);
  return kind !== 'no-op' && kind !== 'read' && kind !== 'import';
}

/** The changes that do something (no no-ops, no reads). */
export function effectiveChanges(plan: Plan): ResourceChange[] {
  return plan.changes.filter(doesSomething);
}

/** What terraform's summary line would say about this plan. */
export function countChanges(plan: Plan): PlanCounts {
  let add = 0;
  let change = 0;
  let destroy = 0;
  for (const c of plan.changes) {
    if (c.actions.includes('create')) add++;
    if (c.actions.includes('delete')) destroy++;
    if (c.actions.includes('update')) change++;
  }
  return { add, change, destroy };
}

/** One line per resource the plan creates, changes or destroys, grouped by account. */
export function describeChanges(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): string[] {
  return rows(effectiveChanges(plan), catalogue, accountsGone(plan, catalogue));
}

/** One line per object that changed outside Terraform, saying how. */
export function describeDrift(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): string[] {
  return rows(plan.drift.filter(doesSomething), catalogue, new Map());
}

/** `gone`: the sub-accounts the plan deletes or replaces, whose objects go with them. */
function rows(changes: readonly ResourceChange[], catalogue: Catalogue, gone: ReadonlyMap<string, GoneAccount>): string[] {
  // Within one account: the catalogue's order (the account, then its access, then its tokens).
  const order = [...catalogue.keys()];
  const rank = (type: string): number => {
    const i = order.indexOf(type);
    return i === -1 ? order.length : i;
  };
  const sorted = changes
    .map((c) => ({ c, account: account(c) }))
    .sort((a, b) => a.account.localeCompare(b.account) || rank(a.c.type) - rank(b.c.type) || a.c.address.localeCompare(b.c.address));
  return table(sorted.map(({ c, account }) => [symbol(c.actions), c.type, subject(c, catalogue), detail(c, catalogue, gone.get(account))]));
}

function symbol(actions: readonly string[]): string {
  // An object no state manages from now on, never destroyed: neither a + nor a -.
  if (actions.includes('forget')) return '.';
  if (actions.includes('create') && actions.includes('delete')) return '-/+';
  if (actions.includes('create')) return '+';
  if (actions.includes('delete')) return '-';
  if (actions.includes('update')) return '~';
  return '?';
}

function values(c: ResourceChange): Values {
  const kind = kindOf(c);
  return kind === 'delete' || kind === 'forget' ? c.before : c.after;
}

/** The account a resource belongs to, as the roster names it. */
function account(c: ResourceChange): string {
  const v = values(c);
  return typeof v.username === 'string' ? v.username : '(parent account)';
}

/** The account, and for a token (an entry of the tokens collection) its label. */
function subject(c: ResourceChange, catalogue: Catalogue): string {
  const label = values(c).label;
  return catalogue.get(c.type)?.collection === 'tokens' && typeof label === 'string' ? `${account(c)} / "${label}"` : account(c);
}

/**
 * A create or delete shows the object; anything else shows what differs. A forgotten object stays
 * in the account, unless its sub-account (`gone`) is deleted or replaced by the same plan: the API
 * deletes it then, whatever the removed block says.
 */
function detail(c: ResourceChange, catalogue: Catalogue, gone: GoneAccount | undefined): string {
  const kind = kindOf(c);
  const d = catalogue.get(c.type);
  if (kind === 'delete') return d?.summarize(c.before) ?? '';
  if (kind === 'forget') {
    const fate =
      gone !== undefined && d?.shape !== 'account'
        ? `(no longer managed: deleted with its sub-account, which this plan ${gone.kind === 'delete' ? 'deletes' : 'replaces'})`
        : '(no longer managed: it stays in the account)';
    return [d?.summarize(c.before) ?? '', fate].filter((s) => s !== '').join(' ');
  }
  if (kind === 'create') return d?.summarize(c.after) ?? '';
  return describeDiff(c);
}

/** `attribute: old → new` for scalars, `attribute: +added -removed` for lists and sets. */
function describeDiff(c: ResourceChange): string {
  const parts: string[] = [];
  for (const key of new Set([...Object.keys(c.before), ...Object.keys(c.after)])) {
    if (QUIET_ATTRIBUTES.has(key)) continue;
    const b = c.before[key];
    const a = c.after[key];
    if (c.afterUnknown.has(key)) {
      parts.push(`${key}: (known after apply)`);
    } else if (Array.isArray(a) || Array.isArray(b)) {
      const bItems = (Array.isArray(b) ? b : []).map((x) => JSON.stringify(x));
      const aItems = (Array.isArray(a) ? a : []).map((x) => JSON.stringify(x));
      const added = aItems.filter((x) => !bItems.includes(x)).map((x) => `+${item(JSON.parse(x))}`);
      const removed = bItems.filter((x) => !aItems.includes(x)).map((x) => `-${item(JSON.parse(x))}`);
      if (added.length + removed.length > 0) parts.push(`${key}: ${[...added, ...removed].join(' ')}`);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      parts.push(`${key}: ${scalar(b)} → ${scalar(a)}`);
    }
  }
  return parts.join('; ');
}

/** An element of a list attribute: an IP entry reads `203.0.113.7 (office)`. */
function item(value: unknown): string {
  if (isRecord(value)) {
    if (typeof value.ip === 'string') return typeof value.label === 'string' && value.label !== '' ? `${value.ip} (${value.label})` : value.ip;
    return Object.entries(value)
      .filter(([k, v]) => v !== null && !SECRET_ATTRIBUTES.has(k))
      .map(([k, v]) => `${k}=${scalar(v)}`)
      .join(' ');
  }
  return scalar(value);
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Aligns the first three columns; the last one runs free. */
function table(rows: string[][]): string[] {
  const widths = [0, 0, 0];
  for (const row of rows) for (let i = 0; i < 3; i++) widths[i] = Math.max(widths[i]!, row[i]!.length);
  return rows.map((row) =>
    row
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell))
      .join('  ')
      .trimEnd(),
  );
}
