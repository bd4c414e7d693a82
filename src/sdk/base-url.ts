// Validation of the client's base URL (HTTPS only, plain HTTP only for loopback on request; no
// credentials, query or fragment; a path prefix is kept), and the request URLs built from it.
import { isIPv4 } from 'node:net';
import { InvalidArgumentError } from './errors';

/** A validated base URL, split into what request URLs are built from. */
export interface BaseUrl {
  /** Scheme, host and port, e.g. `https://127.0.0.1:8443`. */
  readonly origin: string;
  /** Path prefix without trailing slash, e.g. `` or `/prefix`. */
  readonly prefix: string;
  /** Whether the scheme is `https:`. */
  readonly https: boolean;
}

/** True for 127.0.0.0/8, ::1 and localhost (hostname as `URL` spells it). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost') return true;
  if (h === '[::1]' || h === '::1') return true;
  return isIPv4(h) && h.startsWith('127.');
}

/** Parses and checks `baseUrl`; throws InvalidArgumentError (field `baseUrl`) when it is unusable. */
export function parseBaseUrl(baseUrl: unknown, allowHttp: boolean): BaseUrl {
  const field = 'baseUrl';
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new InvalidArgumentError(field, 'must be a non-empty URL string such as https://api.example.com');
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidArgumentError(field, 'is not a valid absolute URL');
  }
  // Checked before anything that could echo the URL, so a password in it is never printed.
  if (url.username !== '' || url.password !== '') {
    throw new InvalidArgumentError(field, 'must not contain credentials; pass them in the auth option');
  }
  if (baseUrl.includes('?') || baseUrl.includes('#')) {
    throw new InvalidArgumentError(field, 'must not contain a query string or fragment');
  }
  if (url.protocol === 'http:') {
    if (!allowHttp) {
      throw new InvalidArgumentError(
        field,
        'must use https:// (the API requires HTTPS); plain http:// is only possible for a loopback ' + 'host with allowHttp: true',
      );
    }
    if (!isLoopbackHost(url.hostname)) {
      throw new InvalidArgumentError(field, `plain http:// is allowed only for loopback hosts (127.0.0.0/8, ::1, localhost), not ${url.hostname}`);
    }
  } else if (url.protocol !== 'https:') {
    throw new InvalidArgumentError(field, `must use https:// (got ${url.protocol})`);
  }
  return {
    origin: url.origin,
    prefix: url.pathname.replace(/\/+$/, ''),
    https: url.protocol === 'https:',
  };
}

/** The URL of an API path under `base`, with the query's defined fields. */
export function requestUrl(base: BaseUrl, path: string, query?: Readonly<Record<string, string | undefined>>): string {
  const url = base.origin + base.prefix + path;
  const q = toParams(query).toString();
  return q === '' ? url : `${url}?${q}`;
}

/** An `application/x-www-form-urlencoded` body of the form's defined fields. */
export function formBody(form: Readonly<Record<string, string | undefined>> | undefined): string {
  return toParams(form).toString();
}

/** A 404 can mean a wrong base URL (every path unknown) as well as a missing object: name the URL. */
export function notFoundHint(base: BaseUrl, path: string): string {
  return `the URL was ${base.origin + base.prefix + path}; if that endpoint should exist, the base URL is probably wrong (it must be the API's root, including any path prefix it is served under)`;
}

function toParams(fields: Readonly<Record<string, string | undefined>> | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields ?? {})) if (v !== undefined) params.append(k, v);
  return params;
}
