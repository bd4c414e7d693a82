// proxyaccount_authorized_ips: the authoritative list of authorized IPs of one account. It owns
// the whole list: entries not declared are removed, and entries added outside Terraform show as
// drift. Do not combine it with proxyaccount_authorized_ip for the same account.
import type { LabeledIp } from '../../sdk';
import {
  attr,
  defineSchema,
  ipv4,
  isNotFound,
  isUnknown,
  requiresReplace,
  useStateForUnknown,
  validator,
  type Model,
  type ResourceContext,
  type ResourceDefinition,
} from '../framework';
import {
  accountId,
  deleteListUnlessAccountGone,
  importAccountList,
  ownerPhrase,
  targetOf,
  usernameValidators,
} from './account-id';
import { syncList, type ListOp } from './list-sync';

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
      description: 'Sub-account whose list this is (the provider must authenticate as its parent). Omit it for the provider\'s own account. Changing it replaces the resource.',
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
          validators: [entryLabel()],
        }),
      },
      {
        description: `Every authorized IP of the account, at most ${MAX_IPS}, each address once. An empty set removes them all.`,
        required: true,
        validators: [atMostIps(), uniqueIps()],
      },
    ),
  },
});

/** The state of a `proxyaccount_authorized_ips`. */
export type AuthorizedIpsModel = Model<typeof schema>;

/** The `proxyaccount_authorized_ips` resource. */
export const authorizedIpsResource = {
  typeName: 'proxyaccount_authorized_ips',
  displayName: 'authorized IP list',
  describe: (m) => `authorized IP list ${ownerPhrase(m.username ?? null)}`,
  schema,

  modifyPlan(_ctx, { prior, planned }) {
    // The ID follows from username alone, so a new list shows it in the plan already.
    if (prior === null && !isUnknown(planned.username)) return { planned: { id: accountId(planned.username) } };
    return undefined;
  },

  async create(ctx, { planned }) {
    const r = await sync(ctx, planned.username, planned.entries, 'create');
    // A create that changed nothing before failing saves nothing.
    if (r === undefined || (!r.changed && ctx.diagnostics.hasErrors())) return undefined;
    return { id: accountId(planned.username), username: planned.username, entries: r.entries };
  },

  async read(ctx, { state }) {
    let remote: readonly LabeledIp[];
    try {
      remote = await ctx.data.reader.listIps(targetOf(state.username));
    } catch (err) {
      // The sub-account, and with it its list, is gone.
      if (isNotFound(err)) return null;
      throw err;
    }
    return { id: accountId(state.username), username: state.username, entries: remote.map(toEntry) };
  },

  async update(ctx, { planned }) {
    const r = await sync(ctx, planned.username, planned.entries, 'update');
    if (r === undefined) return undefined;
    return { id: accountId(planned.username), username: planned.username, entries: r.entries };
  },

  async delete(ctx, { prior }) {
    await deleteListUnlessAccountGone(() => sync(ctx, prior.username, [], 'delete'));
  },

  async import(ctx, id) {
    return importAccountList(ctx, id);
  },
} satisfies ResourceDefinition<typeof schema>;

/**
 * Makes the remote list equal `desired`. Returns the entries state should hold: `desired` when
 * every write succeeded, else the list as it now is (with the errors reported); `changed` says
 * whether any write took effect. Undefined after an error when nothing was attempted.
 */
async function sync(
  ctx: ResourceContext,
  username: string | null,
  desired: readonly Entry[],
  operation: 'create' | 'update' | 'delete',
): Promise<{ entries: Entry[]; changed: boolean } | undefined> {
  const { client, reader } = ctx.data;
  const target = targetOf(username);
  const dup = duplicateIp(desired);
  if (dup !== undefined) {
    // Validation catches this unless entries were unknown then.
    ctx.diagnostics.addError(`Unable to ${operation} authorized IP list`, `IP ${dup} is declared more than once in entries; each IP may appear once.`, [{ attributeName: 'entries' }]);
    return undefined;
  }
  const want = new Map(desired.map((e) => [e.ip, e.label ?? '']));
  const write = (run: () => Promise<unknown>) => () => reader.write('ips', target, run).then(() => undefined);

  const outcome = await syncList<LabeledIp>(ctx, {
    operation,
    displayName: 'authorized IP list',
    object: `authorized IP list ${ownerPhrase(username)}`,
    fresh: () => {
      reader.invalidate('ips', target);
      return reader.listIps(target);
    },
    diff(before) {
      const have = new Map(before.map((e) => [e.ip, e.label]));
      const ops: ListOp[] = [];
      for (const [ip, label] of have) {
        // A label cannot be edited: the address is removed and added again with the new one.
        if (want.get(ip) !== label) {
          ops.push({ kind: 'remove', key: ip, value: ip, description: `remove IP '${ip}'`, run: write(() => client.ips.delete({ ip, username: target }, { signal: ctx.signal })) });
        }
      }
      for (const [ip, label] of want) {
        if (have.get(ip) !== label) {
          const input = { ip, username: target, ...(label === '' ? {} : { label }) };
          ops.push({ kind: 'add', key: ip, value: ip, description: `add IP '${ip}'`, run: write(() => client.ips.add(input, { signal: ctx.signal })) });
        }
      }
      return ops;
    },
    replay(before, done) {
      const list = new Map(before.map((e) => [e.ip, e.label]));
      for (const op of done) if (op.kind === 'remove') list.delete(op.key);
      for (const op of done) if (op.kind === 'add') list.set(op.key, want.get(op.key) ?? '');
      return [...list].map(([ip, label]) => ({ ip, label }));
    },
  });
  if (outcome.ok) return { entries: desired.map((e) => ({ ip: e.ip, label: e.label })), changed: outcome.changed };
  return { entries: outcome.remote.map(toEntry), changed: outcome.changed };
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
