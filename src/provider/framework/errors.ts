// Turns a failure (usually an SDK error) into one diagnostic: a short summary, a detail naming
// the object and the cause, and the attribute path when one attribute is at fault. SDK errors
// are recognised by their stable `code`, so this module loads no SDK code.
import type { AttributePath, Diagnostic } from '../../protocol/types';
import { errorDiagnostic } from './diagnostics';

/** What the failed operation was about. */
export interface ErrorContext {
  /** Short title, e.g. "Unable to create sub-account". */
  readonly summary: string;
  /** The object, e.g. "sub-account 'alice'". */
  readonly object: string;
  /**
   * Attribute names of the schema: an SDK `InvalidArgumentError.field` (camelCase) that names
   * one of them (in snake_case) puts the diagnostic on that attribute. @default none
   */
  readonly attributes?: readonly string[];
}

/** The environment variables that carry credentials; named in authentication diagnostics. */
const CREDENTIAL_HINT =
  'Check the provider credentials: username and password (PROXYACCOUNT_USERNAME, PROXYACCOUNT_PASSWORD) or token (PROXYACCOUNT_TOKEN).';

interface CodedError {
  readonly code: string;
  readonly message: string;
  readonly field?: unknown;
  readonly retryAfterSeconds?: unknown;
}

function isCoded(err: unknown): err is CodedError {
  if (!(err instanceof Error)) return false;
  const code: unknown = (err as unknown as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('ERR_');
}

/** camelCase → snake_case, e.g. monthlyLimit → monthly_limit. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Builds the diagnostic for `err` (anything thrown) in `ctx`. Never includes a secret. */
export function diagnosticFromError(err: unknown, ctx: ErrorContext): Diagnostic {
  const subject = ctx.object.charAt(0).toUpperCase() + ctx.object.slice(1);
  if (!isCoded(err)) {
    const message = err instanceof Error ? err.message : String(err);
    return errorDiagnostic(ctx.summary, `${subject}: unexpected error: ${message}. This is a bug in the provider; please report it.`);
  }
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
    case 'ERR_BANNED': {
      const wait = typeof err.retryAfterSeconds === 'number' ? ` The API asks to retry after ${err.retryAfterSeconds} seconds.` : '';
      return errorDiagnostic(
        'Requests temporarily banned',
        detail(`The API bans a client address for 3 hours after 4 failed authentications.${wait} ${CREDENTIAL_HINT}`),
      );
    }
    case 'ERR_BASIC_AUTH_REQUIRED':
      return errorDiagnostic(
        ctx.summary,
        detail('Bearer tokens can only be managed with username and password (PROXYACCOUNT_USERNAME, PROXYACCOUNT_PASSWORD), not with a token.'),
      );
    case 'ERR_PAYMENT_REQUIRED':
      return errorDiagnostic(ctx.summary, detail("The account's subscription plan does not allow this (a plan limit was reached or the plan lacks the feature)."));
    case 'ERR_FORBIDDEN':
      return errorDiagnostic(
        ctx.summary,
        detail('Sub-accounts, proxies and the username argument need the parent account\'s credentials, and the sub-account must belong to it.'),
      );
    case 'ERR_TIMEOUT':
    case 'ERR_NETWORK':
      return errorDiagnostic(
        ctx.summary,
        detail('Check base_url (PROXYACCOUNT_BASE_URL), that the API is reachable, and ca_cert_file (PROXYACCOUNT_CA_CERT_FILE) for a private certificate; request_timeout and max_retries tune waiting.'),
      );
    case 'ERR_ABORTED':
      return errorDiagnostic(ctx.summary, detail('Terraform asked the provider to stop.'));
    case 'ERR_INVALID_ARGUMENT': {
      const path = fieldPath(err.field, ctx.attributes);
      return errorDiagnostic(ctx.summary, detail(), path);
    }
    default:
      return errorDiagnostic(ctx.summary, detail());
  }
}

function fieldPath(field: unknown, attributes: readonly string[] | undefined): AttributePath | undefined {
  if (typeof field !== 'string' || attributes === undefined) return undefined;
  const name = snakeCase(field);
  return attributes.includes(name) ? [{ attributeName: name }] : undefined;
}

/** True when `err` is an SDK error with this code (works across SDK copies). */
export function hasErrorCode(err: unknown, code: string): boolean {
  return isCoded(err) && err.code === code;
}

/** True for the SDK's 404 (the object is gone). */
export function isNotFound(err: unknown): boolean {
  return hasErrorCode(err, 'ERR_NOT_FOUND');
}
