// proxyaccount_authorized_proxy: one proxy server the parent account may use. The user writes
// the proxy in any form the API accepts (bare host, full domain or `domain:port`); the add
// response gives the full domain and the listing shows `domain:port`, so reads match listing
// entries by host. Reads go through the coalescing reader (one listing per refresh).
import { validationProblem } from '../access/entry-ids';
import { bareHostPortAdvice, listedAtOtherPort, otherPortProblem, trailingDotAdvice } from '../access/list-syntax';
import { missingId } from '../access/state-ids';
import { keepIfOutcomeUnknown } from '../access/unknown-outcome';
import { hasErrorCode, isProxyAccountError } from '../errors';
import type { AccountStore } from '../../account';
import { attr, defineSchema, isKnown, type ModifyPlanContext, useStateForUnknown, validator, type Model, type Validator } from '../framework';
import type { Ctx, Resource } from '../types';

const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const BARE_HOST = new RegExp(`^${HOST_LABEL}$`);
const FULL_DOMAIN = new RegExp(`^${HOST_LABEL}(?:\\.${HOST_LABEL})+$`);
const WITH_PORT = new RegExp(`^(${HOST_LABEL}(?:\\.${HOST_LABEL})+):([0-9]{1,5})$`);

/** True for the three forms the API contract accepts: `us-ny`, `us-ny.proxy.example.net`, `us-ny.proxy.example.net:8080`. */
function isProxyForm(v: string): boolean {
  const port = WITH_PORT.exec(v)?.[2];
  return v.length <= 260 && (BARE_HOST.test(v) || FULL_DOMAIN.test(v) || (port !== undefined && Number(port) >= 1 && Number(port) <= 65535));
}

/** One of the forms {@link isProxyForm} accepts; the message says what to write for a trailing dot or a bare host given a port. */
function proxyForm(): Validator<string> {
  return validator('a bare host, a full domain or domain:port', (v) => {
    if (isProxyForm(v)) return undefined;
    const advice = trailingDotAdvice(v, isProxyForm) || bareHostPortAdvice(v, isProxyForm);
    return `must be a bare proxy host (us-ny), a full domain (us-ny.proxy.example.net) or domain:port (us-ny.proxy.example.net:8080) with a port from 1 to 65535 (got ${JSON.stringify(v)})${advice}`;
  });
}

