// The three access lists' collections (IPs, hostnames, proxies) as the entry and list types of
// access-types.ts read them: how an entry is keyed, shown, written in configuration and exported,
// and what granting one to the parent opens.
import type { Collection, ExportValue, LiveAccountView, ResourceTypeDescriptor, Values } from './types';
import { ipEntry, str } from './words';

/** What the entry and list types of one collection share. */
export interface AccessKind {
  readonly collection: Extract<Collection, 'ips' | 'hostnames' | 'proxies'>;
  readonly noun: { readonly one: string; readonly many: string };
  /** The list resource's set of entries. */
  readonly listAttribute: string;
  /** An entry of the list attribute as a reviewer reads it. */
  show(v: unknown): string;
  /** The collection's key an entry of the list manages (what the API lists). */
  key(v: unknown): string | undefined;
  /** The key an entry resource manages, from its values. */
  entryKey(v: Values): string | undefined;
  /** The attributes {@link entryKey} reads. */
  readonly entryKeyAttributes: readonly string[];
  /** Key attributes another one stands in for when a plan does not show them (see {@link ResourceTypeDescriptor.keyStandIns}). */
  readonly entryKeyStandIns?: Readonly<Record<string, string>>;
  /** An entry resource's key as the code writes it (a hostname in its own case, a proxy's configured form). */
  written(v: Values): string | undefined;
  /** What an entry holds besides its key, which an entry resource and a list can declare differently (an IP's label). */
  readonly detail?: string;
  /** The key of an entry as `removed_entries` shows it (an IP with its label: `192.0.2.7 (office)`). */
  removedKey(shown: string): string;
  /** Whether two keys name one object, where equal keys are not the only way (proxy forms). */
  sameKey?(a: string, b: string): boolean;
  /** An entry resource's values as a reviewer reads them. */
  entryShown(v: Values): string | undefined;
  /** The live entries of one account, as list elements for export. */
  live(a: LiveAccountView): ExportValue[];
  /** A live entry's key as the API gave it (the import ID's and the name's part). */
  liveKey(e: ExportValue): string;
  /** The attributes of an entry resource for one live entry (the username is added by the caller). */
  entryAttributes(e: ExportValue): Array<readonly [string, ExportValue]>;
  /** The entry resource's name parts for the key of `owner` ('self' for the parent). */
  entryName(owner: string, key: string): string[];
  /**
   * What granting `subject` (`IP 203.0.113.7`, `2 hostnames (…)`) to the parent's list opens: its
   * proxies, without credentials; unset where an entry opens nothing by itself.
   */
  readonly opensParent?: (subject: string, many: boolean) => string;
  /**
   * Why the list resource refuses two live entries with one key (hostnames: case does not
   * matter), while the API keeps them apart; unset where the API's keys are its entries.
   */
  readonly twinsRefused?: string;
}

export const IPS: AccessKind = {
  collection: 'ips',
  noun: { one: 'IP', many: 'IPs' },
  listAttribute: 'entries',
  show: ipEntry,
  key: (v) => (typeof v === 'object' && v !== null ? str((v as { ip?: unknown }).ip) : str(v)),
  entryKey: (v) => str(v.ip),
  entryKeyAttributes: ['ip'],
  written: (v) => str(v.ip),
  detail: 'a label',
  removedKey: (shown) => shown.split(' ')[0] ?? shown,
  entryShown: (v) => ipEntry({ ip: v.ip, label: v.label }),
  live: (a) => a.ips.map((e) => ({ ip: e.ip, label: e.label === '' ? null : e.label })),
  liveKey: (e) => (e as { ip: string }).ip,
  entryAttributes: (e) => {
    const { ip, label } = e as { ip: string; label: string | null };
    return label === null
      ? [['ip', ip]]
      : [
          ['ip', ip],
          ['label', label],
        ];
  },
  entryName: (owner, key) => [owner, 'ip', key],
  opensParent: (subject) => `${subject} may use the parent account's proxies without credentials`,
};

export const HOSTNAMES: AccessKind = {
  collection: 'hostnames',
  noun: { one: 'hostname', many: 'hostnames' },
  listAttribute: 'domains',
  show: (v) => String(v),
  key: (v) => str(v)?.toLowerCase(),
  entryKey: (v) => str(v.domain)?.toLowerCase(),
  entryKeyAttributes: ['domain'],
  written: (v) => str(v.domain),
  removedKey: (shown) => shown.toLowerCase(),
  entryShown: (v) => str(v.domain),
  live: (a) => [...a.hostnames],
  liveKey: String,
  entryAttributes: (e) => [['domain', String(e)]],
  entryName: (owner, key) => [owner, 'host', key],
  // A request from any address the hostname resolves to acts as the account, as from an IP.
  opensParent: (subject, many) =>
    `${subject}: clients at any address ${many ? 'they resolve' : 'it resolves'} to may use the parent account's proxies without credentials, and whoever controls ${many ? 'their' : 'its'} DNS decides which addresses those are`,
  twinsRefused: 'host names are case-insensitive',
};

export const PROXIES: AccessKind = {
  collection: 'proxies',
  noun: { one: 'proxy', many: 'proxies' },
  listAttribute: 'proxies',
  show: (v) => String(v),
  key: (v) => str(v),
  // A proxy is matched by its configured form; `domain` (the listing's) when the provider resolved it.
  entryKey: (v) => str(v.domain) ?? str(v.proxy),
  entryKeyAttributes: ['domain', 'proxy'],
  // `domain` is computed: a new or replaced entry's is known only after apply, its `proxy` is not.
  entryKeyStandIns: { domain: 'proxy' },
  written: (v) => str(v.proxy),
  removedKey: (shown) => shown,
  // Either key may be a form (`us-ny`, `us-ny.proxy.example.net`) of the other's `domain:port`.
  sameKey: (a, b) => proxyFormOf(a, b) || proxyFormOf(b, a),
  entryShown: (v) => str(v.proxy),
  live: (a) => [...a.proxies],
  liveKey: String,
  entryAttributes: (e) => [['proxy', String(e)]],
  entryName: (_owner, key) => ['proxy', key],
};

/** True when a proxy form (bare host, full domain or domain:port) stands for `listed` (a `domain:port`, or the same form). */
function proxyFormOf(form: string, listed: string): boolean {
  const f = form.toLowerCase();
  if (f === listed.toLowerCase()) return true;
  const domain = listed.replace(/:\d+$/, '').toLowerCase();
  const host = f.replace(/:\d+$/, '');
  return host.includes('.') ? host === domain : host === domain.split('.')[0];
}
