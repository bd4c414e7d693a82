// Which provider configuration manages each resource of a plan's state, and which account each
// configuration reads. Drift scans one account, the PROXYACCOUNT_* one, so only the resources of
// that account's configuration may count as managed in it: another account's keys, merged in,
// would hide that account's objects in this one, and its sub-accounts would be looked up here.
// Read from the plan JSON's `configuration` section, which the plan reader does not keep: the
// `provider_config_key` of each resource (Terraform resolves module calls' `providers` maps into
// it), and each configuration's `username` and `base_url` expressions, resolved when they are a
// constant or a root variable whose value the plan holds. No value read here is ever shown.
import { PROVIDER_ENV } from '../account';
import { isProxyAccount, type StateResource } from './plan-json';

/** Where one provider setting comes from. */
export type SettingSource =
  /** Not set in the provider block: from the environment terraform ran with. */
  | { readonly kind: 'environment' }
  /** A constant, or a root variable's value the plan holds. */
  | { readonly kind: 'value'; readonly value: string }
  /** An expression the plan does not resolve (a local, a data source, a module's variable, a token in the block). */
  | { readonly kind: 'unknown' };

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
  /** This provider's configurations, by key. */
  readonly configurations: ReadonlyMap<string, ProviderConfiguration>;
  /** The key of the configuration that manages a state resource (by its address); undefined for one no longer in the code. */
  keyOf(address: string): string | undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

/** A configured resource: its type and its provider configuration's key. */
interface Configured {
  readonly type: string;
  readonly key: string;
}

