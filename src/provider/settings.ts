// The provider block: its schema, the environment variable each setting falls back to, and how
// a setting is resolved from the block or the environment. Messages name settings in Terraform's
// words (seconds, ca_cert_file), never the SDK's.
import { atMost, attr, defineSchema, greaterThan, intBetween, lengthBetween, matches, type Diagnostics, type PlanModel } from './framework';

/** The provider's version (also in package.json, checked by a test; kept here so the binary reads no files of its own). */
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

/** A provider setting's name. */
export type Setting = keyof typeof PROVIDER_ENV;

/** The longest request_timeout, in seconds (an hour; Node's timers cannot go past ~24 days). */
export const MAX_REQUEST_TIMEOUT_SECONDS = 3600;

/** The provider block's schema. */
export const providerSchema = defineSchema({
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
      description: 'Bearer token, instead of username and password. Token resources need username and password. Falls back to `PROXYACCOUNT_TOKEN`.',
      markdown: true,
      optional: true,
      sensitive: true,
      validators: [lengthBetween(1, 4096)],
    }),
    ca_cert_file: attr.string({
      description: "Path of a PEM file with the certificate(s) to trust, e.g. the emulator's. Falls back to `PROXYACCOUNT_CA_CERT_FILE`.",
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
      description: 'Time limit of each request attempt, in seconds, at most 3600. Falls back to `PROXYACCOUNT_REQUEST_TIMEOUT`; default 30.',
      markdown: true,
      optional: true,
      validators: [greaterThan(0), atMost(MAX_REQUEST_TIMEOUT_SECONDS)],
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

/** The provider block's values (UNKNOWN possible). */
export type ProviderConfig = PlanModel<typeof providerSchema>;

/** The attribute path of a setting. */
export const settingPath = (name: Setting): [{ attributeName: string }] => [{ attributeName: name }];

/** Resolves each setting from the provider block, else its environment variable. */
export class Settings {
  /** `config` is the provider block (known values only). */
  constructor(
    private readonly config: Readonly<Record<Setting, string | number | boolean | null>>,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Where a setting's value comes from, for messages (never the value itself). */
  origin(name: Setting): string {
    return this.config[name] !== null ? 'set in the provider block' : `from ${PROVIDER_ENV[name]}`;
  }

  /** The setting's string value, from the block or the environment ('' counts as unset). */
  string(name: Setting): string | undefined {
    const v = this.config[name];
    if (typeof v === 'string') return v;
    const e = this.env[PROVIDER_ENV[name]];
    // An empty variable counts as unset, as shells make it easy to export one by accident.
    return e === undefined || e === '' ? undefined : e;
  }

  /** The setting's boolean value (environment: true/false/1/0). */
  bool(d: Diagnostics, name: Setting): boolean | undefined {
    const v = this.config[name];
    if (typeof v === 'boolean') return v;
    const e = this.env[PROVIDER_ENV[name]]?.trim().toLowerCase();
    if (e === undefined || e === '') return undefined;
    if (e === 'true' || e === '1') return true;
    if (e === 'false' || e === '0') return false;
    d.addError('Invalid environment variable', `${PROVIDER_ENV[name]} must be true or false (or 1 or 0) for ${name}.`, settingPath(name));
    return undefined;
  }

  /** The setting's number, checked with `ok` when it comes from the environment. */
  number(d: Diagnostics, name: Setting, ok: (n: number) => boolean, expectation: string): number | undefined {
    const v = this.config[name];
    if (typeof v === 'number') return v; // already checked by the schema's validators
    const e = this.env[PROVIDER_ENV[name]]?.trim();
    if (e === undefined || e === '') return undefined;
    const n = Number(e);
    if (Number.isFinite(n) && ok(n)) return n;
    d.addError('Invalid environment variable', `${PROVIDER_ENV[name]} must be ${expectation} for ${name}, got ${JSON.stringify(e)}.`, settingPath(name));
    return undefined;
  }
}
