// How the connection to the account API is read from a provider block and the PROXYACCOUNT_*
// environment: the rules the provider applies to its block and the CLI's GitOps commands and demo
// apply to the environment alone, written once. Problems come back as data (setting, title,
// sentence); the provider turns them into diagnostics on the setting's attribute, the CLI into one
// error. Imports nothing of ours but the SDK's option type.
import { readFileSync } from 'node:fs';
import type { ProxyAccountClientOptions } from '../sdk';

/** The environment variable each provider setting falls back to. */
export const PROVIDER_ENV = {
  base_url: 'PROXYACCOUNT_BASE_URL',
  username: 'PROXYACCOUNT_USERNAME',
  password: 'PROXYACCOUNT_PASSWORD',
  token: 'PROXYACCOUNT_TOKEN',
  ca_cert_file: 'PROXYACCOUNT_CA_CERT_FILE',
  insecure: 'PROXYACCOUNT_INSECURE',
  request_timeout: 'PROXYACCOUNT_REQUEST_TIMEOUT',
  max_retries: 'PROXYACCOUNT_MAX_RETRIES',
} as const;

/** A provider setting's name. */
export type Setting = keyof typeof PROVIDER_ENV;

/** The longest request_timeout, in seconds (an hour; Node's timers cannot go past ~24 days). */
export const MAX_REQUEST_TIMEOUT_SECONDS = 3600;

/** The provider block's known values (null = not set); the CLI passes none. */
export type BlockValues = Readonly<Partial<Record<Setting, string | number | boolean | null>>>;

/** One problem with the settings, tied to the setting at fault. */
export interface SettingProblem {
  readonly setting: Setting;
  readonly summary: string;
  readonly detail: string;
}

/** The settings resolved into what the SDK client needs (secrets included: never print it). */
export interface ConnectionSettings {
  readonly baseUrl: string;
  readonly auth: { readonly token: string } | { readonly username: string; readonly password: string };
  readonly caCert?: string;
  readonly insecure?: boolean;
  readonly timeoutSeconds?: number;
  readonly maxRetries?: number;
}

/** What {@link resolveConnection} found: the settings when there is no problem, and where each came from. */
export interface ResolvedConnection {
  readonly settings: ConnectionSettings | undefined;
  readonly problems: readonly SettingProblem[];
  /** Where a setting's value comes from, for messages (never the value itself). */
  origin(name: Setting): string;
}

/** Resolves each setting from the block, else its environment variable ('' counts as unset). */
class Source {
  readonly problems: SettingProblem[] = [];

  constructor(
    private readonly block: BlockValues,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  inBlock(name: Setting): boolean {
    const v = this.block[name];
    return v !== null && v !== undefined;
  }

  origin(name: Setting): string {
    return this.inBlock(name) ? 'set in the provider block' : `from ${PROVIDER_ENV[name]}`;
  }

  fromBlock(name: Setting): string | undefined {
    const v = this.block[name];
    return typeof v === 'string' ? v : undefined;
  }

  fromEnv(name: Setting): string | undefined {
    const e = this.env[PROVIDER_ENV[name]];
    // An empty variable counts as unset, as shells make it easy to export one by accident.
    return e === undefined || e === '' ? undefined : e;
  }

  string(name: Setting): string | undefined {
    return this.fromBlock(name) ?? (this.inBlock(name) ? undefined : this.fromEnv(name));
  }

  /** Environment: true/false/1/0, anything else is a problem (never silently false). */
  bool(name: Setting): boolean | undefined {
    const v = this.block[name];
    if (typeof v === 'boolean') return v;
    const e = this.fromEnv(name)?.trim().toLowerCase();
    if (e === undefined || e === '') return undefined;
    if (e === 'true' || e === '1') return true;
    if (e === 'false' || e === '0') return false;
    this.problem(name, 'Invalid environment variable', `${PROVIDER_ENV[name]} must be true or false (or 1 or 0) for ${name}.`);
    return undefined;
  }

  /** A number from the block (checked by the provider's schema) or the environment, checked with `ok`. */
  number(name: Setting, ok: (n: number) => boolean, expectation: string): number | undefined {
    const v = this.block[name];
    if (typeof v === 'number') return v;
    const e = this.fromEnv(name)?.trim();
    if (e === undefined || e === '') return undefined;
    const n = Number(e);
    if (Number.isFinite(n) && ok(n)) return n;
    this.problem(name, 'Invalid environment variable', `${PROVIDER_ENV[name]} must be ${expectation} for ${name}, got ${JSON.stringify(e)}.`);
    return undefined;
  }

  problem(setting: Setting, summary: string, detail: string): void {
    this.problems.push({ setting, summary, detail });
  }
}

/**
 * The credentials. Credentials of either kind in the block override the environment's of either
 * kind (a `token` in the block wins over PROXYACCOUNT_USERNAME); a username or password in the
 * block takes the other half from the environment. Token and username/password conflict only
 * when one source gives both.
 */
function credentials(s: Source): ConnectionSettings['auth'] | undefined {
  const blockToken = s.fromBlock('token');
  const blockBasic = s.fromBlock('username') !== undefined || s.fromBlock('password') !== undefined;
  const fromBlock = blockToken !== undefined || blockBasic;
  const token = fromBlock ? blockToken : s.fromEnv('token');
  const username = fromBlock ? (blockToken !== undefined ? s.fromBlock('username') : s.string('username')) : s.fromEnv('username');
  const password = fromBlock ? (blockToken !== undefined ? s.fromBlock('password') : s.string('password')) : s.fromEnv('password');
  if (token !== undefined && (username !== undefined || password !== undefined)) {
    const other = username !== undefined ? 'username' : 'password';
    s.problem(
      'token',
      'Conflicting credentials',
      `token (${s.origin('token')}) cannot be combined with ${other} (${s.origin(other)}): use either a bearer token or username and password.`,
    );
    return undefined;
  }
  if (token !== undefined) return { token };
  if (username !== undefined && password === undefined) {
    s.problem(
      'password',
      'Missing password',
      `username is set (${s.origin('username')}) but no password: set password in the provider block or ${PROVIDER_ENV.password}.`,
    );
  } else if (password !== undefined && username === undefined) {
    s.problem(
      'username',
      'Missing username',
      `password is set (${s.origin('password')}) but no username: set username in the provider block or ${PROVIDER_ENV.username}.`,
    );
  } else if (username === undefined || password === undefined) {
    s.problem(
      'username',
      'Missing credentials',
      `Set username and password (${PROVIDER_ENV.username}, ${PROVIDER_ENV.password}) or token (${PROVIDER_ENV.token}), in the provider block or the environment.`,
    );
  } else {
    return { username, password };
  }
  return undefined;
}

/**
 * What is wrong with a base URL, as the SDK would refuse it (src/sdk/base-url.ts), in words that
 * fit a setting: the SDK's name its option `baseUrl` and offer `allowHttp`, which neither the
 * provider block nor the environment can set. Never repeats the URL, which may hold a password.
 */
function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid absolute URL';
  }
  // Checked before anything that could echo a part of the URL.
  if (url.username !== '' || url.password !== '') {
    return `must not contain a user name or password: set username and password (${PROVIDER_ENV.username}, ${PROVIDER_ENV.password}) or token (${PROVIDER_ENV.token})`;
  }
  if (value.includes('?') || value.includes('#')) return 'must not contain a query string or fragment';
  if (url.protocol === 'http:') {
    return `must use https:// (the API requires HTTPS), not http://; a local emulator serves HTTPS too: use its https URL and trust its certificate with ca_cert_file (${PROVIDER_ENV.ca_cert_file})`;
  }
  if (url.protocol !== 'https:') return `must use https:// (the API requires HTTPS), not ${url.protocol}//`;
  return undefined;
}

