// The access-list types: an authorized IP, hostname or proxy, one per resource ("entry") or the
// whole list of one account ("list", authoritative: what it does not declare is removed).
import { forgottenRisk } from './account-types';
import { ACCOUNT_LIST_ID, entryIdFormat, PROXY_ID } from './import-ids';
import { type AccessKind, HOSTNAMES, IPS, PROXIES } from './access-kinds';
import type { ChangeView, ExportBlock, ExportValue, ImportIdFormat, LiveAccountView, Owner, ResourceTypeDescriptor, Risk, Values } from './types';
import { accountPhrase, counted, movesAccount, sign, subjectValues, verb } from './words';

/** A list's entries as messages show them; undefined when the plan does not show them. */
function listEntries(k: AccessKind, v: Values): string[] | undefined {
  return keyedEntries(k, v)?.map((e) => e.shown);
}

/**
 * What a list change adds and removes in its account. A list removes what the account has and it
 * does not declare: the provider plans those in `removed_entries`, for a new list (also one
 * replaced onto another account) and for an update of its entries, which may remove what the
 * entries alone do not show (an entry added outside Terraform, a proxy written at another port
 * than the account lists it). Replaced onto another account, its old entries are the other
 * account's (see {@link leavingRisks}), so it is read as a new list. Undefined when the plan does
 * not show the entries (see {@link listHidden}).
 */
function listDelta(k: AccessKind, c: ChangeView): { added: Keyed[]; removed: string[]; changed: string[] } | undefined {
  const after = keyedEntries(k, c.after);
  const before = movesAccount(c) ? [] : (keyedEntries(k, c.before) ?? []);
  if (after === undefined && c.kind !== 'delete') return undefined;
  const a = after ?? [];
  // Entries are matched by key, in any of its forms (a proxy's `us-ny` is the listing's
  // `us-ny.proxy.example.net:8080`): a form or a label that changes adds and removes nothing.
  const same = (x: string, y: string): boolean => (k.sameKey ?? ((p: string, q: string) => p === q))(x, y);
  const twinIn = (list: readonly Keyed[], e: Keyed): Keyed | undefined => list.find((o) => same(o.key, e.key));
  const gone = before.filter((e) => twinIn(a, e) === undefined);
  const removed = gone.map((e) => e.shown);
  for (const r of plansRemovals(k, c) ? (plannedRemovals(c) ?? []) : []) {
    if (!gone.some((e) => same(e.key, k.removedKey(r)))) removed.push(r);
  }
  const added = a.filter((e) => twinIn(before, e) === undefined);
  // The same key shown otherwise (an IP's label), not a form of it.
  const changed = a.filter((e) => twinIn(before, e) !== undefined && !before.some((o) => o.shown === e.shown) && k.detail !== undefined).map((e) => e.shown);
  return { added, removed, changed };
}

interface Keyed {
  readonly key: string;
  readonly shown: string;
}

/** A list's entries with their keys; an entry whose key the plan does not show is keyed by how it shows. */
function keyedEntries(k: AccessKind, v: Values): Keyed[] | undefined {
  const raw = v[k.listAttribute];
  return Array.isArray(raw) ? raw.map((e) => ({ key: k.key(e) ?? k.show(e), shown: k.show(e) })) : undefined;
}

/** What the provider plans the change to remove (`removed_entries`), when the plan shows it; read apart from the entries. */
function plannedRemovals(c: ChangeView): string[] | undefined {
  if (c.unknown.has('removed_entries') || c.hidden.has('removed_entries') || c.hidden.has('*')) return undefined;
  const planned = c.after.removed_entries;
  return Array.isArray(planned) ? planned.map(String) : undefined;
}

/**
 * Whether the change's `removed_entries` are what applying it removes: a create's or a
 * replacement's, and an update's whose entries change (the provider plans them anew). An update
 * that leaves the entries as they are keeps the prior `removed_entries`, the latest change's, which
 * this one does not remove again.
 */
function plansRemovals(k: AccessKind, c: ChangeView): boolean {
  if (c.kind === 'create' || c.kind === 'replace') return true;
  return c.kind === 'update' && !sameEntries(c.before[k.listAttribute], c.after[k.listAttribute]);
}

/** Whether two lists hold the same entries in any order, as the provider compares them when it plans an update. */
function sameEntries(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return false;
  const keys = new Set(a.map((e) => JSON.stringify(e)));
  return a.length === b.length && b.every((e) => keys.has(JSON.stringify(e)));
}

/** True when the plan cannot say what applying the list leaves: its entries, or what it removes, are known only after apply. */
function listUnknown(k: AccessKind, c: ChangeView): boolean {
  if (c.kind === 'delete' || c.kind === 'forget' || c.kind === 'import') return false;
  if (c.unknown.has(k.listAttribute) || c.unknown.has('removed_entries')) return true;
  const raw = c.after[k.listAttribute];
  // An element with an unknown part is null in the plan's JSON.
  return Array.isArray(raw) && raw.some((e) => k.key(e) === undefined);
}

