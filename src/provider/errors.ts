// The provider's reading of its own errors: the SDK's and the account store's, recognised by
// their brand (never by a code prefix, which Node's own errors share), turned into diagnostics
// that name the object, the cause and the fix in Terraform's words. The framework calls this
// through ProviderDefinition.describeError; anything not recognised is reported as a bug.
import { attributeNamed, capitalize, errorDiagnostic, type ErrorContext } from './framework';
import type { Diagnostic } from '../protocol/types';
import type { ProxyAccountError, ProxyAccountErrorCode } from '../sdk/errors';
import { PROVIDER_ENV } from './settings';

/** The settings that carry credentials; named in authentication diagnostics. */
const CREDENTIAL_HINT = `Check the provider credentials: username and password (${PROVIDER_ENV.username}, ${PROVIDER_ENV.password}) or token (${PROVIDER_ENV.token}).`;

let sdkErrors: typeof import('../sdk/errors') | undefined;

/** The SDK's errors module, loaded when the first error is looked at. */
function sdkErrorsModule(): typeof import('../sdk/errors') {
  // Not imported at the top: a provider start that sends no request loads no SDK code.
  sdkErrors ??= require('../sdk/errors') as typeof import('../sdk/errors');
  return sdkErrors;
}

/** True for an error of the SDK or the account store (by its brand), whose facts can then be read. */
export function isProxyAccountError(err: unknown): err is ProxyAccountError<string> {
  return typeof err === 'object' && err !== null && sdkErrorsModule().isProxyAccountError(err);
}

/** True when `err` is an SDK error with this code (works across SDK copies): the SDK's test, loaded lazily. */
export function hasErrorCode(err: unknown, code: ProxyAccountErrorCode): boolean {
  return typeof err === 'object' && err !== null && sdkErrorsModule().isProxyAccountError(err, code);
}

/** True for the SDK's 404 (the object is gone). */
export function isNotFound(err: unknown): boolean {
  return hasErrorCode(err, 'ERR_NOT_FOUND');
}

/** SDK and SDK-field names as the provider block calls them. */
const SETTING_OF_FIELD: Readonly<Record<string, string>> = {
  baseUrl: 'base_url',
  caCert: 'ca_cert_file',
  timeoutMs: 'request_timeout',
  maxRetries: 'max_retries',
};

/** The diagnostic for an SDK or account-store error; undefined for anything else (a bug). */
export function describeProxyAccountError(err: unknown, ctx: ErrorContext): Diagnostic | undefined {
  if (!isProxyAccountError(err)) return undefined;
  const subject = capitalize(ctx.object);
  const detail = (hint?: string): string => `${subject}: ${err.message}${hint === undefined ? '' : `\n\n${hint}`}`;
  switch (err.code) {
    case 'ERR_AUTHENTICATION':
      return errorDiagnostic(
        'Authentication failed',
        detail(`${CREDENTIAL_HINT} No further requests were sent with these credentials, to avoid the account's ban after 4 failed authentications.`),
      );
    case 'ERR_CREDENTIALS_REJECTED':
      return errorDiagnostic(
        'Authentication failed',
        `${subject}: the API already rejected the provider's credentials with 401 earlier in this run. ${CREDENTIAL_HINT} No further requests were sent, to avoid the account's ban after 4 failed authentications.`,
      );
    case 'ERR_CREDENTIALS_UNPROVEN':
      return errorDiagnostic('Credentials not verified', detail());
    case 'ERR_CREDENTIALS_REMEMBERED_REJECTED':
      // Unanswered requests alone: the credentials were not rejected, so blaming them would mislead.
      if (!err.credentialsRejected) {
        return errorDiagnostic(
          'Requests to the API paused after unanswered requests',
          detail(
            `The provider's credentials were not rejected; earlier requests to the API got no answer and may have been counted as failed authentications, so nothing is sent until the remembered entries expire or the memory is cleared as said above. If the API was only unreachable, check base_url (${PROVIDER_ENV.base_url}) and that the API answers now.`,
          ),
        );
      }
      return errorDiagnostic('Authentication failed', detail(`${CREDENTIAL_HINT}`));
    case 'ERR_BANNED': {
      const after = (err as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      const wait = typeof after === 'number' ? ` The API asks to retry after ${after} seconds.` : '';
      return errorDiagnostic(
        'Requests temporarily banned',
        detail(`The API bans a client address for 3 hours after 4 failed authentications.${wait} ${CREDENTIAL_HINT}`),
      );
    }
    case 'ERR_BASIC_AUTH_REQUIRED':
      return errorDiagnostic(
        ctx.summary,
        detail(`Bearer tokens can only be managed with username and password (${PROVIDER_ENV.username}, ${PROVIDER_ENV.password}), not with a token.`),
      );
    case 'ERR_PAYMENT_REQUIRED':
      return errorDiagnostic(
        ctx.summary,
        detail("The account's subscription plan does not allow this (a plan limit was reached or the plan lacks the feature)."),
      );
    case 'ERR_FORBIDDEN':
      return errorDiagnostic(
        ctx.summary,
        detail("Sub-accounts, proxies and the username argument need the parent account's credentials, and the sub-account must belong to it."),
      );
    case 'ERR_TIMEOUT':
    case 'ERR_NETWORK':
      return errorDiagnostic(
        ctx.summary,
        detail(
          `Check base_url (${PROVIDER_ENV.base_url}), that the API is reachable, and ca_cert_file (${PROVIDER_ENV.ca_cert_file}) for a private certificate; request_timeout (seconds) and max_retries tune waiting.`,
        ),
      );
    case 'ERR_UNKNOWN_OUTCOME':
      // The store's: the run reached the API (it sent the write and read the account back), so
      // connection advice would mislead; the message says what is known and what comes next.
      return errorDiagnostic(ctx.summary, detail());
    case 'ERR_ABORTED':
      return errorDiagnostic(ctx.summary, detail('Terraform asked the provider to stop.'));
    case 'ERR_INVALID_ARGUMENT': {
      const field = (err as { field?: unknown }).field;
      const name = typeof field === 'string' ? (SETTING_OF_FIELD[field] ?? field) : field;
      return errorDiagnostic(ctx.summary, detail(), attributeNamed(name, ctx.attributes));
    }
    default:
      return errorDiagnostic(ctx.summary, detail());
  }
}
