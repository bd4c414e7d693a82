// proxyaccount_authorized_ips: the authoritative list of authorized IPs of one account. It owns
// the whole list: entries not declared are removed, and entries added outside Terraform show as
// drift. Do not combine it with proxyaccount_authorized_ip for the same account.
import type { LabeledIp } from '../../sdk';
import type { ListOp } from '../access/list-sync';
import { authoritativeList } from '../access/authoritative-list';
import { REMOVED_ENTRIES_ATTRIBUTE } from '../access/list-schema';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, ipv4, noControlCharacters, requiresReplace, useStateForUnknown, validator, type Model } from '../framework';
import type { Resource } from '../types';

/** The API's limit of authorized IPs per account. */
const MAX_IPS = 100;
const MAX_LABEL = 100;

type Entry = { ip: string; label: string | null };

const schema = defineSchema({
  description:
    'The complete list of authorized IP addresses of the provider\'s account or of one sub-account. Terraform owns the whole list: addresses not declared here are removed, and addresses added outside Terraform show up as drift. **Do not combine it with `proxyaccount_authorized_ip` for the same account** (they would undo each other\'s changes); see the guide "Migrating to authoritative lists".',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The sub-account username, or `_self` for the account the provider authenticates as. Import uses the same ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    username: attr.string({
      description:
        "Sub-account whose list this is (the provider must authenticate as its parent). Omit it for the provider's own account. Changing it replaces the resource.",
      optional: true,
      validators: usernameValidators(),
      planModifiers: [requiresReplace()],
    }),
    entries: attr.setNested(
      {
        ip: attr.string({
          description: 'IPv4 address in dotted-quad form, e.g. `203.0.113.7`.',
          markdown: true,
          required: true,
          validators: [ipv4()],
        }),
        label: attr.string({
          description: 'Optional label, 1–100 characters. Changing it removes and re-adds the address.',
          optional: true,
          validators: [entryLabel(), noControlCharacters()],
        }),
      },
      {
        description: `Every authorized IP of the account, at most ${MAX_IPS}, each address once. An empty set removes them all.`,
        required: true,
        validators: [atMostIps(), uniqueIps()],
      },
    ),
    removed_entries: REMOVED_ENTRIES_ATTRIBUTE,
  },
});

/** The state of a `proxyaccount_authorized_ips`. */
export type AuthorizedIpsModel = Model<typeof schema>;

/** The `proxyaccount_authorized_ips` resource. */
export const authorizedIpsResource: Resource<typeof schema> = authoritativeList<typeof schema, Entry, LabeledIp>({
  typeName: 'proxyaccount_authorized_ips',
  displayName: 'authorized IP list',
  schema,
  parentOnly: false,
  entriesOf: (m) => m.entries,
  model: (username, entries, removed) => ({
    id: username ?? '_self',
    username,
    entries: entries.map((e) => ({ ip: e.ip, label: e.label })),
    removed_entries: removed === null ? null : [...removed],
  }),
  list: (store, username, fresh) => (fresh ? store.account(username).ips.fresh() : store.account(username).ips.list()),
  toState: (remote) => remote.map(toEntry),
  removals: (remote, desired) => {
    const keep = new Set(desired.map((e) => e.ip));
    return remote.filter((e) => !keep.has(e.ip)).map((e) => describeEntry(toEntry(e)));
  },
  dropped: (before, desired) => {
    const keep = new Set(desired.map((e) => e.ip));
    return before.filter((e) => !keep.has(e.ip)).map(describeEntry);
  },
  diff(store, username, before, desired) {
    const ips = store.account(username).ips;
    const want = new Map(desired.map((e) => [e.ip, e.label ?? '']));
    const have = new Map(before.map((e) => [e.ip, e.label]));
    const ops: ListOp[] = [];
    for (const [ip, label] of have) {
      // A label cannot be edited: the address is removed and added again with the new one.
      if (want.get(ip) !== label)
        ops.push({ kind: 'remove', key: ip, value: ip, description: `remove IP '${ip}'`, run: async () => void (await ips.delete(ip)) });
    }
    for (const [ip, label] of want) {
      if (have.get(ip) !== label) {
        ops.push({ kind: 'add', key: ip, value: ip, description: `add IP '${ip}'`, run: async () => void (await ips.add(ip, label === '' ? null : label)) });
      }
    }
    return ops;
  },
  replay(before, done, desired) {
    const want = new Map(desired.map((e) => [e.ip, e.label ?? '']));
    const list = new Map(before.map((e) => [e.ip, e.label]));
    for (const op of done) if (op.kind === 'remove') list.delete(op.key);
    for (const op of done) if (op.kind === 'add') list.set(op.key, want.get(op.key) ?? '');
    return [...list].map(([ip, label]) => ({ ip, label }));
  },
  problem(desired) {
    // Validation catches this unless entries were unknown then.
    const dup = duplicateIp(desired);
    return dup === undefined ? undefined : `IP ${dup} is declared more than once in entries; each IP may appear once.`;
  },
});

/** An entry as plans and warnings show it. */
function describeEntry(e: Entry): string {
  return e.label === null ? e.ip : `${e.ip} (${e.label})`;
}

/** The API's "" (no label) is null in state, matching an omitted label. */
function toEntry(e: LabeledIp): Entry {
  return { ip: e.ip, label: e.label === '' ? null : e.label };
}

function duplicateIp(entries: readonly { ip: string }[]): string | undefined {
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.ip)) return e.ip;
    seen.add(e.ip);
  }
  return undefined;
}

// Terraform cannot address one element of a set, so these errors sit on `entries`; the message
// names the element instead.
function entryLabel() {
  return validator<string>(`1 to ${MAX_LABEL} characters; omit it for no label`, (v, ctx) => {
    const ip = ctx.siblings['ip'];
    const where = typeof ip === 'string' ? `of the entry for ${ip} ` : '';
    const n = [...v].length;
    if (n === 0) return `${where}must not be empty: omit label for no label`;
    return n > MAX_LABEL ? `${where}must be at most ${MAX_LABEL} characters long, got ${n}` : undefined;
  });
}

function atMostIps() {
  return validator<Entry[]>(`at most ${MAX_IPS} entries`, (v) =>
    v.length > MAX_IPS ? `must hold at most ${MAX_IPS} entries (the API's limit of authorized IPs per account), got ${v.length}` : undefined,
  );
}

function uniqueIps() {
  return validator<Entry[]>('each IP once', (v) => {
    const dup = duplicateIp(v);
    return dup === undefined ? undefined : `lists ${dup} more than once (with different labels); each IP may appear once`;
  });
}