/**
 * True when the plan marks the list's entries sensitive (a label from a sensitive variable is
 * enough: Terraform then marks the whole list): the plan's JSON carries them, but a review never
 * shows what is marked sensitive, so what the list grants and keeps is not shown either.
 */
function listHidden(k: AccessKind, c: ChangeView): boolean {
  return c.hidden.has(k.listAttribute) || c.hidden.has('*');
}

/**
 * True when an update of a hidden list changes only whether its entries are marked sensitive
 * (Terraform: "The value is unchanged"): the plan reader compares hidden values without copying
 * them out, and neither the entries nor what the list removes change. Read as no change, as an
 * unchanged hidden `active` is.
 */
function onlyMarkingChanges(k: AccessKind, c: ChangeView): boolean {
  if (c.kind !== 'update' || c.hidden.has('*') || c.unknown.has(k.listAttribute) || c.unknown.has('removed_entries')) return false;
  if (c.secretsChanged.has(k.listAttribute) || c.secretsChanged.has('removed_entries')) return false;
  // An update whose entries do not change keeps the prior removed_entries (the last change's).
  const after = c.after.removed_entries;
  return (Array.isArray(after) && after.length === 0) || JSON.stringify(c.before.removed_entries ?? null) === JSON.stringify(after ?? null);
}

function shortList(items: readonly string[], empty: string): string {
  if (items.length === 0) return empty;
  const max = 6;
  const shown = items.slice(0, max);
  if (items.length > max) shown.push(`… ${items.length - max} more`);
  return shown.join(', ');
}

/**
 * The account's entries one list resource cannot hold together, as the provider refuses them
 * (`CI.Example.COM` and `ci.example.com`): a message naming every such group, or undefined.
 */
function refusedTwins(k: AccessKind, a: LiveAccountView): string | undefined {
  if (k.twinsRefused === undefined) return undefined;
  const byKey = new Map<string, string[]>();
  for (const e of k.live(a)) {
    const key = k.key(e) ?? k.liveKey(e);
    byKey.set(key, [...(byKey.get(key) ?? []), k.liveKey(e)]);
  }
  const twins = [...byKey.values()].filter((spellings) => spellings.length > 1);
  if (twins.length === 0) return undefined;
  const named = twins.map((spellings) => spellings.map((x) => JSON.stringify(x)).join(' and ')).join('; ');
  return (
    `--lists authoritative cannot write the ${k.noun.one} list of ${accountPhrase(a.username)}: it holds ${named}, ` +
    `spellings the provider takes for one ${k.noun.one} (${k.twinsRefused}), so it refuses the list. ` +
    `Export with --lists per-entry (it imports every spelling), or remove all but one spelling from the account`
  );
}

/** Whether a replacement's new object is written otherwise than its old one (both shown): another address, spelling or proxy. */
function keyChanged(k: AccessKind, c: ChangeView): boolean {
  const before = k.written(c.before);
  const after = k.written(c.after);
  return before !== undefined && after !== undefined && before !== after;
}

/** Whether an entry's state before and after is one key of the parent's (not a sub-account's, not moved). */
function sameParentEntry(k: AccessKind, before: Values, after: Values): boolean {
  const key = k.entryKey(before);
  return key !== undefined && key === k.entryKey(after) && before.username == null && after.username == null;
}

/** What the plan cannot show is read the worst way: any entry may go, and on the parent any may come. */
function worstReading(k: AccessKind, owner: Owner, why: string, newcomers: string): Risk[] {
  const out: Risk[] = [
    { kind: 'list_removes_entries', message: `the list of ${owner.phrase} ${why}: applying it may remove any ${k.noun.one} the account has` },
  ];
  if (k.opensParent !== undefined && owner.username === null) {
    out.push({ kind: 'parent_access_opened', message: k.opensParent(newcomers, true) });
  }
  return out;
}

/**
 * The risks of a list whose entries the plan marks sensitive: read the worst way, as a list known
 * only after apply is, and what the provider plans to remove (`removed_entries`, not sensitive
 * itself) named whenever the plan shows it. Destroying it removes every entry, whatever they are.
 */
function hiddenListRisks(k: AccessKind, c: ChangeView, owner: Owner): Risk[] {
  const why = 'has entries the plan marks sensitive, which this review does not show';
  if (c.kind === 'delete')
    return [
      {
        kind: 'list_removes_entries',
        message: `the list of ${owner.phrase} is destroyed: it removes every ${k.noun.one} it holds, which the plan marks sensitive`,
      },
    ];
  if (c.kind === 'import') return [];
  const removed = plannedRemovals(c) ?? [];
  return [
    ...(removed.length > 0 ? [{ kind: 'list_removes_entries' as const, message: `the list of ${owner.phrase} removes ${counted(k.noun, removed)}` }] : []),
    ...worstReading(k, owner, why, `${k.noun.many} the plan marks sensitive`),
  ];
}

