// Which provider configuration manages each resource of a plan's state, and which account each
// configuration reads. Drift scans one account, the PROXYACCOUNT_* one, against the resources of
// one configuration only: another configuration's keys are never merged in, however sure the match
// looks, since a wrong match would hide an account's objects behind another's keys (and look its
// sub-accounts up in the wrong account). An object whose key another configuration declares, where
// that configuration's account is not proven to be another one, is held by it: neither managed
// nor unmanaged.
// Read from the plan JSON's `configuration` section, which the plan reader does not keep: the
// `provider_config_key` of each resource (Terraform resolves module calls' `providers` maps into
// it), and each configuration's `username` and `base_url` expressions. A constant is its value; a
// reference is resolved only when the root module's source sets the setting to exactly one
// variable (`username = var.team`): the plan keeps what an expression references, not the
// expression, and `"${var.team}2"` references `var.team` just as `var.team` does. No value read
// here is ever shown.
import { PROVIDER_ENV } from '../account';
import { isProxyAccount, isRecord, type StateResource } from './plan-json';
import { type BareVariables, blockOf, type ProviderSource } from './provider-source';

/** Where one provider setting comes from. */
export type SettingSource =
  /** Not set in the provider block: from the environment terraform ran with. */
  | { readonly kind: 'environment' }
  /** A constant, or the value of the one root variable the source sets it to. */
  | { readonly kind: 'value'; readonly value: string }
  /**
   * Anything else: an expression (a local, a data source, a module's variable, text around a
   * variable), or a token in the block. `unread`: the plan says it references one root variable,
   * but whether it is exactly that variable could not be read from the source, and why.
   */
  | { readonly kind: 'unknown'; readonly unread?: string };

/** One provider configuration of this provider. */
export interface ProviderConfiguration {
  /** Terraform's key for it: `proxyaccount`, `proxyaccount.other`, `module.legacy:proxyaccount`. */
  readonly key: string;
  /** The root module's configuration without an alias. */
  readonly isDefault: boolean;
  readonly username: SettingSource;
  readonly baseUrl: SettingSource;
}

/** The provider configurations of a plan, and which one manages each resource of its state. */
export interface ProviderLayout {
  /** The configurations managed resources of this provider use, by key. */
  readonly configurations: ReadonlyMap<string, ProviderConfiguration>;
  /** The key of the configuration that manages a state resource (by its address); undefined for one no longer in the code. */
  keyOf(address: string): string | undefined;
}

