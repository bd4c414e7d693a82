// The provider block: its schema, the environment variable each setting falls back to, and how
// a setting is resolved (src/account/connection-settings.ts, shared with the CLI). Messages name settings in Terraform's
// words (seconds, ca_cert_file), never the SDK's.
import { MAX_REQUEST_TIMEOUT_SECONDS, type Setting } from '../account/connection-settings';
import { atMost, attr, defineSchema, greaterThan, intBetween, lengthBetween, matches, type PlanModel } from './framework';

/** The provider's version (also in package.json, checked by a test; kept here so the binary reads no files of its own). */
export const PROVIDER_VERSION = '0.1.0';

// The environment variables and the rules that read them are shared with the CLI (src/account).
export { MAX_REQUEST_TIMEOUT_SECONDS, PROVIDER_ENV, type Setting } from '../account/connection-settings';

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
