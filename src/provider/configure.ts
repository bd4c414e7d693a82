// The provider's configure step: resolves every setting, reports each problem on its attribute
// (with the environment variable that can supply it), and builds the one SDK client and account
// store of the process. Sends no request; verifyCredentials, before the first plan, sends at most one.
import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import type { AccountStore } from '../account';
import type { ProxyAccountClient, ProxyAccountClientOptions } from '../sdk';
import { createLogger, levelFromEnv } from '../protocol/log';
import { isUnknown, type ConfigureContext, type Diagnostics } from './framework';
import { MAX_REQUEST_TIMEOUT_SECONDS, PROVIDER_ENV, PROVIDER_VERSION, Settings, settingPath as path, type ProviderConfig, type Setting } from './settings';

/** At TF_LOG=DEBUG (or the provider's own variables), each API attempt goes to Terraform's log; below it, nothing. */
function requestLogger(env: NodeJS.ProcessEnv): Pick<ProxyAccountClientOptions, 'logger'> {
  const logger = createLogger(undefined, levelFromEnv(env));
  if (!logger.enabled('debug')) return {};
  const log = logger.with({ '@caller': 'proxyaccount-sdk' }).log;
  return {
    logger: {
      debug: (message, f) =>
        log('debug', message, {
          method: f.method,
          path: f.path,
          attempt: f.attempt,
          duration_ms: f.durationMs,
          ...(f.status !== undefined ? { status: f.status } : {}),
          ...(f.error !== undefined ? { error: f.error } : {}),
        }),
    },
  };
}

/** Builds the account store from the provider block, or returns undefined after adding errors. */
export async function configure(
  ctx: ConfigureContext,
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  dispatcher: Dispatcher | undefined,
): Promise<AccountStore | undefined> {
  const d = ctx.diagnostics;
  const settings = Object.keys(PROVIDER_ENV) as Setting[];
  for (const name of settings) {
    const v = config[name];
    if (v !== null && isUnknown(v)) {
      d.addError(
        'Unknown provider setting',
        `The value of ${name} is not known until apply (it depends on another resource), but the provider needs it now. Use a value known at plan time, or leave ${name} unset and set ${PROVIDER_ENV[name]}.`,
        path(name),
      );
    }
  }
  if (d.hasErrors()) return undefined;
  const s = new Settings(config as Readonly<Record<Setting, string | number | boolean | null>>, env);

  const baseUrl = s.string('base_url');
  if (baseUrl === undefined) {
    d.addError(
      'Missing API base URL',
      `Set base_url in the provider block or the ${PROVIDER_ENV.base_url} environment variable, e.g. https://api.example.com.`,
      path('base_url'),
    );
  }
  const token = s.string('token');
  const username = s.string('username');
  const password = s.string('password');
  if (token !== undefined && (username !== undefined || password !== undefined)) {
    const other = username !== undefined ? 'username' : 'password';
    d.addError(
      'Conflicting credentials',
      `token (${s.origin('token')}) cannot be combined with ${other} (${s.origin(other)}): use either a bearer token or username and password.`,
      path('token'),
    );
  } else if (token === undefined) {
    if (username !== undefined && password === undefined) {
      d.addError(
        'Missing password',
        `username is set (${s.origin('username')}) but no password: set password in the provider block or ${PROVIDER_ENV.password}.`,
        path('password'),
      );
    } else if (password !== undefined && username === undefined) {
      d.addError(
        'Missing username',
        `password is set (${s.origin('password')}) but no username: set username in the provider block or ${PROVIDER_ENV.username}.`,
        path('username'),
      );
    } else if (username === undefined) {
      d.addError(
        'Missing credentials',
        `Set username and password (${PROVIDER_ENV.username}, ${PROVIDER_ENV.password}) or token (${PROVIDER_ENV.token}), in the provider block or the environment.`,
        path('username'),
      );
    }
  }
  const insecure = s.bool(d, 'insecure');
  const timeout = s.number(
    d,
    'request_timeout',
    (n) => n > 0 && n <= MAX_REQUEST_TIMEOUT_SECONDS,
    `a number of seconds greater than 0 and at most ${MAX_REQUEST_TIMEOUT_SECONDS}`,
  );
  const maxRetries = s.number(d, 'max_retries', (n) => Number.isInteger(n) && n >= 0 && n <= 100, 'an integer from 0 to 100');
  const caFile = s.string('ca_cert_file');
  let caCert: string | undefined;
  if (caFile !== undefined) {
    try {
      caCert = readFileSync(caFile, 'utf8');
    } catch (err) {
      const reason = err instanceof Error && 'code' in err ? String((err as NodeJS.ErrnoException).code) : String(err);
      d.addError(
        'Unreadable CA certificate file',
        `Cannot read ca_cert_file ${JSON.stringify(caFile)} (${s.origin('ca_cert_file')}): ${reason}.`,
        path('ca_cert_file'),
      );
    }
  }
  if (d.hasErrors() || baseUrl === undefined) return undefined;

  const options: ProxyAccountClientOptions = {
    baseUrl,
    auth: token !== undefined ? { token } : { username: username ?? '', password: password ?? '' },
    userAgent: `terraform-provider-proxyaccount/${PROVIDER_VERSION} terraform/${ctx.terraformVersion || 'unknown'}`,
    ...(caCert !== undefined ? { caCert } : {}),
    ...(insecure === true ? { insecure } : {}),
    ...(timeout !== undefined ? { timeoutMs: Math.round(timeout * 1000) } : {}),
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    ...(dispatcher !== undefined ? { dispatcher } : {}),
    ...requestLogger(env),
  };
  if (insecure === true) {
    d.addWarning(
      'TLS certificate verification is off',
      `insecure is true (${s.origin('insecure')}): the provider accepts any certificate, so anyone on the network path can read the credentials. Use it only with throwaway test servers; trust a private certificate with ca_cert_file instead.`,
      path('insecure'),
    );
  }
  // Loaded here, not at the top: schema-only runs of the provider never need the SDK.
  const [{ ProxyAccountClient }, { AccountStore }] = await Promise.all([import('../sdk'), import('../account')]);
  try {
    const client = new ProxyAccountClient(options);
    const store = new AccountStore(client, { signal: ctx.signal });
    clients.set(store, client);
    return store;
  } catch (err) {
    reportClientOptionError(d, s, err);
    return undefined;
  }
}

