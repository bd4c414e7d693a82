// The access-list types: an authorized IP, hostname or proxy, one per resource ("entry") or the
// whole list of one account ("list", authoritative: what it does not declare is removed).
import { ACCOUNT_LIST_ID, entryIdFormat, PROXY_ID } from './import-ids';
import type { ChangeView, Collection, ExportBlock, ExportValue, LiveAccountView, Owner, ResourceTypeDescriptor, Risk, Values } from './types';
import { counted, ipEntry, sign, str, subjectValues, verb } from './words';

/** What the entry and list types of one collection share. */
interface AccessKind {
  readonly collection: Extract<Collection, 'ips' | 'hostnames' | 'proxies'>;
  readonly noun: { readonly one: string; readonly many: string };
  /** The entry resource's attribute holding the entry, and the list resource's set of entries. */
  readonly entryAttribute: string;
  readonly listAttribute: string;
  /** An entry of the list attribute (or the entry resource's values) as a reviewer reads it. */
  show(v: unknown): string;
  /** The collection's key an entry manages (what the API lists). */
  key(v: unknown): string | undefined;
  /** Granting to the parent's list opens its proxies to an IP without credentials. */
  readonly opensParent: boolean;
}

const IPS: AccessKind = {
  collection: 'ips',
  noun: { one: 'IP', many: 'IPs' },
  entryAttribute: 'ip',
  listAttribute: 'entries',
  show: ipEntry,
  key: (v) => (typeof v === 'object' && v !== null ? str((v as { ip?: unknown }).ip) : str(v)),
  opensParent: true,
};

const HOSTNAMES: AccessKind = {
  collection: 'hostnames',
  noun: { one: 'hostname', many: 'hostnames' },
  entryAttribute: 'domain',
  listAttribute: 'domains',
  show: (v) => String(v),
  key: (v) => str(v)?.toLowerCase(),
  opensParent: false,
};

const PROXIES: AccessKind = {
  collection: 'proxies',
  noun: { one: 'proxy', many: 'proxies' },
  entryAttribute: 'proxy',
  listAttribute: 'proxies',
  show: (v) => String(v),
  key: (v) => str(v),
  opensParent: false,
};

function listEntries(k: AccessKind, v: Values): string[] | undefined {
  const raw = v[k.listAttribute];
  return Array.isArray(raw) ? raw.map((e) => k.show(e)) : undefined;
}

/** What a list change adds and removes (a new list also removes what the account had and it does not declare). */
function listDelta(k: AccessKind, c: ChangeView): { added: string[]; removed: string[] } | undefined {
  const after = listEntries(k, c.after);
  const before = listEntries(k, c.before) ?? [];
  if (after === undefined && c.kind !== 'delete') return undefined;
  const a = after ?? [];
  const removed = before.filter((x) => !a.includes(x));
  const planned = Array.isArray(c.after.removed_entries) ? c.after.removed_entries.map(String) : [];
  for (const r of planned) if (!removed.includes(r) && c.kind === 'create') removed.push(r);
  return { added: a.filter((x) => !before.includes(x)), removed };
}

function shortList(items: readonly string[], empty: string): string {
  if (items.length === 0) return empty;
  const max = 6;
  const shown = items.slice(0, max);
  if (items.length > max) shown.push(`… ${items.length - max} more`);
  return shown.join(', ');
}

/** The entries of one live account in `k`'s collection. */
function liveEntries(k: AccessKind, a: LiveAccountView): ExportValue[] {
  if (k === IPS) return a.ips.map((e) => ({ ip: e.ip, label: e.label === '' ? null : e.label }));
  return k === HOSTNAMES ? [...a.hostnames] : [...a.proxies];
}

function userAttribute(a: LiveAccountView): Array<readonly [string, ExportValue]> {
  return a.username === null ? [] : [['username', a.username]];
}