/**
 * The risk of a list replaced while its old object is in another account (it moves, or its new
 * account is known only after apply): the destroy removes every entry it held from that account.
 */
function leavingRisks(k: AccessKind, c: ChangeView, owner: Owner): Risk[] {
  const left = owner.leaving;
  if (c.kind !== 'replace' || left === undefined) return [];
  const head = `the list of ${left.phrase} is replaced by one in ${owner.phrase}`;
  if (listHidden(k, c)) {
    return [{ kind: 'list_removes_entries', message: `${head}: it removes every ${k.noun.one} it held from ${left.phrase}, which the plan marks sensitive` }];
  }
  const gone = listEntries(k, c.before) ?? [];
  return gone.length === 0 ? [] : [{ kind: 'list_removes_entries', message: `${head}: it removes ${counted(k.noun, gone)} from ${left.phrase}` }];
}

/** A list in the words that name it: its entries, when the plan shows them. */
function listName(k: AccessKind, v: Values, c: ChangeView): string {
  if (listHidden(k, c)) return `${k.noun.one} list (its entries are marked sensitive: not shown)`;
  const entries = listEntries(k, v);
  return entries === undefined ? `${k.noun.one} list` : `${k.noun.one} list of ${counted(k.noun, entries)}`;
}

function userAttribute(a: LiveAccountView): Array<readonly [string, ExportValue]> {
  return a.username === null ? [] : [['username', a.username]];
}