/** The client of each configured store, for what only the client knows (the credentials' state). */
const clients = new WeakMap<AccountStore, Pick<ProxyAccountClient, 'credentialState' | 'verifyCredentials'>>();

/**
 * Before the first plan of a configured process: proves the credentials with one cheap read,
 * unless an answer already proved them (a refresh, also one still out) or rejected them (that
 * error is already reported). Without it a plan whose objects all need no request (an empty
 * state) passes with a wrong password, and the apply after review fails. The SDK's 401 guard and
 * ban budget apply to it like to any request.
 */
export async function verifyCredentials(store: AccountStore, signal: AbortSignal): Promise<void> {
  const client = clients.get(store);
  if (client === undefined || client.credentialState === 'rejected') return;
  await client.verifyCredentials({ signal });
}

const FIELD_SETTING: Readonly<Record<string, Setting>> = {
  baseUrl: 'base_url',
  caCert: 'ca_cert_file',
  insecure: 'insecure',
  timeoutMs: 'request_timeout',
  maxRetries: 'max_retries',
  'auth.username': 'username',
  'auth.password': 'password',
  'auth.token': 'token',
  username: 'username',
  password: 'password',
  token: 'token',
};

function reportClientOptionError(d: Diagnostics, s: Settings, err: unknown): void {
  const field = typeof err === 'object' && err !== null && typeof (err as { field?: unknown }).field === 'string' ? (err as { field: string }).field : '';
  const setting = FIELD_SETTING[field];
  // SDK argument errors never contain a secret (it redacts them), so the message is safe to show.
  const message = err instanceof Error ? err.message : String(err);
  d.addError(
    'Invalid provider configuration',
    setting !== undefined ? `${setting} (${s.origin(setting)}): ${message}` : message,
    setting !== undefined ? path(setting) : undefined,
  );
}
