// Small helpers of the account store: targets, phrases, 404 as absence, hostname matching.
import { isProxyAccountError } from '../sdk';

/** The SDK's optional `username` argument: left out for the authenticated account. */
export function targetOf(username: string | null): { username?: string } {
  return username === null ? {} : { username };
}

export function forAccount(username: string | null): string {
  return username === null ? '' : ` for sub-account '${username}'`;
}

/** The value of `read`, or undefined when it fails with 404 (the sub-account does not exist). */
export async function absentOn404<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isProxyAccountError(err, 'ERR_NOT_FOUND')) return undefined;
    throw err;
  }
}

/** The listed form of `domain`: an exact match, else a match without case (DNS names). */
export function matchHostname(listed: readonly string[], domain: string): string | undefined {
  return listed.find((d) => d === domain) ?? listed.find((d) => d.toLowerCase() === domain.toLowerCase());
}
