// Account set-up through the API for the proxy-server tests: sub-accounts, tokens, proxies.
import type { HostResolver } from '../../src/emulator/proxy/admission';
import { startProxyWorld, type ProxyWorld } from './proxy-world';

/** Creates a sub-account of acme with a password and optional limits (GB). */
export async function createSub(world: ProxyWorld, username: string, extra: Record<string, string> = {}): Promise<{ username: string; password: string }> {
  const password = `${username}-Pw`;
  const res = await world.api('POST', '/api/sub/create/', { username, password, ...extra });
  if (res.status !== 200) throw new Error(`sub-account ${username}: ${res.status}`);
  return { username, password };
}

/** Creates a bearer token for `username` (acme itself when undefined); returns the raw value and id. */
export async function createToken(world: ProxyWorld, username?: string, expiresAt?: string): Promise<{ raw: string; id: number }> {
  const form: Record<string, string> = { label: 'proxy-test' };
  if (username !== undefined) form['username'] = username;
  if (expiresAt !== undefined) form['expires_at'] = expiresAt;
  const res = await world.api('POST', '/api/token/create/', form);
  if (res.status !== 200) throw new Error(`token: ${res.status}`);
  return { raw: res.json.token as string, id: res.json.id as number };
}

/** Authorizes proxy hosts for acme's family. */
export async function authorizeProxies(world: ProxyWorld, ...hosts: string[]): Promise<void> {
  for (const proxy of hosts) {
    const res = await world.api('POST', '/api/proxy/add/', { proxy });
    if (res.status !== 200) throw new Error(`proxy ${proxy}: ${res.status}`);
  }
}

/** An account's total_bandwidth in bytes (1 GB = BYTES_PER_GB bytes in these tests). */
export async function usedBytes(world: ProxyWorld, username: string, bytesPerGb: number): Promise<{ total: number; monthly: number }> {
  const res = await world.api('GET', '/api/sub/get/', { username });
  if (res.status !== 200) throw new Error(`sub get ${username}: ${res.status}`);
  return { total: Math.round(res.json.total_bandwidth * bytesPerGb), monthly: Math.round(res.json.monthly_bandwidth * bytesPerGb) };
}

/** The emulator's date `days` from its now, YYYY-MM-DD. */
export async function emulatorDate(world: ProxyWorld, days: number): Promise<string> {
  const res = await world.control('/_emulator/clock', { advanceSeconds: 0 });
  return new Date(Date.parse(res.json.now as string) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The parent's own usage in bytes, from the state dump (the API has no endpoint for it). */
export async function parentBytes(world: ProxyWorld, bytesPerGb: number): Promise<number> {
  const res = await world.control('/_emulator/state');
  return Math.round((res.json.accounts[0].total_bandwidth as number) * bytesPerGb);
}

/**
 * One proxy world per test file (or describe block), reset before every test with `us-ny`
 * authorized for acme; `resolve` answers its lookups of authorized hostnames. Returns the getter
 * of the running world.
 */
export function useProxyWorld(resolve?: HostResolver): () => ProxyWorld {
  let world: ProxyWorld | undefined;
  const current = (): ProxyWorld => {
    if (world === undefined) throw new Error('proxy world not started');
    return world;
  };
  beforeAll(async () => {
    world = await startProxyWorld(undefined, undefined, resolve);
  });
  afterAll(() => world?.close());
  beforeEach(async () => {
    await current().control('/_emulator/reset', {});
    await authorizeProxies(current(), 'us-ny');
  });
  return current;
}