function entryType(typeName: string, k: AccessKind, importId: ImportIdFormat): ResourceTypeDescriptor {
  return {
    typeName,
    noun: k.noun,
    shape: 'entry',
    collection: k.collection,
    ownerAttribute: 'username',
    importId,
    managedKeys: (v) => {
      const key = k.entryKey(v);
      return key === undefined ? [] : [key];
    },
    keyAttributes: k.entryKeyAttributes,
    ...(k.entryKeyStandIns === undefined ? {} : { keyStandIns: k.entryKeyStandIns }),
    writtenKey: k.written,
    ...(k.detail === undefined ? {} : { entryDetail: k.detail }),
    ...(k.sameKey === undefined ? {} : { sameKey: k.sameKey }),
    describeChange: (c) => {
      if (c.kind === 'update') {
        const change = `${k.noun.one} ${k.entryShown(c.before) ?? '?'} → ${k.entryShown(c.after) ?? '?'}`;
        // The same key with another detail: only a refresh finds that (an IP re-added by hand with another label).
        if (k.detail !== undefined && k.written(c.before) !== undefined && k.written(c.before) === k.written(c.after))
          return `${change}, the same ${k.noun.one} with another ${k.detail.replace(/^an? /, '')}`;
        // A planned update is a proxy written in another form of itself, which sends nothing.
        return `${change}, written another way (the same ${k.noun.one}: nothing is sent)`;
      }
      const shown = k.entryShown(subjectValues(c)) ?? '?';
      // A replacement to another key removes the old one from the account: named beside the new.
      const from = c.kind === 'replace' && keyChanged(k, c) ? `${k.entryShown(c.before) ?? '?'} → ` : '';
      return `${sign(c.kind)}${k.noun.one} ${from}${shown}${c.kind === 'replace' ? ' replaced' : c.kind === 'forget' ? ` ${verb(c.kind)}` : ''}`;
    },
    summarize: (v) => k.entryShown(v) ?? '',
    name: (v) => `${k.noun.one} ${k.entryShown(v) ?? '?'}`,
    risks: (c, owner) => {
      if (c.kind === 'forget') {
        return [
          forgottenRisk(
            `${k.noun.one} ${k.entryShown(c.before) ?? '?'} of ${owner.phrase}`,
            owner,
            `it stays authorized, and drift runs report it as unmanaged`,
          ),
        ];
      }
      // A replacement of the parent's entry by itself (an IP's label changed) opens nothing new,
      // nor a key another change of the plan removes from the parent or forgets there.
      const key = k.entryKey(c.after);
      const reopened = (c.kind === 'replace' && sameParentEntry(k, c.before, c.after)) || (key !== undefined && owner.openAlready?.(key) === true);
      return k.opensParent !== undefined && owner.username === null && (c.kind === 'create' || c.kind === 'replace') && !reopened
        ? [{ kind: 'parent_access_opened', message: k.opensParent(`${k.noun.one} ${k.entryShown(c.after) ?? '?'}`, false) }]
        : [];
    },
    export: {
      lists: 'per-entry',
      blocks: (a) =>
        k.live(a).map((e): ExportBlock => {
          const key = k.liveKey(e);
          return {
            name: k.entryName(a.username ?? 'self', key),
            importId: importId.format(a.username, key),
            attributes: [...k.entryAttributes(e), ...userAttribute(a)],
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
    keyAttributes: [k.listAttribute],
    ...(k.detail === undefined ? {} : { entryDetail: k.detail }),
    ...(k.sameKey === undefined ? {} : { sameKey: k.sameKey }),
    entries: (v) => listEntries(k, v),
    removedKeys: (v) =>
      Array.isArray(v.removed_entries) ? v.removed_entries.filter((e): e is string => typeof e === 'string').map((e) => k.removedKey(e)) : undefined,
    describeChange: (c) => {
      if (c.kind === 'import') return `${noun} list imported`;
      if (c.kind === 'delete') return `${noun} list no longer managed (destroying it removes every entry)`;
      if (listHidden(k, c) && c.kind !== 'forget') {
        if (onlyMarkingChanges(k, c)) return `${noun} list changed (only whether its entries are marked sensitive: they are unchanged, and not shown)`;
        const removed = plannedRemovals(c) ?? [];
        return `${noun} list ${verb(c.kind)} (its entries are marked sensitive: not shown)${removed.length > 0 ? `, −${counted(k.noun, removed)}` : ''}`;
      }
      const d = listDelta(k, c);
      if (d === undefined) return `${noun} list ${verb(c.kind)}`;
      const added = d.added.map((e) => e.shown);
      const parts = [
        ...(added.length > 0 ? [`+${counted(k.noun, added)}`] : []),
        ...(d.removed.length > 0 ? [`−${counted(k.noun, d.removed)}`] : []),
        // The same keys with another detail (an IP's label), as Terraform marks an update.
        ...(d.changed.length > 0 ? [`~${counted(k.noun, d.changed)}`] : []),
      ];
      return parts.length > 0 ? parts.join(', ') : `${noun} list ${verb(c.kind)}`;
    },
    summarize: (v) => {
      const entries = listEntries(k, v);
      return entries === undefined ? '' : shortList(entries, `no ${k.noun.many}`);
    },
    name: (v, c) => listName(k, v, c),
    risks: (c, owner: Owner) => {
      if (c.kind === 'forget')
        return [forgottenRisk(`the ${noun} list of ${owner.phrase}`, owner, `its entries stay authorized, and drift runs report them as unmanaged`)];
      if (listHidden(k, c)) return onlyMarkingChanges(k, c) ? [] : [...leavingRisks(k, c, owner), ...hiddenListRisks(k, c, owner)];
      const out: Risk[] = [...leavingRisks(k, c, owner)];
      const d = listDelta(k, c);
      if (d !== undefined && d.removed.length > 0)
        out.push({ kind: 'list_removes_entries', message: `the list of ${owner.phrase} removes ${counted(k.noun, d.removed)}` });
      // What another change of the plan removes from the parent or forgets there had its access already.
      const opened = d?.added.filter((e) => owner.openAlready?.(e.key) !== true).map((e) => e.shown) ?? [];
      if (k.opensParent !== undefined && owner.username === null && opened.length > 0) {
        out.push({ kind: 'parent_access_opened', message: k.opensParent(counted(k.noun, opened), opened.length > 1) });
      }
      if (listUnknown(k, c)) out.push(...worstReading(k, owner, 'is known only after apply', `${k.noun.many} known only after apply`));
      return out;
    },
    export: {
      lists: 'authoritative',
      blocks: (a) => {
        const refused = refusedTwins(k, a);
        if (refused !== undefined) throw new Error(refused);
        // Proxies belong to the parent: a sub-account has no proxy list.
        return k === PROXIES && a.username !== null
          ? []
          : [
              {
                name: k === PROXIES ? ['proxies'] : [a.username ?? 'self', k.collection],
                importId: ACCOUNT_LIST_ID.format(a.username, ''),
                attributes: [...userAttribute(a), [k.listAttribute, k.live(a)]],
              },
            ];
      },
    },
  };
}

/** The six access-list types. */
export const ACCESS_TYPES: readonly ResourceTypeDescriptor[] = [
  entryType('proxyaccount_authorized_ip', IPS, entryIdFormat('IP', '203.0.113.7')),
  listType('proxyaccount_authorized_ips', IPS),
  entryType('proxyaccount_authorized_hostname', HOSTNAMES, entryIdFormat('HOSTNAME', 'ci.example.com')),
  listType('proxyaccount_authorized_hostnames', HOSTNAMES),
  entryType('proxyaccount_authorized_proxy', PROXIES, PROXY_ID),
  listType('proxyaccount_authorized_proxies', PROXIES),
];