function entryType(typeName: string, k: AccessKind, entry: string, example: string): ResourceTypeDescriptor {
  const importId = k === PROXIES ? PROXY_ID : entryIdFormat(entry, example);
  return {
    typeName,
    noun: k.noun,
    shape: 'entry',
    collection: k.collection,
    ownerAttribute: 'username',
    importId,
    managedKeys: (v) => {
      // A proxy is matched by its configured form; `domain` (the listing's) when the provider resolved it.
      const key = k === PROXIES ? (str(v.domain) ?? str(v.proxy)) : k.key(k === IPS ? v : v[k.entryAttribute]);
      return key === undefined ? [] : [key];
    },
    describeChange: (c) => {
      const v = subjectValues(c);
      const shown = k === IPS ? ipEntry(v) : (str(v[k.entryAttribute]) ?? '?');
      return `${sign(c.kind)}${k.noun.one} ${shown}${c.kind === 'replace' ? ' replaced' : ''}`;
    },
    summarize: (v) => (k === IPS ? ipEntry({ ip: v.ip, label: v.label }) : (str(v[k.entryAttribute]) ?? '')),
    risks: (c, owner) =>
      k.opensParent && owner.username === null && (c.kind === 'create' || c.kind === 'replace')
        ? [{ kind: 'parent_access_opened', message: `${k.noun.one} ${ipEntry(c.after)} may use the parent account's proxies without credentials` }]
        : [],
    export: {
      lists: 'per-entry',
      blocks: (a) =>
        liveEntries(k, a).map((e): ExportBlock => {
          const key = k.key(e)!;
          const attrs: Array<readonly [string, ExportValue]> =
            k === IPS
              ? [
                  ['ip', key],
                  ...(typeof e === 'object' && e !== null && (e as { label?: unknown }).label !== null
                    ? [['label', (e as { label: string }).label] as const]
                    : []),
                ]
              : [[k.entryAttribute, String(e)]];
          const owner = a.username ?? 'self';
          return {
            name: k === PROXIES ? ['proxy', key] : [owner, k === IPS ? 'ip' : 'host', key],
            importId: importId.format(a.username, key),
            attributes: [...attrs, ...userAttribute(a)],
          };
        }),
    },
  };
}

function listType(typeName: string, k: AccessKind): ResourceTypeDescriptor {
  const noun = k.noun.one;
  return {
    typeName,
    noun: k.noun,
    shape: 'list',
    collection: k.collection,
    ownerAttribute: 'username',
    importId: ACCOUNT_LIST_ID,
    managedKeys: (v) => {
      const raw = v[k.listAttribute];
      return Array.isArray(raw) ? raw.map((e) => k.key(e)).filter((x): x is string => x !== undefined) : [];
    },
    entries: (v) => listEntries(k, v),
    describeChange: (c) => {
      if (c.kind === 'import') return `${noun} list imported`;
      if (c.kind === 'delete') return `${noun} list no longer managed (destroying it removes every entry)`;
      const d = listDelta(k, c);
      if (d === undefined) return `${noun} list ${verb(c.kind)}`;
      const parts = [...(d.added.length > 0 ? [`+${counted(k.noun, d.added)}`] : []), ...(d.removed.length > 0 ? [`−${counted(k.noun, d.removed)}`] : [])];
      return parts.length > 0 ? parts.join(', ') : `${noun} list ${verb(c.kind)}`;
    },
    summarize: (v) => {
      const entries = listEntries(k, v);
      return entries === undefined ? '' : shortList(entries, `no ${k.noun.many}`);
    },
    risks: (c, owner: Owner) => {
      const out: Risk[] = [];
      const d = listDelta(k, c);
      if (d !== undefined && d.removed.length > 0)
        out.push({ kind: 'list_removes_entries', message: `the list of ${owner.phrase} removes ${counted(k.noun, d.removed)}` });
      if (k.opensParent && owner.username === null && d !== undefined && d.added.length > 0) {
        out.push({ kind: 'parent_access_opened', message: `${counted(k.noun, d.added)} may use the parent account's proxies without credentials` });
      }
      return out;
    },
    export: {
      lists: 'authoritative',
      blocks: (a) =>
        // Proxies belong to the parent: a sub-account has no proxy list.
        k === PROXIES && a.username !== null
          ? []
          : [
              {
                name: k === PROXIES ? ['proxies'] : [a.username ?? 'self', k.collection],
                importId: ACCOUNT_LIST_ID.format(a.username, ''),
                attributes: [...userAttribute(a), [k.listAttribute, liveEntries(k, a)]],
              },
            ],
    },
  };
}

/** The six access-list types. */
export const ACCESS_TYPES: readonly ResourceTypeDescriptor[] = [
  entryType('proxyaccount_authorized_ip', IPS, 'IP', '203.0.113.7'),
  listType('proxyaccount_authorized_ips', IPS),
  entryType('proxyaccount_authorized_hostname', HOSTNAMES, 'HOSTNAME', 'ci.example.com'),
  listType('proxyaccount_authorized_hostnames', HOSTNAMES),
  entryType('proxyaccount_authorized_proxy', PROXIES, 'PROXY', 'us-ny'),
  listType('proxyaccount_authorized_proxies', PROXIES),
];