/** `module.a["x"].module.b` → `a.b`: a module's place in the configuration, without instance keys. */
function configPath(moduleAddress: string): string | undefined {
  const names: string[] = [];
  let rest = moduleAddress;
  while (rest !== '') {
    const m = /^module\.([A-Za-z_][A-Za-z0-9_-]*)(\[(?:\d+|"(?:[^"\\]|\\.)*")\])?(\.|$)/.exec(rest);
    if (m === null) return undefined;
    names.push(m[1]!);
    rest = rest.slice(m[0].length);
  }
  return names.join('.');
}

/** A resource's place in the configuration: `a.b|managed.proxyaccount_authorized_ip.office`. */
function placeOf(path: string, r: Record<string, unknown>): string {
  return `${path}|${r.mode === 'data' ? 'data' : 'managed'}.${String(r.type)}.${String(r.name)}`;
}

/** A configured resource: its type, whether it is managed (not a data source), and its provider configuration's key. */
interface Configured {
  readonly type: string;
  readonly managed: boolean;
  readonly key: string;
}

/** Every resource of the configuration, by its place (module calls walked). */
function configuredResources(module: unknown, path: string, out: Map<string, Configured>): void {
  if (!isRecord(module)) return;
  for (const r of Array.isArray(module.resources) ? module.resources : []) {
    if (!isRecord(r) || typeof r.type !== 'string' || typeof r.name !== 'string' || typeof r.provider_config_key !== 'string') continue;
    out.set(placeOf(path, r), { type: r.type, managed: r.mode === 'managed', key: r.provider_config_key });
  }
  const calls = isRecord(module.module_calls) ? module.module_calls : {};
  for (const [name, call] of Object.entries(calls)) {
    if (isRecord(call)) configuredResources(call.module, path === '' ? name : `${path}.${name}`, out);
  }
}

/** The configuration key of each state resource, by its address (resources whose configuration is gone are left out). */
function stateKeys(module: unknown, configured: ReadonlyMap<string, Configured>, out: Map<string, string>): void {
  if (!isRecord(module)) return;
  const path = typeof module.address === 'string' ? configPath(module.address) : '';
  for (const r of Array.isArray(module.resources) ? module.resources : []) {
    if (path === undefined || !isRecord(r) || typeof r.address !== 'string' || typeof r.type !== 'string' || typeof r.name !== 'string') continue;
    const c = configured.get(placeOf(path, r));
    if (c !== undefined) out.set(r.address, c.key);
  }
  for (const child of Array.isArray(module.child_modules) ? module.child_modules : []) stateKeys(child, configured, out);
}

// --- Settings and accounts ---------------------------------------------------------------------

/**
 * A setting of a provider block: absent is the environment's; a constant is its value; a
 * reference is the value of a root variable only when the plan says it references that variable
 * alone and the source (`block`, the root module's block as written) sets the setting to exactly
 * that variable. Anything else cannot be told from the plan; when only the source is missing (not
 * read plainly), the setting says why.
 */
function settingOf(
  expressions: Record<string, unknown>,
  name: keyof BareVariables | 'token',
  variables: Record<string, unknown> | undefined,
  block: BareVariables | string | undefined,
): SettingSource {
  const e = expressions[name];
  if (e === undefined || e === null) return { kind: 'environment' };
  if (!isRecord(e)) return { kind: 'unknown' };
  if (typeof e.constant_value === 'string') return { kind: 'value', value: e.constant_value };
  const refs = Array.isArray(e.references) ? e.references : [];
  const one = refs.length === 1 && typeof refs[0] === 'string' ? /^var\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(refs[0])?.[1] : undefined;
  if (one === undefined || variables === undefined || block === undefined || name === 'token') return { kind: 'unknown' };
  if (typeof block === 'string') return { kind: 'unknown', unread: block };
  if (block[name] !== one) return { kind: 'unknown' };
  const variable = variables[one];
  return isRecord(variable) && typeof variable.value === 'string' ? { kind: 'value', value: variable.value } : { kind: 'unknown' };
}

function configurationOf(
  key: string,
  raw: Record<string, unknown>,
  variables: Record<string, unknown> | undefined,
  source: ProviderSource | undefined,
): ProviderConfiguration {
  const expressions = isRecord(raw.expressions) ? raw.expressions : {};
  const atRoot = typeof raw.module_address !== 'string' || raw.module_address === '';
  // Only the root's variables are in the plan, and only the root's source is read.
  const vars = atRoot ? variables : undefined;
  const block = atRoot && source !== undefined ? blockOf(source, key) : undefined;
  // A token in the block overrides the environment's credentials of either kind: its account is
  // whichever account the token belongs to, which the plan cannot tell.
  const token = settingOf(expressions, 'token', undefined, undefined);
  return {
    key,
    isDefault: atRoot && (typeof raw.alias !== 'string' || raw.alias === ''),
    username: token.kind === 'environment' ? settingOf(expressions, 'username', vars, block) : { kind: 'unknown' },
    baseUrl: settingOf(expressions, 'base_url', vars, block),
  };
}

/**
 * The provider layout of a plan's JSON, or undefined when it has no `configuration` section (plan
 * JSON written by hand). Its configurations are those this provider's managed resources use;
 * `source` (the root module's provider blocks) resolves a setting that is exactly one variable.
 */
export function providerLayout(json: unknown, source?: ProviderSource): ProviderLayout | undefined {
  if (!isRecord(json) || !isRecord(json.configuration)) return undefined;
  const configured = new Map<string, Configured>();
  configuredResources(json.configuration.root_module, '', configured);
  const byAddress = new Map<string, string>();
  const prior = isRecord(json.prior_state) && isRecord(json.prior_state.values) ? json.prior_state.values.root_module : undefined;
  stateKeys(prior, configured, byAddress);
  const ours = new Set([...configured.values()].filter((c) => c.managed && isProxyAccount(c.type)).map((c) => c.key));
  const raw = isRecord(json.configuration.provider_config) ? json.configuration.provider_config : {};
  const variables = isRecord(json.variables) ? json.variables : undefined;
  const configurations = new Map<string, ProviderConfiguration>();
  for (const key of ours) configurations.set(key, configurationOf(key, isRecord(raw[key]) ? raw[key] : {}, variables, source));
  return { configurations, keyOf: (address) => byAddress.get(address) };
}

/** The account the scan reads: PROXYACCOUNT_USERNAME and PROXYACCOUNT_BASE_URL (undefined when unset, or with a token). */
export interface ScanAccount {
  readonly username: string | undefined;
  readonly baseUrl: string | undefined;
}

/** The scan's account as the environment names it (the store reads the same variables). */
export function scanAccountOf(env: NodeJS.ProcessEnv): ScanAccount {
  const get = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  return { username: get(PROVIDER_ENV.token) !== undefined ? undefined : get(PROVIDER_ENV.username), baseUrl: get(PROVIDER_ENV.base_url) };
}

/** A base URL as the API sees it: `https://API.example.com/` and `https://api.example.com` are one API. */
function sameUrl(a: string, b: string): boolean {
  const norm = (u: string): string => {
    try {
      const url = new URL(u);
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return u;
    }
  };
  return norm(a) === norm(b);
}

/** How a configuration's account stands to the scan's: the same, proven another, or not known. */
type Relation = 'same' | 'other' | 'unknown';

/**
 * One setting against the scan's: a value is compared with the environment's; a setting left to
 * the environment is the scan's only when terraform planned with this very environment.
 */
function relation(s: SettingSource, env: string | undefined, plannedHere: boolean, eq: (x: string, y: string) => boolean): Relation {
  if (s.kind === 'value') return env === undefined ? 'unknown' : eq(s.value, env) ? 'same' : 'other';
  return s.kind === 'environment' && plannedHere ? 'same' : 'unknown';
}

/** A configuration's account against the scan's: another when either setting says so, the same when both do. */
function accountRelation(c: ProviderConfiguration, account: ScanAccount, plannedHere: boolean): Relation {
  const user = relation(c.username, account.username, plannedHere, (x, y) => x === y);
  const api = relation(c.baseUrl, account.baseUrl, plannedHere, sameUrl);
  return user === 'other' || api === 'other' ? 'other' : user === 'same' && api === 'same' ? 'same' : 'unknown';
}

/** Resources of another configuration whose account is not proven to be another one: an object with one of their keys is held by them. */
export interface Holder {
  readonly provider: string;
  /** True when the configuration is proven to use the scanned account too (its own run checks its objects). */
  readonly sameAccount: boolean;
  /** Why its account is not known, when it is not. */
  readonly why: string | undefined;
  readonly state: readonly StateResource[];
}

/** Which resources the scan compares the account with, and what it leaves out. */
export interface ScanScope {
  /** The configuration whose account is scanned. */
  readonly provider: string;
  /** False when the plan does not say which account that configuration uses (see {@link ScanScope.unconfirmed}). */
  readonly confirmed: boolean;
  /** Why the account could not be confirmed, when it could not. */
  readonly unconfirmed: string | undefined;
  /** The state's resources whose objects count as managed in the scanned account: the selected configuration's (and other providers'). */
  readonly state: readonly StateResource[];
  /** This provider's resources the scan does not cover, per configuration (null: no longer in the code). */
  readonly notScanned: ReadonlyArray<{ readonly provider: string | null; readonly resources: number }>;
  /** The other configurations' resources not proven to be another account's: what they declare is held, never unmanaged. */
  readonly holders: readonly Holder[];
}

/** Options of {@link scanScope}. */
export interface ScopeOptions {
  /** The configuration to scan (`proxyaccount.other`). @default the default (unaliased) one */
  readonly provider?: string;
  readonly account: ScanAccount;
  /** True when terraform planned with this very environment (drift ran it): a setting left to the environment is then the scan's. */
  readonly plannedHere: boolean;
}

const DEFAULT_KEY = 'proxyaccount';

/** The default configuration: the root module's unaliased one that resources use (`proxyaccount` first). */
function defaultKey(layout: ProviderLayout): string {
  if (layout.configurations.get(DEFAULT_KEY)?.isDefault === true) return DEFAULT_KEY;
  const roots = [...layout.configurations.values()].filter((c) => c.isDefault);
  return roots.length === 1 ? roots[0]!.key : DEFAULT_KEY;
}

/**
 * The refusal for a configuration that names another account (or API) than the environment: the
 * scan would read one account and file another's resources under it. Names the configuration and
 * the variable, never a value.
 */
function otherAccountError(c: ProviderConfiguration, selected: string, setting: 'username' | 'base_url'): Error {
  const what = setting === 'username' ? 'its username names another account' : 'its base_url names another API';
  const again = `proxyaccount drift --plan drift.tfplan${c.key === DEFAULT_KEY ? '' : ` --provider ${c.key}`}`;
  return new Error(
    `provider configuration ${c.key} (${selected}): ${what} than ${PROVIDER_ENV[setting]} does, so the scan would read one account and compare it with another's resources. ` +
      `To scan that account, make the plan with terraform's usual environment (\`terraform plan -out=drift.tfplan\`), then run \`${again}\` ` +
      `with that account's credentials in ${PROVIDER_ENV.username} and ${PROVIDER_ENV.password} (and its ${PROVIDER_ENV.base_url}); ` +
      'or select the configuration of this account with --provider, or use --no-scan.',
  );
}

/**
 * The selected configuration. Throws for one no managed resource uses: given with --provider, or
 * the default one while others have resources (a scan against none of them would call every
 * object they manage unmanaged). With no resource of this provider at all, every object is one
 * no resource manages.
 */
function selectedConfiguration(layout: ProviderLayout, key: string, given: boolean): ProviderConfiguration {
  const selected = layout.configurations.get(key);
  if (selected !== undefined) return selected;
  const known = [...layout.configurations.keys()].sort();
  if (given) {
    throw new Error(
      `--provider ${key}: no resource of this provider uses that provider configuration (${known.length > 0 ? `they use ${known.join(', ')}` : 'there are none'})`,
    );
  }
  if (known.length > 0) {
    throw new Error(
      `no resource of this provider uses the default provider configuration (${key}), so its account has nothing to be compared with: they use ${known.join(', ')}. ` +
        `One run scans the account of one configuration: run drift once per configuration, with its account's credentials in PROXYACCOUNT_*: ${known.map((k) => `--provider ${k}`).join('; ')}.`,
    );
  }
  return { key, isDefault: true, username: { kind: 'environment' }, baseUrl: { kind: 'environment' } };
}

/**
 * What the scan compares the environment's account with: the resources of the selected provider
 * configuration, never another's. Throws, before anything is read, for a configuration no managed
 * resource uses (see {@link selectedConfiguration}) and for a selected one whose username or
 * base_url is a value naming another account than the environment's. Without a layout (plan JSON
 * without `configuration`) every resource counts, and the account is not confirmed.
 */
export function scanScope(state: readonly StateResource[], layout: ProviderLayout | undefined, opts: ScopeOptions): ScanScope {
  if (layout === undefined) {
    if (opts.provider !== undefined && opts.provider !== DEFAULT_KEY) {
      throw new Error(
        `--provider ${opts.provider}: the plan's configuration section was not read (plan JSON without one), so its resources cannot be told apart by provider configuration`,
      );
    }
    const why = "the plan's configuration section was not read (plan JSON without one), so every resource was taken as the scanned account's";
    return { provider: DEFAULT_KEY, confirmed: false, unconfirmed: why, state, notScanned: [], holders: [] };
  }
  const key = opts.provider ?? defaultKey(layout);
  const c = selectedConfiguration(layout, key, opts.provider !== undefined);
  const how = opts.provider === undefined ? 'the default' : 'selected with --provider';
  const { username, baseUrl } = opts.account;
  if (c.username.kind === 'value' && username !== undefined && c.username.value !== username) throw otherAccountError(c, how, 'username');
  if (c.baseUrl.kind === 'value' && baseUrl !== undefined && !sameUrl(c.baseUrl.value, baseUrl)) throw otherAccountError(c, how, 'base_url');
  const open = openSettings(c, opts.account, opts.plannedHere);
  const inScope: StateResource[] = [];
  const left = new Map<string | null, number>();
  const held = new Map<string, StateResource[]>();
  for (const r of state) {
    if (r.mode !== 'managed' || !isProxyAccount(r.type)) {
      inScope.push(r);
      continue;
    }
    const k = layout.keyOf(r.address);
    const other = k === undefined ? undefined : layout.configurations.get(k);
    if (k === key && other !== undefined) {
      inScope.push(r);
      continue;
    }
    left.set(k ?? null, (left.get(k ?? null) ?? 0) + 1);
    if (k !== undefined && other !== undefined && accountRelation(other, opts.account, opts.plannedHere) !== 'other') held.set(k, [...(held.get(k) ?? []), r]);
  }
  const notScanned = [...left].map(([provider, resources]) => ({ provider, resources }));
  notScanned.sort((a, b) => (a.provider === null ? 1 : b.provider === null ? -1 : a.provider.localeCompare(b.provider)));
  const holders = [...held]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([provider, resources]) => holderOf(layout.configurations.get(provider)!, resources, opts));
  return { provider: key, confirmed: open.length === 0, unconfirmed: open.length === 0 ? undefined : open.join('; '), state: inScope, notScanned, holders };
}

