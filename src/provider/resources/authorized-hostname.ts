// proxyaccount_authorized_hostname: one authorized hostname of the authenticated account or of
// a sub-account. The API cannot edit an entry, so every change replaces it. Reads go through the
// coalescing reader: refreshing many hostnames of one account costs one listing.
import { reportAlreadyExists } from '../access/already-exists';
import { keepIfOutcomeUnknown } from '../access/unknown-outcome';
import { entryId, entryIdMismatch, parseImportId, validationProblem } from '../access/entry-ids';
import { isHostname, trailingDotAdvice } from '../access/list-syntax';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, requiresReplace, useStateForUnknown, validator, type Model, type Validator } from '../framework';
import type { Resource } from '../types';

/**
 * A DNS host name: dot-separated labels of letters, digits and inner hyphens, ≤ 253 characters,
 * not an IP address in any form (the list resource's rule, list-syntax.ts `isHostname`).
 */
function hostname(): Validator<string> {
  return validator<string>('a host name such as app.example.com', (v) => {
    if (isHostname(v)) return undefined;
    // The numeric-label rule would only mislead about a name whose one fault is the dot.
    const advice = trailingDotAdvice(v, isHostname);
    if (advice !== '') return `must be a host name such as app.example.com (got ${JSON.stringify(v)})${advice}`;
    return `must be a host name such as app.example.com: labels of letters, digits and inner hyphens joined by dots, at most 253 characters, not an IP address: a numeric last label such as 7 or 0x1f makes one (got ${JSON.stringify(v)})`;
  });
}

const schema = defineSchema({
  description:
    'An authorized hostname of the authenticated account or of a sub-account. Do not combine with `proxyaccount_authorized_hostnames` for the same account.',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The hostname, prefixed with `USERNAME/` for a sub-account (e.g. `ci.example.com` or `alice/ci.example.com`); also the import ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    domain: attr.string({
      description: 'The host name, e.g. `ci.example.com`. Changing it replaces the entry.',
      markdown: true,
      required: true,
      validators: [hostname()],
      planModifiers: [requiresReplace()],
    }),
    username: attr.string({
      description: 'The sub-account the hostname is authorized for; omit it for the authenticated account. Changing it replaces the entry.',
      optional: true,
      validators: usernameValidators(),
      planModifiers: [requiresReplace()],
    }),
  },
});

/** The state of a `proxyaccount_authorized_hostname`. */
export type AuthorizedHostnameModel = Model<typeof schema>;

const TYPE_NAME = 'proxyaccount_authorized_hostname';

/** The `proxyaccount_authorized_hostname` resource. */
export const authorizedHostnameResource = {
  typeName: TYPE_NAME,
  displayName: 'authorized hostname',
  describe: (m) => describeHostname(m.domain ?? m.id ?? '', m.username ?? null),
  schema,

  checkState: (state) => entryIdMismatch(state, 'domain', state.domain),

  async create(ctx, { planned }) {
    const { domain, username } = planned;
    const made = { id: entryId(username, domain), domain, username };
    return keepIfOutcomeUnknown(ctx, 'Unable to create authorized hostname', describeHostname(domain, username), made, async () => {
      if ((await ctx.data.account(username).hostnames.add(domain)) === 'unchanged') {
        reportAlreadyExists(ctx, 'Unable to create authorized hostname', describeHostname(domain, username), TYPE_NAME, entryId(username, domain));
        return undefined;
      }
      return made;
    });
  },

  async read(ctx, { state }) {
    if ((await ctx.data.account(state.username).hostnames.find(state.domain)) === undefined) return null;
    // The configured spelling stays, even if the API changed its case.
    return { id: entryId(state.username, state.domain), domain: state.domain, username: state.username };
  },

  async delete(ctx, { prior }) {
    const hostnames = ctx.data.account(prior.username).hostnames;
    // Read adopts an entry differing only in case: delete the spelling the API lists, which an
    // API matching with case needs. None listed (or the sub-account is gone): already deleted.
    const listed = await hostnames.find(prior.domain);
    if (listed !== undefined) await hostnames.delete(listed);
  },

  async import(ctx, id) {
    const parsed = parseImportId(ctx, id, '"HOSTNAME" or "USERNAME/HOSTNAME" (e.g. ci.example.com or alice/ci.example.com)', (domain) =>
      validationProblem(schema.attributes.domain, 'domain', domain),
    );
    if (parsed === undefined) return undefined;
    return { id: entryId(parsed.username, parsed.entry), domain: parsed.entry, username: parsed.username };
  },
} satisfies Resource<typeof schema>;

function describeHostname(domain: string, username: string | null): string {
  return `authorized hostname '${domain}'${username === null ? '' : ` of sub-account '${username}'`}`;
}
