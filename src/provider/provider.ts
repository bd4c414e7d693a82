// The proxyaccount provider: its configuration (each setting falls back to an environment
// variable), the one SDK client per process, and the explicit list of resource and data-source
// types. To add a type, import its module and add one line to RESOURCES or DATA_SOURCES.
import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import type { ProxyAccountClientOptions } from '../sdk';
import { subAccountDataSource } from './data-sources/sub-account';
import { authorizedHostnamesDataSource } from './data-sources/authorized-hostnames';
import { authorizedIpsDataSource } from './data-sources/authorized-ips';
import { bearerTokensDataSource } from './data-sources/bearer-tokens';
import { geoIpsDataSource } from './data-sources/geoips';
import { proxiesDataSource } from './data-sources/proxies';
import {
  attr,
  defineSchema,
  Diagnostics,
  FrameworkServer,
  greaterThan,
  intBetween,
  isUnknown,
  lengthBetween,
  matches,
  type ConfigureContext,
  type DataSourceDefinition,
  type PlanModel,
  type ProviderData,
  type ProviderDefinition,
  type ResourceDefinition,
} from './framework';
import { Reader } from './reader';
import { subAccountResource } from './resources/sub-account';
import { authorizedHostnamesResource } from './resources/authorized-hostnames';
import { authorizedIpsResource } from './resources/authorized-ips';
import { authorizedProxiesResource } from './resources/authorized-proxies';
import { authorizedHostnameResource } from './resources/authorized-hostname';
import { authorizedIpResource } from './resources/authorized-ip';
import { authorizedProxyResource } from './resources/authorized-proxy';
import { bearerTokenResource } from './resources/bearer-token';

/** Every managed resource type of the provider, one line each. */
const RESOURCES: readonly ResourceDefinition[] = [
  subAccountResource,
  authorizedIpsResource,
  authorizedHostnamesResource,
  authorizedProxiesResource,
  authorizedIpResource,
  authorizedHostnameResource,
  authorizedProxyResource,
  bearerTokenResource,
];

/** Every data source type of the provider, one line each. */
const DATA_SOURCES: readonly DataSourceDefinition[] = [
  subAccountDataSource,
  proxiesDataSource,
  geoIpsDataSource,
  authorizedIpsDataSource,
  authorizedHostnamesDataSource,
  bearerTokensDataSource,
];

/** The provider's version (also in package.json; kept here so the binary reads no files of its own). */
export const PROVIDER_VERSION = '0.1.0';

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

type Setting = keyof typeof PROVIDER_ENV;

const providerSchema = defineSchema({
  description: 'Manages a proxy-service account: sub-accounts, authorized IPs, hostnames and proxies, and bearer tokens.',
  attributes: {
    base_url: attr.string({
      description: 'Base URL of the account API (HTTPS). Falls back to `PROXYACCOUNT_BASE_URL`.',
      markdown: true,
      optional: true,
      validators: [matches(/^https:\/\/\S+$/i, 'an https:// URL')],
    }),
    username: attr.string({
      description: 'Parent account username for HTTP Basic authentication. Falls back to `PROXYACCOUNT_USERNAME`.',
      markdown: true,
      optional: true,
      validators: [lengthBetween(1, 255)],
    }),
    password: attr.string({
      description: 'Parent account password. Falls back to `PROXYACCOUNT_PASSWORD`.',
      markdown: true,
      optional: true,
      sensitive: true,
      validators: [lengthBetween(1, 1024)],
    }),
    token: attr.string({
      description:
        'Bearer token, instead of username and password. Token resources need username and password. Falls back to `PROXYACCOUNT_TOKEN`.',
      markdown: true,
      optional: true,
      sensitive: true,
      validators: [lengthBetween(1, 4096)],
    }),
    ca_cert_file: attr.string({
      description: 'Path of a PEM file with the certificate(s) to trust, e.g. the emulator\'s. Falls back to `PROXYACCOUNT_CA_CERT_FILE`.',
      markdown: true,
      optional: true,
      validators: [lengthBetween(1, 4096)],
    }),
    insecure: attr.bool({
      description: 'Skip TLS certificate verification (throwaway test servers only). Falls back to `PROXYACCOUNT_INSECURE`; default false.',
      markdown: true,
      optional: true,
    }),
    request_timeout: attr.number({
      description: 'Time limit of each request attempt, in seconds. Falls back to `PROXYACCOUNT_REQUEST_TIMEOUT`; default 30.',
      markdown: true,
      optional: true,
      validators: [greaterThan(0)],
    }),
    max_retries: attr.number({
      description:
        'Retries of a repeatable request after a server error, network error or timeout (never after 401). Falls back to `PROXYACCOUNT_MAX_RETRIES`; default 3.',
      markdown: true,
      optional: true,
      validators: [intBetween(0, 100)],
    }),
  },
});

type ProviderConfig = PlanModel<typeof providerSchema>;

