// Domain words for one planned change of a proxyaccount resource: "+IP 203.0.113.7 (office)",
// "monthly limit 50 → 100 GB", "token 'deploy' replaced". Values come from a plan already
// stripped of secrets and sensitive values (plan-json.ts).
import { kindOf, type ResourceChange, type Values } from './plan-json';

/** The account a resource belongs to: a sub-account's username, or '(parent)'. */
export const PARENT = '(parent)';

/** The account of a change (its username attribute, before or after). */
export function accountOf(c: Pick<ResourceChange, 'type' | 'before' | 'after'>): string {
  if (c.type === 'proxyaccount_sub_account') return str(c.after.username) ?? str(c.before.username) ?? PARENT;
  return str(c.after.username) ?? str(c.before.username) ?? PARENT;
}

/** An IP list entry as plans show it: `203.0.113.7 (office)`. */
export function ipEntry(v: unknown): string {
  if (typeof v === 'object' && v !== null) {
    const e = v as Record<string, unknown>;
    const ip = str(e.ip) ?? '?';
    const label = str(e.label);
    return label === undefined || label === '' ? ip : `${ip} (${label})`;
  }
  return String(v);
}

/** The entries of a list resource's set attribute, as strings. */
function entries(type: string, v: Values): string[] | undefined {
  const raw =
    type === 'proxyaccount_authorized_ips'
      ? v.entries
      : type === 'proxyaccount_authorized_hostnames'
        ? v.domains
        : type === 'proxyaccount_authorized_proxies'
          ? v.proxies
          : undefined;
  if (!Array.isArray(raw)) return undefined;
  return raw.map((e) => (type === 'proxyaccount_authorized_ips' ? ipEntry(e) : String(e)));
}

const NOUN: Readonly<Record<string, [string, string]>> = {
  proxyaccount_authorized_ips: ['IP', 'IPs'],
  proxyaccount_authorized_ip: ['IP', 'IPs'],
  proxyaccount_authorized_hostnames: ['hostname', 'hostnames'],
  proxyaccount_authorized_hostname: ['hostname', 'hostnames'],
  proxyaccount_authorized_proxies: ['proxy', 'proxies'],
  proxyaccount_authorized_proxy: ['proxy', 'proxies'],
};

/** "2 IPs (a, b)" / "1 hostname (x)". */
export function counted(type: string, items: readonly string[]): string {
  const [one, many] = NOUN[type] ?? ['entry', 'entries'];
  return `${items.length} ${items.length === 1 ? one : many} (${items.join(', ')})`;
}

/** What a list change adds and removes (for a create: what it adds, and `removed_entries`). */
export function listDelta(c: ResourceChange): { added: string[]; removed: string[] } | undefined {
  const after = entries(c.type, c.after);
  const before = entries(c.type, c.before) ?? [];
  if (after === undefined && kindOf(c) !== 'delete') return undefined;
  const a = after ?? [];
  const removed = before.filter((x) => !a.includes(x));
  // A new list also removes what the account had that it does not declare (the provider plans it).
  const planned = Array.isArray(c.after.removed_entries) ? c.after.removed_entries.map(String) : [];
  for (const r of planned) if (!removed.includes(r) && kindOf(c) === 'create') removed.push(r);
  return { added: a.filter((x) => !before.includes(x)), removed };
}

function gb(v: unknown): string {
  return typeof v === 'number' ? (v === 0 ? 'unlimited' : `${v} GB`) : '?';
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The change in a reviewer's words, without the account name (the section carries it). */
export function describeChange(c: ResourceChange): string {
  const kind = kindOf(c);
  const v = kind === 'delete' ? c.before : c.after;
  switch (c.type) {
    case 'proxyaccount_sub_account':
      return describeSubAccount(c, kind);
    case 'proxyaccount_bearer_token': {
      const name = `token '${str(v.label) ?? str(c.before.label) ?? '(no label)'}'`;
      if (kind === 'update') {
        if (c.before.active === true && c.after.active === false) return `${name} deactivated`;
        if (c.before.active === false && c.after.active === true) return `${name} activated`;
        return `${name} changed`;
      }
      if (kind === 'create') return `${name} created${typeof v.expires_at === 'string' ? ` (expires ${v.expires_at})` : ''}`;
      return `${name} ${verb(kind)}`;
    }
    case 'proxyaccount_authorized_ip':
      return `${sign(kind)}IP ${ipEntry(v)}${kind === 'replace' ? ' replaced' : ''}`;
    case 'proxyaccount_authorized_hostname':
      return `${sign(kind)}hostname ${str(v.domain) ?? '?'}${kind === 'replace' ? ' replaced' : ''}`;
    case 'proxyaccount_authorized_proxy':
      return `${sign(kind)}proxy ${str(v.proxy) ?? '?'}${kind === 'replace' ? ' replaced' : ''}`;
    case 'proxyaccount_authorized_ips':
    case 'proxyaccount_authorized_hostnames':
    case 'proxyaccount_authorized_proxies': {
      if (kind === 'import') return `${NOUN[c.type]![0]} list imported`;
      if (kind === 'delete') return `${NOUN[c.type]![0]} list no longer managed (destroying it removes every entry)`;
      const d = listDelta(c);
      if (d === undefined) return `${NOUN[c.type]![0]} list ${verb(kind)}`;
      const parts = [...(d.added.length > 0 ? [`+${counted(c.type, d.added)}`] : []), ...(d.removed.length > 0 ? [`−${counted(c.type, d.removed)}`] : [])];
      return parts.length > 0 ? parts.join(', ') : `${NOUN[c.type]![0]} list ${verb(kind)}`;
    }
    default:
      return `${c.type} ${verb(kind)}`;
  }
}

function describeSubAccount(c: ResourceChange, kind: string): string {
  if (kind === 'create') {
    const parts = [`monthly limit ${gb(c.after.monthly_limit)}`, `total limit ${gb(c.after.total_limit)}`];
    if (c.after.active === false) parts.push('inactive');
    return `sub-account created (${parts.join(', ')})`;
  }
  if (kind === 'delete') return 'sub-account deleted';
  if (kind === 'replace') return 'sub-account replaced (deleted and created again)';
  if (kind === 'import') return 'sub-account imported';
  const parts: string[] = [];
  for (const [attr, name] of [
    ['monthly_limit', 'monthly limit'],
    ['total_limit', 'total limit'],
  ] as const) {
    if (c.before[attr] !== c.after[attr]) parts.push(`${name} ${gb(c.before[attr])} → ${gb(c.after[attr])}`);
  }
  if (c.before.active !== c.after.active) parts.push(c.after.active === false ? 'deactivated' : 'activated');
  for (const attr of ['first_name', 'last_name', 'email'] as const) {
    if (c.before[attr] !== c.after[attr]) parts.push(`${attr.replace('_', ' ')} ${str(c.before[attr]) ?? '(none)'} → ${str(c.after[attr]) ?? '(none)'}`);
  }
  if (['password', 'password_wo_version'].some((k) => c.secretsChanged.has(k))) parts.push('password changed');
  return parts.length > 0 ? parts.join(', ') : 'sub-account changed';
}

function sign(kind: string): string {
  return kind === 'create' ? '+' : kind === 'delete' ? '−' : kind === 'import' ? 'imported ' : '';
}

function verb(kind: string): string {
  return kind === 'create' ? 'created' : kind === 'delete' ? 'deleted' : kind === 'replace' ? 'replaced' : kind === 'import' ? 'imported' : 'changed';
}