/** Every resource of the configuration, by its place (module calls walked). */
function configuredResources(module: unknown, path: string, out: Map<string, Configured>): void {
  if (!isRecord(module)) return;
  for (const r of Array.isArray(module.resources) ? module.resources : []) {
    if (!isRecord(r) || typeof r.type !== 'string' || typeof r.name !== 'string' || typeof r.provider_config_key !== 'string') continue;
    out.set(placeOf(path, r), { type: r.type, key: r.provider_config_key });
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

/**
 * A setting of a provider block: absent is the environment's; a constant is its value; a reference
 * to one root variable (only at the root, where the plan holds the variables' values) is that
 * variable's value. Anything else cannot be told from the plan.
 */
function settingOf(expressions: Record<string, unknown>, name: string, variables: Record<string, unknown> | undefined): SettingSource {
  const e = expressions[name];
  if (e === undefined || e === null) return { kind: 'environment' };
  if (!isRecord(e)) return { kind: 'unknown' };
  if (typeof e.constant_value === 'string') return { kind: 'value', value: e.constant_value };
  const refs = Array.isArray(e.references) ? e.references : [];
  const only = refs.length === 1 && typeof refs[0] === 'string' ? /^var\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(refs[0]) : null;
  const variable = only !== null && variables !== undefined ? variables[only[1]!] : undefined;
  return isRecord(variable) && typeof variable.value === 'string' ? { kind: 'value', value: variable.value } : { kind: 'unknown' };
}

function configurationOf(key: string, raw: Record<string, unknown>, variables: Record<string, unknown> | undefined): ProviderConfiguration {
  const expressions = isRecord(raw.expressions) ? raw.expressions : {};
  const atRoot = typeof raw.module_address !== 'string' || raw.module_address === '';
  const vars = atRoot ? variables : undefined;
  // A token in the block overrides the environment's credentials of either kind: its account is
  // whichever account the token belongs to, which the plan cannot tell.
  const token = settingOf(expressions, 'token', vars);
  return {
    key,
    isDefault: atRoot && (typeof raw.alias !== 'string' || raw.alias === ''),
    username: token.kind === 'environment' ? settingOf(expressions, 'username', vars) : { kind: 'unknown' },
    baseUrl: settingOf(expressions, 'base_url', vars),
  };
}

/**
 * The provider layout of a plan's JSON, or undefined when it has no `configuration` section (plan
 * JSON written by hand). Configurations of this provider are those its resources use.
 */
export function providerLayout(json: unknown): ProviderLayout | undefined {
  if (!isRecord(json) || !isRecord(json.configuration)) return undefined;
  const configured = new Map<string, Configured>();
  configuredResources(json.configuration.root_module, '', configured);
  const byAddress = new Map<string, string>();
  const prior = isRecord(json.prior_state) && isRecord(json.prior_state.values) ? json.prior_state.values.root_module : undefined;
  stateKeys(prior, configured, byAddress);
  const ours = new Set([...configured.values()].filter((c) => isProxyAccount(c.type)).map((c) => c.key));
  const raw = isRecord(json.configuration.provider_config) ? json.configuration.provider_config : {};
  const variables = isRecord(json.variables) ? json.variables : undefined;
  const configurations = new Map<string, ProviderConfiguration>();
  for (const key of ours) configurations.set(key, configurationOf(key, isRecord(raw[key]) ? raw[key] : {}, variables));
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

/** Which resources the scan compares the account with, and what it leaves out. */
export interface ScanScope {
  /** The configuration whose account is scanned. */
  readonly provider: string;
  /** False when the plan does not say which account that configuration uses (see {@link ScanScope.unconfirmed}). */
  readonly confirmed: boolean;
  /** Why the account could not be confirmed, when it could not. */
  readonly unconfirmed: string | undefined;
  /** The state's resources whose objects count as managed in the scanned account. */
  readonly state: readonly StateResource[];
  /** This provider's resources the scan does not cover, per configuration (null: no longer in the code). */
  readonly notScanned: ReadonlyArray<{ readonly provider: string | null; readonly resources: number }>;
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
 * Whether another configuration's setting is positively the scan's: a value equal to the
 * environment's, or left to the environment terraform planned with, which is the scan's when drift
 * ran terraform, or when the selected configuration leaves it to the environment too (then both
 * stand or fall with the same assumption). A value of the selected configuration does not make an
 * inherited one the scan's: a plan given with --plan may have been made with other credentials.
 */
function isScans(s: SettingSource, selected: SettingSource, env: string | undefined, plannedHere: boolean, eq: (x: string, y: string) => boolean): boolean {
  if (s.kind === 'value') return env !== undefined && eq(s.value, env);
  return s.kind === 'environment' && (plannedHere || selected.kind === 'environment');
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
 * What the scan compares the environment's account with: the resources of the selected provider
 * configuration, and of any other that names the same account. Throws, before anything is read,
 * for a configuration the plan lacks and for a selected one whose username or base_url resolves
 * to another account than the environment's. Without a layout (plan JSON without `configuration`)
 * every resource counts, and the account is not confirmed.
 */
export function scanScope(state: readonly StateResource[], layout: ProviderLayout | undefined, opts: ScopeOptions): ScanScope {
  if (layout === undefined) {
    if (opts.provider !== undefined && opts.provider !== DEFAULT_KEY) {
      throw new Error(
        `--provider ${opts.provider}: the plan's configuration section was not read (plan JSON without one), so its resources cannot be told apart by provider configuration`,
      );
    }
    const why = "the plan's configuration section was not read (plan JSON without one), so every resource was taken as the scanned account's";
    return { provider: DEFAULT_KEY, confirmed: false, unconfirmed: why, state, notScanned: [] };
  }
  const key = opts.provider ?? defaultKey(layout);
  const known = [...layout.configurations.keys()].sort();
  const selected = layout.configurations.get(key) ?? (opts.provider === undefined ? undefined : null);
  if (selected === null) {
    throw new Error(
      `--provider ${key}: no resource of this provider uses that provider configuration (${known.length > 0 ? `they use ${known.join(', ')}` : 'there are none'})`,
    );
  }
  const c: ProviderConfiguration = selected ?? { key, isDefault: true, username: { kind: 'environment' }, baseUrl: { kind: 'environment' } };
  const how = opts.provider === undefined ? 'the default' : 'selected with --provider';
  const { username, baseUrl } = opts.account;
  if (c.username.kind === 'value' && username !== undefined && c.username.value !== username) throw otherAccountError(c, how, 'username');
  if (c.baseUrl.kind === 'value' && baseUrl !== undefined && !sameUrl(c.baseUrl.value, baseUrl)) throw otherAccountError(c, how, 'base_url');
  const unconfirmed = unconfirmedReason(c, opts.account);
  const counted = (k: string): boolean => {
    const other = layout.configurations.get(k)!;
    return (
      k === key ||
      (isScans(other.username, c.username, username, opts.plannedHere, (x, y) => x === y) &&
        isScans(other.baseUrl, c.baseUrl, baseUrl, opts.plannedHere, sameUrl))
    );
  };
  const inScope: StateResource[] = [];
  const left = new Map<string | null, number>();
  for (const r of state) {
    if (r.mode !== 'managed' || !isProxyAccount(r.type)) {
      inScope.push(r);
      continue;
    }
    const k = layout.keyOf(r.address);
    if (k !== undefined && layout.configurations.has(k) && counted(k)) inScope.push(r);
    else left.set(k ?? null, (left.get(k ?? null) ?? 0) + 1);
  }
  const notScanned = [...left].map(([provider, resources]) => ({ provider, resources }));
  notScanned.sort((a, b) => (a.provider === null ? 1 : b.provider === null ? -1 : a.provider.localeCompare(b.provider)));
  return { provider: key, confirmed: unconfirmed === undefined, unconfirmed, state: inScope, notScanned };
}

/** Why the selected configuration's account cannot be confirmed to be the environment's, or undefined when it is. */
function unconfirmedReason(c: ProviderConfiguration, account: ScanAccount): string | undefined {
  const open: string[] = [];
  if (c.username.kind === 'unknown')
    open.push('its username is an expression the plan does not resolve, or its block sets a token, whose account the plan does not say');
  else if (c.username.kind === 'value' && account.username === undefined) open.push(`${PROVIDER_ENV.username} is not set to compare its username with`);
  if (c.baseUrl.kind === 'unknown') open.push('its base_url is an expression the plan does not resolve');
  else if (c.baseUrl.kind === 'value' && account.baseUrl === undefined) open.push(`${PROVIDER_ENV.base_url} is not set to compare its base_url with`);
  return open.length === 0 ? undefined : open.join('; ');
}
