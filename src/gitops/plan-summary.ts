// Reads a saved plan (`terraform show -json`) and describes it in a few lines: one per resource
// change or drifted object, named by type and account rather than by CDKTF's hashed addresses.
// Shared by the demo and the review and drift commands. The JSON of a plan holds sensitive values
// in clear: only attributes Terraform does not mark sensitive, and never a token or password, reach the output.

/** One entry of `resource_changes` or `resource_drift` in Terraform's JSON plan format. */
export interface PlannedChange {
  readonly address: string;
  readonly type: string;
  readonly change: {
    readonly actions: readonly string[];
    readonly before?: unknown;
    readonly after?: unknown;
    readonly after_unknown?: unknown;
    readonly before_sensitive?: unknown;
    readonly after_sensitive?: unknown;
  };
}

/** The parts of Terraform's JSON plan format the demo reads. */
export interface PlanJson {
  readonly resource_changes: readonly PlannedChange[];
  readonly resource_drift: readonly PlannedChange[];
}

/** Counts as in terraform's "Plan: N to add, N to change, N to destroy." line. */
export interface PlanCounts {
  readonly add: number;
  readonly change: number;
  readonly destroy: number;
}

/** Attributes never shown, whatever the plan says about their sensitivity. */
const SECRET_ATTRIBUTES = new Set(['token', 'password', 'password_wo']);
/** Attributes that only repeat what the subject already says. */
const QUIET_ATTRIBUTES = new Set(['id', 'username']);
const MAX_ITEMS = 6;

type Attrs = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Attrs {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readChanges(value: unknown): PlannedChange[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (c): c is PlannedChange =>
      isRecord(c) && typeof c.address === 'string' && typeof c.type === 'string' && isRecord(c.change) && Array.isArray(c.change.actions),
  );
}

/** Picks the resource changes and drift out of `terraform show -json PLANFILE` output. */
export function parsePlan(json: unknown): PlanJson {
  if (!isRecord(json)) throw new Error('terraform show -json did not print a JSON object');
  return { resource_changes: readChanges(json.resource_changes), resource_drift: readChanges(json.resource_drift) };
}

/** The changes that do something (no no-ops, no reads). */
export function effectiveChanges(plan: PlanJson): PlannedChange[] {
  return plan.resource_changes.filter((c) => !isNoop(c.change.actions));
}

function isNoop(actions: readonly string[]): boolean {
  return actions.length === 0 || actions.every((a) => a === 'no-op' || a === 'read');
}

/** What terraform's summary line would say about this plan. */
export function countChanges(plan: PlanJson): PlanCounts {
  let add = 0;
  let change = 0;
  let destroy = 0;
  for (const c of plan.resource_changes) {
    const a = c.change.actions;
    if (a.includes('create')) add++;
    if (a.includes('delete')) destroy++;
    if (a.includes('update')) change++;
  }
  return { add, change, destroy };
}

/** One line per resource the plan creates, changes or destroys, grouped by account. */
export function describeChanges(plan: PlanJson): string[] {
  return rows(effectiveChanges(plan));
}

/** One line per object that changed outside Terraform, saying how. */
export function describeDrift(plan: PlanJson): string[] {
  return rows(plan.resource_drift.filter((c) => !isNoop(c.change.actions)));
}

/** The order of types within one account: the account first, then its access, then its tokens. */
const TYPE_ORDER = ['sub_account', 'authorized_ips', 'authorized_ip', 'authorized_hostnames', 'authorized_hostname', 'bearer_token'];

function rows(changes: readonly PlannedChange[]): string[] {
  const rank = (type: string): number => {
    const i = TYPE_ORDER.indexOf(type.replace(/^proxyaccount_/, ''));
    return i === -1 ? TYPE_ORDER.length : i;
  };
  const sorted = changes
    .map((c) => ({ c, account: account(c) }))
    .sort((a, b) => a.account.localeCompare(b.account) || rank(a.c.type) - rank(b.c.type) || a.c.address.localeCompare(b.c.address));
  return table(sorted.map(({ c }) => [symbol(c.change.actions), c.type, subject(c), detail(c)]));
}

