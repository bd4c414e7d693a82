// proxyaccount_authorized_ip: one authorized IPv4 address, with an optional label, of the
// authenticated account or of a sub-account. The API cannot edit an entry, so every change
// replaces it. Reads go through the coalescing reader: refreshing many IPs of one account
// costs one listing.
import { reportAlreadyExists } from '../access/already-exists';
import { keepIfOutcomeUnknown } from '../access/unknown-outcome';
import { entryId, entryIdMismatch, parseImportId, validationProblem } from '../access/entry-ids';
import { labelFromRemote, labelValidators } from '../access/labels';
import { usernameValidators } from '../access/usernames';
import { hasErrorCode } from '../errors';
import { attr, defineSchema, ipv4, ipv4Problem, isIpv4, requiresReplace, useStateForUnknown, type Model } from '../framework';
import type { WriteOutcome } from '../../account';
import type { Resource } from '../types';

/** Longest IP label: the API contract gives none, the SDK uses the token label's 100 characters. */
const LABEL_MAX = 100;

const schema = defineSchema({
  description:
    'An authorized IP address of the authenticated account or of a sub-account: proxy requests from it need no credentials. At most 100 per account. Do not combine with `proxyaccount_authorized_ips` for the same account.',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The IP address, prefixed with `USERNAME/` for a sub-account (e.g. `203.0.113.7` or `alice/203.0.113.7`); also the import ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    ip: attr.string({
      description: 'The IPv4 address in dotted-quad form without leading zeros, e.g. `203.0.113.7`. Changing it replaces the entry.',
      markdown: true,
      required: true,
      validators: [ipv4()],
      planModifiers: [requiresReplace()],
    }),
    label: attr.string({
      description:
        'A note shown beside the address, 1–100 characters; omit it for none (an empty string is refused). The API cannot edit labels, so changing it (also outside Terraform) replaces the entry.',
      optional: true,
      validators: labelValidators(LABEL_MAX),
      planModifiers: [requiresReplace()],
    }),
    username: attr.string({
      description: 'The sub-account the address is authorized for; omit it for the authenticated account. Changing it replaces the entry.',
      optional: true,
      validators: usernameValidators(),
      planModifiers: [requiresReplace()],
    }),
  },
});

/** The state of a `proxyaccount_authorized_ip`. */
export type AuthorizedIpModel = Model<typeof schema>;

const TYPE_NAME = 'proxyaccount_authorized_ip';

/** The `proxyaccount_authorized_ip` resource. */
export const authorizedIpResource = {
  typeName: TYPE_NAME,
  displayName: 'authorized IP',
  describe: (m) => describeIp(m.ip ?? m.id ?? '', m.username ?? null),
  schema,

  // An address no configuration or import could give (`198.51.100.02`, a hand edit) would be
  // looked up as written, found missing and created again, or its destroy find nothing to delete.
  checkState: (state) =>
    entryIdMismatch(state, 'ip', state.ip) ??
    (state.ip === null || isIpv4(state.ip)
      ? undefined
      : { attribute: 'ip', problem: `ip ${JSON.stringify(state.ip)} is not an IPv4 address in the form the provider writes: ${ipv4Problem(state.ip)}` }),

  async create(ctx, { planned }) {
    const { ip, label, username } = planned;
    const ips = ctx.data.account(username).ips;
    const made = { id: entryId(username, ip), ip, label, username };
    return keepIfOutcomeUnknown(ctx, 'Unable to create authorized IP', describeIp(ip, username), made, async () => {
      let outcome: WriteOutcome;
      try {
        outcome = await ips.add(ip, label);
      } catch (err) {
        // Listed with another label: a 400 like any form error, which only the listing tells apart.
        if (!hasErrorCode(err, 'ERR_VALIDATION') || (await ips.find(ip)) === undefined) throw err;
        outcome = 'unchanged';
      }
      if (outcome === 'unchanged') {
        reportAlreadyExists(ctx, 'Unable to create authorized IP', describeIp(ip, username), TYPE_NAME, entryId(username, ip));
        return undefined;
      }
      return made;
    });
  },

  async read(ctx, { state }) {
    const found = await ctx.data.account(state.username).ips.find(state.ip);
    if (found === undefined) return null;
    return { id: entryId(state.username, state.ip), ip: state.ip, label: labelFromRemote(found.label), username: state.username };
  },

  async delete(ctx, { prior }) {
    await ctx.data.account(prior.username).ips.delete(prior.ip);
  },

  async import(ctx, id) {
    const parsed = parseImportId(ctx, id, '"IP" or "USERNAME/IP" (e.g. 203.0.113.7 or alice/203.0.113.7)', (ip) =>
      validationProblem(schema.attributes.ip, 'ip', ip),
    );
    if (parsed === undefined) return undefined;
    return { id: entryId(parsed.username, parsed.entry), ip: parsed.entry, username: parsed.username };
  },
} satisfies Resource<typeof schema>;

function describeIp(ip: string, username: string | null): string {
  return `authorized IP '${ip}'${username === null ? '' : ` of sub-account '${username}'`}`;
}