/** Options of {@link createProvider}; for tests and tools, Terraform uses the defaults. */
export interface ProviderOptions {
  /** Where the environment fallbacks are read. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** undici dispatcher for the SDK client (e.g. a MockAgent); excludes ca_cert_file and insecure. @default the SDK's own agent */
  readonly dispatcher?: Dispatcher;
}

/** The provider definition (schema, configure step, registered types). */
export function createProvider(opts: ProviderOptions = {}): ProviderDefinition<typeof providerSchema> {
  const env = opts.env ?? process.env;
  return {
    typeName: 'proxyaccount',
    schema: providerSchema,
    configure: (ctx, config) => configure(ctx, config, env, opts.dispatcher),
    resources: RESOURCES,
    dataSources: DATA_SOURCES,
  };
}

/** The ProviderServer the protocol layer serves. */
export function createProviderServer(opts: ProviderOptions = {}): FrameworkServer {
  return new FrameworkServer(createProvider(opts));
}

const path = (name: Setting): [{ attributeName: string }] => [{ attributeName: name }];

async function configure(
  ctx: ConfigureContext,
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  dispatcher: Dispatcher | undefined,
): Promise<ProviderData | undefined> {
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
    d.addError('Missing API base URL', `Set base_url in the provider block or the ${PROVIDER_ENV.base_url} environment variable, e.g. https://api.example.com.`, path('base_url'));
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
      d.addError('Missing password', `username is set (${s.origin('username')}) but no password: set password in the provider block or ${PROVIDER_ENV.password}.`, path('password'));
    } else if (password !== undefined && username === undefined) {
      d.addError('Missing username', `password is set (${s.origin('password')}) but no username: set username in the provider block or ${PROVIDER_ENV.username}.`, path('username'));
    } else if (username === undefined) {
      d.addError(
        'Missing credentials',
        `Set username and password (${PROVIDER_ENV.username}, ${PROVIDER_ENV.password}) or token (${PROVIDER_ENV.token}), in the provider block or the environment.`,
        path('username'),
      );
    }
  }
  const insecure = s.bool(d, 'insecure');
  const timeout = s.number(d, 'request_timeout', (n) => n > 0, 'a number of seconds greater than 0');
  const maxRetries = s.number(d, 'max_retries', (n) => Number.isInteger(n) && n >= 0 && n <= 100, 'an integer from 0 to 100');
  const caFile = s.string('ca_cert_file');
  let caCert: string | undefined;
  if (caFile !== undefined) {
    try {
      caCert = readFileSync(caFile, 'utf8');
    } catch (err) {
      const reason = err instanceof Error && 'code' in err ? String((err as NodeJS.ErrnoException).code) : String(err);
      d.addError('Unreadable CA certificate file', `Cannot read ca_cert_file ${JSON.stringify(caFile)} (${s.origin('ca_cert_file')}): ${reason}.`, path('ca_cert_file'));
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
  };
  // Loaded here, not at the top: schema-only runs of the provider never need the SDK.
  const { ProxyAccountClient } = await import('../sdk');
  try {
    const client = new ProxyAccountClient(options);
    return { client, reader: new Reader(client, { signal: ctx.signal }) };
  } catch (err) {
    reportClientOptionError(d, s, err);
    return undefined;
  }
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

/** Resolves each setting from the provider block, else its environment variable. */
class Settings {
  constructor(
    private readonly config: Readonly<Record<Setting, string | number | boolean | null>>,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Where a setting's value comes from, for messages (never the value itself). */
  origin(name: Setting): string {
    return this.config[name] !== null ? 'set in the provider block' : `from ${PROVIDER_ENV[name]}`;
  }

  string(name: Setting): string | undefined {
    const v = this.config[name];
    if (typeof v === 'string') return v;
    const e = this.env[PROVIDER_ENV[name]];
    // An empty variable counts as unset, as shells make it easy to export one by accident.
    return e === undefined || e === '' ? undefined : e;
  }

  bool(d: Diagnostics, name: Setting): boolean | undefined {
    const v = this.config[name];
    if (typeof v === 'boolean') return v;
    const e = this.env[PROVIDER_ENV[name]]?.trim().toLowerCase();
    if (e === undefined || e === '') return undefined;
    if (e === 'true' || e === '1') return true;
    if (e === 'false' || e === '0') return false;
    d.addError('Invalid environment variable', `${PROVIDER_ENV[name]} must be true or false (or 1 or 0) for ${name}.`, path(name));
    return undefined;
  }

  number(d: Diagnostics, name: Setting, ok: (n: number) => boolean, expectation: string): number | undefined {
    const v = this.config[name];
    if (typeof v === 'number') return v; // already checked by the schema's validators
    const e = this.env[PROVIDER_ENV[name]]?.trim();
    if (e === undefined || e === '') return undefined;
    const n = Number(e);
    if (Number.isFinite(n) && ok(n)) return n;
    d.addError('Invalid environment variable', `${PROVIDER_ENV[name]} must be ${expectation} for ${name}, got ${JSON.stringify(e)}.`, path(name));
    return undefined;
  }
}