function symbol(actions: readonly string[]): string {
  if (actions.includes('create') && actions.includes('delete')) return '-/+';
  if (actions.includes('create')) return '+';
  if (actions.includes('delete')) return '-';
  if (actions.includes('update')) return '~';
  return '?';
}

function values(c: PlannedChange): Attrs {
  return isRecord(c.change.after) ? c.change.after : isRecord(c.change.before) ? c.change.before : {};
}

/** The account a resource belongs to, as the roster names it. */
function account(c: PlannedChange): string {
  const v = values(c);
  return typeof v.username === 'string' ? v.username : '(parent account)';
}

/** The account, and for a token its label. */
function subject(c: PlannedChange): string {
  const label = values(c).label;
  return c.type.endsWith('_bearer_token') && typeof label === 'string' ? `${account(c)} / "${label}"` : account(c);
}

/** A create or delete shows the object; anything else shows what differs. */
function detail(c: PlannedChange): string {
  const { actions, before, after } = c.change;
  if (actions.includes('delete') && !actions.includes('create')) return isRecord(before) ? describeObject(c.type, before) : '';
  if (actions.includes('create') && !isRecord(before)) return isRecord(after) ? describeObject(c.type, after) : '';
  return describeDiff(c);
}

function describeObject(type: string, v: Attrs): string {
  const name = type.replace(/^proxyaccount_/, '');
  switch (name) {
    case 'sub_account': {
      const parts = [`monthly ${gb(v.monthly_limit)}`, `total ${gb(v.total_limit)}`];
      if (v.active === false) parts.push('inactive');
      return parts.join(', ');
    }
    case 'authorized_ips':
      return Array.isArray(v.entries) ? list(v.entries, 'no IPs') : '';
    case 'authorized_hostnames':
      return Array.isArray(v.domains) ? list(v.domains, 'no hostnames') : '';
    case 'authorized_proxies':
      return Array.isArray(v.proxies) ? list(v.proxies, 'no proxies') : '';
    case 'authorized_ip':
      return item({ ip: v.ip, label: v.label });
    case 'authorized_hostname':
      return typeof v.domain === 'string' ? v.domain : '';
    case 'authorized_proxy':
      return typeof v.proxy === 'string' ? v.proxy : '';
    case 'bearer_token': {
      const parts = [typeof v.expires_at === 'string' ? `expires ${v.expires_at}` : 'no expiry'];
      if (v.active === false) parts.push('inactive');
      return parts.join(', ');
    }
    default:
      return '';
  }
}

function gb(value: unknown): string {
  if (typeof value !== 'number') return '? GB';
  return value === 0 ? 'unlimited' : `${value} GB`;
}

/** `attribute: old → new` for scalars, `attribute: +added -removed` for lists and sets. */
function describeDiff(c: PlannedChange): string {
  const before = isRecord(c.change.before) ? c.change.before : {};
  const after = isRecord(c.change.after) ? c.change.after : {};
  const unknown = isRecord(c.change.after_unknown) ? c.change.after_unknown : {};
  const hidden = new Set([...sensitiveKeys(c.change.before_sensitive), ...sensitiveKeys(c.change.after_sensitive)]);
  const parts: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (SECRET_ATTRIBUTES.has(key) || QUIET_ATTRIBUTES.has(key) || hidden.has(key)) continue;
    const b = before[key];
    const a = after[key];
    if (unknown[key] === true) {
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

/** Top-level attributes that the `*_sensitive` structure marks, wholly or in part. */
function sensitiveKeys(marks: unknown): string[] {
  if (!isRecord(marks)) return [];
  return Object.keys(marks).filter((k) => JSON.stringify(marks[k]).includes('true'));
}

function list(items: readonly unknown[], empty: string): string {
  if (items.length === 0) return empty;
  const shown = items.slice(0, MAX_ITEMS).map(item);
  if (items.length > MAX_ITEMS) shown.push(`… ${items.length - MAX_ITEMS} more`);
  return shown.join(', ');
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
  for (const row of rows) for (let i = 0; i < 3; i++) widths[i] = Math.max(widths[i], row[i].length);
  return rows.map((row) =>
    row
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell))
      .join('  ')
      .trimEnd(),
  );
}