/** Reads every setting; the settings are undefined when any problem was found (all are listed). */
export function resolveConnection(block: BlockValues, env: NodeJS.ProcessEnv): ResolvedConnection {
  const s = new Source(block, env);
  const baseUrl = s.string('base_url');
  if (baseUrl === undefined) {
    s.problem(
      'base_url',
      'Missing API base URL',
      `Set base_url in the provider block or the ${PROVIDER_ENV.base_url} environment variable, e.g. https://api.example.com.`,
    );
  } else {
    const wrong = baseUrlProblem(baseUrl);
    if (wrong !== undefined) {
      const fromEnv = !s.inBlock('base_url');
      s.problem(
        'base_url',
        fromEnv ? 'Invalid environment variable' : 'Invalid provider configuration',
        `${fromEnv ? PROVIDER_ENV.base_url : 'base_url'} ${wrong}. It must be the API's root URL, such as https://api.example.com.`,
      );
    }
  }
  const auth = credentials(s);
  const insecure = s.bool('insecure');
  const timeoutSeconds = s.number(
    'request_timeout',
    (n) => n > 0 && n <= MAX_REQUEST_TIMEOUT_SECONDS,
    `a number of seconds greater than 0 and at most ${MAX_REQUEST_TIMEOUT_SECONDS}`,
  );
  const maxRetries = s.number('max_retries', (n) => Number.isInteger(n) && n >= 0 && n <= 100, 'an integer from 0 to 100');
  const caFile = s.string('ca_cert_file');
  let caCert: string | undefined;
  if (caFile !== undefined) {
    try {
      caCert = readFileSync(caFile, 'utf8');
    } catch (err) {
      const reason = err instanceof Error && 'code' in err ? String((err as NodeJS.ErrnoException).code) : String(err);
      s.problem(
        'ca_cert_file',
        'Unreadable CA certificate file',
        `Cannot read ca_cert_file ${JSON.stringify(caFile)} (${s.origin('ca_cert_file')}): ${reason}.`,
      );
    }
  }
  const settings: ConnectionSettings | undefined =
    s.problems.length > 0 || baseUrl === undefined || auth === undefined
      ? undefined
      : {
          baseUrl,
          auth,
          ...(caCert !== undefined ? { caCert } : {}),
          ...(insecure !== undefined ? { insecure } : {}),
          ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
          ...(maxRetries !== undefined ? { maxRetries } : {}),
        };
  return { settings, problems: s.problems, origin: (name) => s.origin(name) };
}

/** The SDK client's options for the settings (the caller adds its user agent, dispatcher, logger). */
export function clientOptions(c: ConnectionSettings): ProxyAccountClientOptions {
  return {
    baseUrl: c.baseUrl,
    auth: c.auth,
    ...(c.caCert !== undefined ? { caCert: c.caCert } : {}),
    ...(c.insecure === true ? { insecure: true } : {}),
    ...(c.timeoutSeconds !== undefined ? { timeoutMs: Math.round(c.timeoutSeconds * 1000) } : {}),
    ...(c.maxRetries !== undefined ? { maxRetries: c.maxRetries } : {}),
  };
}

/**
 * The connection from the environment alone, for the CLI: throws one error listing every problem,
 * each naming its variable.
 */
export function connectionFromEnv(env: NodeJS.ProcessEnv): ConnectionSettings {
  const r = resolveConnection({}, env);
  if (r.settings === undefined) throw new Error(r.problems.map((p) => `${p.summary}: ${p.detail}`).join('\n'));
  return r.settings;
}