const schema = defineSchema({
  description:
    'An authorized proxy of the parent account (sub-account credentials cannot manage proxies). Adding a proxy that is already authorized changes nothing, so destroying this resource removes the proxy even if it was authorized before. Do not combine with `proxyaccount_authorized_proxies`.',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The proxy as configured (same as `proxy`); also the import ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    proxy: attr.string({
      description:
        'The proxy, in any form the API accepts: a bare host (`us-ny`), a full domain (`us-ny.proxy.example.net`) or `domain:port` (`us-ny.proxy.example.net:8080`). Kept as written. A `domain:port` whose domain the account lists at another port is refused at plan, naming the listed form (the API refuses it). Changing it to another form of the same proxy updates it in place, with no request; to another proxy, replaces the entry.',
      markdown: true,
      required: true,
      validators: [proxyForm()],
    }),
    domain: attr.string({
      description: 'The full domain of the proxy as the API reports it, e.g. `us-ny.proxy.example.net`.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
  },
});

/** The state of a `proxyaccount_authorized_proxy`. */
export type AuthorizedProxyModel = Model<typeof schema>;

/** The `proxyaccount_authorized_proxy` resource. */
export const authorizedProxyResource = {
  typeName: 'proxyaccount_authorized_proxy',
  displayName: 'authorized proxy',
  describe: (m) => `authorized proxy '${m.proxy ?? m.id ?? ''}'`,
  schema,

  checkState(state) {
    // Reads and deletes act on `domain` (else `proxy`): both must name the proxy of the id.
    if (state.id === null) return missingId(state);
    if (state.proxy === null) {
      return { attribute: 'proxy', problem: `proxy is missing, while id ${JSON.stringify(state.id)} names a proxy` };
    }
    if (state.id !== state.proxy) {
      return { attribute: 'proxy', problem: `proxy ${JSON.stringify(state.proxy)} does not match id ${JSON.stringify(state.id)}` };
    }
    if (state.domain !== null && state.proxy !== null && !namesDomain(state.proxy, state.domain)) {
      return { attribute: 'domain', problem: `domain ${JSON.stringify(state.domain)} is not the domain of proxy ${JSON.stringify(state.proxy)}` };
    }
    return undefined;
  },

  // Another form of the same proxy is the same object: an in-place update that sends nothing. As
  // a replacement it would delete the proxy and add it again, or, with create_before_destroy, add
  // it (which changes nothing) and then delete it, leaving the account without it.
  async modifyPlan(ctx, { prior, planned }) {
    if (prior !== null && planned.proxy === prior.proxy) return undefined;
    if (isKnown(planned.proxy) && ctx.data !== undefined && (await refusedPort(ctx, ctx.data, planned.proxy, prior === null))) return undefined;
    if (prior === null) return undefined;
    const same = isKnown(planned.proxy) && ctx.data !== undefined && (await sameProxy(ctx.data, prior, planned.proxy));
    return same ? { planned: { id: planned.proxy, domain: prior.domain } } : { requiresReplace: ['proxy'] };
  },

  async create(ctx, { planned }) {
    const { proxy } = planned;
    // Kept (tainted) when the outcome stays unknown; the next refresh resolves `domain`, as after import.
    const mayExist: AuthorizedProxyModel = { id: proxy, proxy, domain: null };
    return keepIfOutcomeUnknown(ctx, 'Unable to create authorized proxy', `authorized proxy '${proxy}'`, mayExist, async () => ({
      id: proxy,
      proxy,
      domain: await ctx.data.proxies.add(proxy),
    }));
  },

  async read(ctx, { state }) {
    const found = await findProxy(ctx, state.proxy, state.domain);
    if (found === undefined) return null;
    // Keep the known spelling when only the case differs: DNS names compare without case.
    const domain = state.domain !== null && state.domain.toLowerCase() === found.domain.toLowerCase() ? state.domain : found.domain;
    return { id: state.proxy, proxy: state.proxy, domain };
  },

  // Only another form of the same proxy (see modifyPlan): the state takes the new form.
  async update(_ctx, { prior, planned }) {
    return { id: planned.proxy, proxy: planned.proxy, domain: prior.domain };
  },

  async delete(ctx, { prior }) {
    try {
      // Deleting a proxy that is not authorized changes nothing (the API contract), so a retry is safe.
      await ctx.data.proxies.delete(prior.domain ?? prior.proxy);
    } catch (err) {
      // 400 means the API no longer recognizes the proxy; if the listing has no such entry, it
      // is gone either way.
      if (!hasErrorCode(err, 'ERR_VALIDATION') || (await findProxy(ctx, prior.proxy, prior.domain)) !== undefined) throw err;
    }
  },

  async import(ctx, id) {
    const proxy = id.trim();
    const problem = validationProblem(schema.attributes.proxy, 'proxy', proxy);
    if (problem !== undefined) {
      ctx.diagnostics.addError(
        'Invalid import ID',
        `Expected the proxy as a bare host, full domain or domain:port (e.g. us-ny, us-ny.proxy.example.net or us-ny.proxy.example.net:8080), got ${JSON.stringify(id)}: ${problem.replace(/\.$/, '')}.`,
      );
      return undefined;
    }
    // `domain` is resolved against the listing by read.
    return { id: proxy, proxy };
  },
} satisfies Resource<typeof schema>;

/**
 * Refuses, with an error on `proxy`, a `domain:port` whose domain the account lists at another
 * port: the API refuses it, and replacing the entry would delete the proxy before that add fails.
 * True when refused. A form without a port reads nothing.
 */
async function refusedPort(ctx: ModifyPlanContext<AccountStore, 'proxy'>, data: AccountStore, proxy: string, isNew: boolean): Promise<boolean> {
  if (!proxy.includes(':')) return false;
  let listing: readonly string[];
  try {
    listing = await data.proxies.list();
  } catch (err) {
    // A new entry read nothing at plan before this check: a listing the API fails to give leaves
    // its port unchecked (its add, which removes nothing, is refused at apply if it is wrong).
    // Credentials refused, or a stop, still fail the plan.
    if (!isNew || !uncheckedOn(err)) throw err;
    ctx.diagnostics.addAttributeWarning(
      'proxy',
      'Proxy port not checked',
      `The account's proxy listing could not be read to check the port of ${JSON.stringify(proxy)} (${err instanceof Error ? err.message : String(err)}); if the account lists this proxy at another port, the apply's add is refused and changes nothing.`,
    );
    return false;
  }
  const listed = listedAtOtherPort(proxy, listing);
  if (listed === undefined) return false;
  ctx.diagnostics.addAttributeError('proxy', 'Wrong proxy port', otherPortProblem(proxy, listed));
  return true;
}

/**
 * True for a failure of the listing read that leaves a new entry's port unchecked rather than
 * failing its plan: the API's or the network's, as the SDK's facts say; never credentials
 * refused, a client that refuses requests (the failure memory), or a stop.
 */
function uncheckedOn(err: unknown): boolean {
  return isProxyAccountError(err) && !err.credentialsRejected && !err.clientRefusesRequests && err.code !== 'ERR_ABORTED';
}

/** One listing entry, split. */
interface ListedProxy {
  readonly domain: string;
  readonly entry: string;
}

/**
 * The listing entry (`domain:port`) for a proxy: by its full domain when known, else by the
 * configured form (domain:port, full domain or bare host = the domain's first label).
 */
async function findProxy(ctx: Ctx, proxy: string | null, domain: string | null): Promise<ListedProxy | undefined> {
  const matches = domain !== null ? byDomain(domain) : proxy !== null ? byForm(proxy) : undefined;
  // A stored state naming neither (checkState refuses it first) names no proxy at all.
  if (matches === undefined) return undefined;
  return (await ctx.data.proxies.list()).map(splitEntry).find(matches);
}

/**
 * Whether `form` is another form of the proxy `prior` holds: it names the same domain, and a form
 * with a port names the listing's entry (a wrong port is another proxy, which the API refuses).
 * A proxy the listing no longer holds (removed since the refresh) is taken for the same: Terraform
 * plans again while applying and stops an apply whose action differs from the reviewed plan's, and
 * the state's next refresh finds the proxy gone either way, so the next plan creates it.
 */
async function sameProxy(data: AccountStore, prior: AuthorizedProxyModel, form: string): Promise<boolean> {
  if (prior.domain === null || !namesDomain(form, prior.domain)) return false;
  if (!form.includes(':')) return true;
  const entry = (await data.proxies.list()).map(splitEntry).find(byDomain(prior.domain));
  return entry === undefined || entry.entry.toLowerCase() === form.toLowerCase();
}

/** Matches the listing entry of a full domain, ignoring case. */
function byDomain(domain: string): (p: ListedProxy) => boolean {
  const d = domain.toLowerCase();
  return (p) => p.domain.toLowerCase() === d;
}

/** Matches the listing entry of a proxy as configured (domain:port, full domain or bare host), ignoring case. */
function byForm(proxy: string): (p: ListedProxy) => boolean {
  const given = proxy.toLowerCase();
  if (given.includes(':')) return (p) => p.entry.toLowerCase() === given;
  if (given.includes('.')) return (p) => p.domain.toLowerCase() === given;
  return (p) => p.domain.toLowerCase().split('.')[0] === given;
}

/** True when `domain` (a full domain) is the one the proxy written as `proxy` names, ignoring case. */
function namesDomain(proxy: string, domain: string): boolean {
  const given = proxy.toLowerCase();
  const d = domain.toLowerCase();
  if (given.includes(':')) return splitEntry(given).domain === d;
  if (given.includes('.')) return given === d;
  return d.split('.')[0] === given;
}

function splitEntry(entry: string): ListedProxy {
  const colon = entry.lastIndexOf(':');
  return { domain: colon === -1 ? entry : entry.slice(0, colon), entry };
}
