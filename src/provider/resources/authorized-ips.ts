// proxyaccount_authorized_ips: the authoritative list of authorized IPs of one account. It owns
// the whole list: entries not declared are removed, and entries added outside Terraform show as
// drift. Do not combine it with proxyaccount_authorized_ip for the same account.
import type { LabeledIp } from '../../sdk';
import { accountId } from '../access/account-ids';
import { authoritativeList } from '../access/authoritative-list';
import { labelFromRemote } from '../access/labels';
import { listPlanValues, REMOVED_ENTRIES_ATTRIBUTE } from '../access/list-schema';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, ipv4, noControlCharacters, requiresReplace, useStateForUnknown, validator, type Model } from '../framework';
import type { Resource } from '../types';
import { sameText } from '../../util/text';

/** The API's limit of authorized IPs per account. */
const MAX_IPS = 100;
const MAX_LABEL = 100;

type Entry = { ip: string; label: string | null };

const schema = defineSchema({
  description:
    'The complete list of authorized IP addresses of the provider\'s account or of one sub-account. Terraform owns the whole list: addresses not declared here are removed, and addresses added outside Terraform show up as drift. When `username` or `entries` is known only at apply, the plan cannot list what it removes: see the guide for what it shows and does instead. **Do not combine it with `proxyaccount_authorized_ip` for the same account** (they would undo each other\'s changes); see the guide "Migrating to authoritative lists".',
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
  entriesAttribute: 'entries',
  fromModel: (m) => ({ username: m.username ?? null, entries: m.entries ?? [], removed: m.removed_entries ?? null }),
  fromPlan: (m) => ({ username: m.username, entries: m.entries }),
  toModel: ({ username, entries, removed }) => ({
    id: accountId(username),
    username,
    entries: entries.map((e) => ({ ip: e.ip, label: e.label })),
    removed_entries: removed === null ? null : [...removed],
  }),
  toPlan: listPlanValues,
  access(store, username) {
    const ips = store.account(username).ips;
    return { list: () => ips.list(), fresh: () => ips.fresh(), add: (e) => ips.add(e.ip, e.label), remove: (r) => ips.delete(r.ip) };
  },
  entries: {
    noun: 'IP',
    // An address stands for the declared entry of the same address; a label cannot be edited,
    // so an entry with another label is removed and added again. Labels compare as Terraform
    // holds them: one the account keeps decomposed is the declared one, which the plan showed
    // unchanged.
    pair: (listed, declared) => declared.map((d) => listed.find((r) => r.ip === d.ip)),
    upToDate: (declared, listed) => sameText(declared.label ?? '', listed.label),
    listed: (e) => ({ ip: e.ip, label: e.label ?? '' }),
    key: (r) => r.ip,
    name: (r) => r.ip,
    shown: (r) => describeEntry(toEntry(r)),
    toState: (listed) => listed.map(toEntry),
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
  return { ip: e.ip, label: labelFromRemote(e.label) };
}

function duplicateIp(entries: ReadonlyArray<{ readonly ip: string | null } | null>): string | undefined {
  const seen = new Set<string>();
  for (const e of entries) {
    // Validation refuses a null entry or address before this runs; should one come anyway, it is no address.
    if (e === null || e.ip === null) continue;
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
  return validator<Array<Entry | null>>(`at most ${MAX_IPS} entries`, (v) =>
    v.length > MAX_IPS ? `must hold at most ${MAX_IPS} entries (the API's limit of authorized IPs per account), got ${v.length}` : undefined,
  );
}

function uniqueIps() {
  return validator<Array<Entry | null>>('each IP once', (v) => {
    const dup = duplicateIp(v);
    return dup === undefined ? undefined : `lists ${dup} more than once (with different labels); each IP may appear once`;
  });
}