function holderOf(c: ProviderConfiguration, state: readonly StateResource[], opts: ScopeOptions): Holder {
  const sameAccount = accountRelation(c, opts.account, opts.plannedHere) === 'same';
  return { provider: c.key, sameAccount, why: sameAccount ? undefined : openSettings(c, opts.account, opts.plannedHere).join('; '), state };
}

/** Why a configuration's account cannot be confirmed to be the environment's: what keeps its settings from being known to be the scan's. */
function openSettings(c: ProviderConfiguration, account: ScanAccount, plannedHere: boolean): string[] {
  const settings = [
    { name: 'username', s: c.username, env: account.username },
    { name: 'base_url', s: c.baseUrl, env: account.baseUrl },
  ] as const;
  const names = (which: (x: (typeof settings)[number]) => boolean): string[] => settings.filter(which).map((x) => x.name);
  const unread = settings.flatMap((x) => (x.s.kind === 'unknown' && x.s.unread !== undefined ? [{ name: x.name, why: x.s.unread }] : []));
  const unknown = names((x) => x.s.kind === 'unknown' && x.s.unread === undefined);
  const inherited = plannedHere ? [] : names((x) => x.s.kind === 'environment');
  const open: string[] = [];
  if (unread.length > 0) {
    // Both settings come from one block: one reason.
    const [one, many] = [unread.length === 1, unread.map((x) => x.name).join(' and ')];
    open.push(
      `its ${many} ${one ? 'references' : 'reference'} one root variable, but the provider block could not be read from the root module's files ` +
        `to tell whether ${one ? 'it is' : 'each is'} exactly that variable (as in ${unread[0]!.name} = var.NAME): ${unread[0]!.why}`,
    );
  }
  if (unknown.length > 0) {
    const token = unknown.includes('username') ? ', or its block sets a token, whose account the plan does not say' : '';
    open.push(
      `its ${unknown.join(' and ')} ${unknown.length === 1 ? 'is an expression' : 'are expressions'} drift does not resolve ` +
        `(only a constant is, or exactly one root variable, as in ${unknown[0]} = var.NAME)${token}`,
    );
  }
  if (inherited.length > 0) {
    open.push(
      `its ${inherited.join(' and ')} ${inherited.length === 1 ? 'is' : 'are'} left to the environment terraform planned with, which drift does not see when it is given the plan (--plan)`,
    );
  }
  for (const x of settings) if (x.s.kind === 'value' && x.env === undefined) open.push(`${PROVIDER_ENV[x.name]} is not set to compare its ${x.name} with`);
  return open;
}
