// The provider's configure step: resolves every setting, reports each problem on its attribute
// (with the environment variable that can supply it), and builds the one SDK client and account
// store of the process. Sends no request; verifyCredentials, before the first plan, sends one (two at most when the first answer is lost).
import type { Dispatcher } from 'undici';
import type { AccountStore } from '../account';
import type { ProxyAccountClient, ProxyAccountClientOptions } from '../sdk';
import { createLogger, levelFromEnv } from '../protocol/log';
import { type DeferredCa, deferredTrust } from './deferred-ca';
import { isUnknown, type ConfigureContext, type Diagnostics } from './framework';
import { type BlockValues, clientOptions, type ConnectionSettings, type ResolvedConnection, resolveConnection } from '../account/connection-settings';
import { PROVIDER_ENV, PROVIDER_VERSION, settingPath as path, type ProviderConfig, type Setting } from './settings';

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

/** What the configure step takes from the provider's options (ProviderOptions in provider.ts). */
export interface ConfigureOptions {
  /** undici dispatcher for the SDK client (e.g. a MockAgent); excludes ca_cert_file and insecure. @default the SDK's own agent */
  readonly dispatcher?: Dispatcher;
  /**
   * What the executable's shell line kept from Node (src/provider/deferred-ca.ts): Node's bundled
   * roots and the NODE_EXTRA_CA_CERTS file, given to the API client when no ca_cert_file is set.
   * @default nothing deferred: Node's default trust
   */
  readonly deferredCa?: DeferredCa;
  /**
   * Called once in a configured process, after its configure has answered, just before the API
   * client's HTTP stack (undici) loads and its first connection starts: where the executable loads
   * the Node modules that stack needs and then sets the V8 flags of a serving process
   * (src/main-provider.ts). Node compiles a built-in module loaded after a flag change without its
   * code cache, and V8 sizes the young generation while undici is evaluated.
   * @default nothing
   */
  readonly beforeClientLoad?: () => void;
}

/** Builds the account store from the provider block, or returns undefined after adding errors. */
export async function configure(
  ctx: ConfigureContext,
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  opts: ConfigureOptions = {},
): Promise<AccountStore | undefined> {
  const { dispatcher, deferredCa } = opts;
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
  const resolved = resolveConnection(config as BlockValues, env);
  for (const p of resolved.problems) d.addError(p.summary, p.detail, path(p.setting));
  const connection = resolved.settings;
  if (d.hasErrors() || connection === undefined) return undefined;

  const options: ProxyAccountClientOptions = {
    ...clientOptions(connection),
    ...defaultTrust(d, connection, deferredCa, dispatcher),
    userAgent: `terraform-provider-proxyaccount/${PROVIDER_VERSION} terraform/${ctx.terraformVersion || 'unknown'}`,
    ...(dispatcher !== undefined ? { dispatcher } : {}),
    ...requestLogger(env),
  };
  const insecure = connection.insecure;
  if (insecure === true) {
    d.addWarning(
      'TLS certificate verification is off',
      `insecure is true (${resolved.origin('insecure')}): the provider accepts any certificate, so anyone on the network path can read the credentials. Use it only with throwaway test servers; trust a private certificate with ca_cert_file instead.`,
      path('insecure'),
    );
  }
  // Loaded here, not at the top: schema-only runs of the provider never need the SDK.
  const [{ ProxyAccountClient }, { AccountStore }] = await Promise.all([import('../sdk'), import('../account')]);
  try {
    const client = new ProxyAccountClient(options);
    const store = new AccountStore(client, { signal: ctx.signal });
    clients.set(store, client);
    // A configured process always reaches the API (the credential check before the first plan,
    // or the reads), so its first connection is opened now, after this answer has gone out: its
    // round trips (and the SDK's HTTP client loading) overlap with Terraform's next calls instead
    // of delaying the first request, the credential probe.
    setTimeout(() => {
      opts.beforeClientLoad?.();
      client.preconnect();
    }, 0).unref();
    return store;
  } catch (err) {
    reportClientOptionError(d, resolved, err);
    return undefined;
  }
}

/**
 * The trust Node would have given, when the executable kept Node's certificates from it
 * (deferred-ca.ts): only where the default trust is in force (no ca_cert_file, no insecure, the
 * SDK's own agent). An extra file that adds nothing gets a warning, as Node prints one at start-up.
 */
function defaultTrust(
  d: Diagnostics,
  connection: Pick<ConnectionSettings, 'caCert' | 'insecure'>,
  deferred: DeferredCa | undefined,
  dispatcher: Dispatcher | undefined,
): Pick<ProxyAccountClientOptions, 'caCert'> {
  if (deferred === undefined || connection.caCert !== undefined || connection.insecure === true || dispatcher !== undefined) return {};
  const trust = deferredTrust(deferred);
  if (trust.ignored !== undefined) {
    d.addWarning(
      'Extra CA certificates ignored',
      `NODE_EXTRA_CA_CERTS names ${JSON.stringify(deferred.extraCaFile)}, which ${trust.ignored}: the API's certificate is checked against Node's bundled root certificates alone, as Node itself does then.`,
    );
  }
  return trust.caCert === undefined ? {} : { caCert: trust.caCert };
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
  if (client === undefined || client.credentialState === 'rejected' || client.credentialState === 'unanswered') return;
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

function reportClientOptionError(d: Diagnostics, s: Pick<ResolvedConnection, 'origin'>, err: unknown): void {
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
