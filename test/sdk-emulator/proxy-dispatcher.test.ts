// The SDK's proxy dispatcher against the emulator process: the authorized-proxy list and a token
// become requests through the emulated proxy, sticky with an ipHash, in the chosen country; a
// deleted token is refused, and proxyRefusal reads each refusal from undici's error. Also its
// argument checks, made before anything is opened, and what printing a dispatcher shows.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { fetch, request } from 'undici';
import { InvalidArgumentError, proxyDispatcher, proxyRefusal } from '../../src/sdk';
import { ACME, useEmulator } from './setup';

const { emu, client } = useEmulator();
let target: Server;
let targetUrl: string;
beforeAll(async () => {
  target = createServer((_req, res) => res.end('hello'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

/** The emulator's loopback address for a listed `domain:port`. */
const connectTo = (proxy: string): string => emu().proxies[proxy.split('.')[0]!]!;

test('the listed proxies and a token make a dispatcher that passes, sticky with ipHash and in the chosen country', async () => {
  const acme = client(ACME);
  await acme.proxies.add('us-ny');
  await acme.proxies.add('de-fra');
  const proxies = await acme.proxies.list();
  const token = await acme.tokens.create({ label: 'script' });
  const dispatcher = proxyDispatcher({
    proxies,
    token: token.token,
    ipHash: 'job-1',
    country: 'fr',
    countryHeader: emu().countryHeader,
    use: 'de-fra',
    connectTo,
  });
  try {
    const exits = new Set<string>();
    for (let i = 0; i < 2; i += 1) {
      const res = await request(targetUrl, { dispatcher });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('hello');
      exits.add(String(res.headers[emu().exitIpHeader.toLowerCase()]));
    }
    expect(exits.size).toBe(1);
    expect([...exits][0]).toMatch(/^2001:db8:4652::/); // FR
  } finally {
    await dispatcher.close();
  }
  await acme.tokens.delete({ id: token.id });
  const refused = proxyDispatcher({ proxies, token: token.token, connectTo });
  const tunnelled = proxyDispatcher({ proxies, token: token.token, connectTo, tunnelHttp: true });
  try {
    // undici reports a 407 in absolute form, and any refused tunnel, as errors of its own.
    const absolute = await request(targetUrl, { dispatcher: refused }).catch((e: unknown) => e);
    expect(proxyRefusal(absolute)).toEqual({ status: 407, via: 'absolute-form' });
    const tunnel = await request(targetUrl, { dispatcher: tunnelled }).catch((e: unknown) => e);
    expect(proxyRefusal(tunnel)).toEqual({ status: 407, via: 'tunnel' });
    // fetch wraps them in causes.
    const fetched = await fetch(targetUrl, { dispatcher: tunnelled }).catch((e: unknown) => e);
    expect(fetched).toBeInstanceOf(TypeError);
    expect(proxyRefusal(fetched)).toEqual({ status: 407, via: 'tunnel' });
  } finally {
    await Promise.all([refused.close(), tunnelled.close()]);
  }
});

test("proxyRefusal reads a deactivated sub-account's 402 over a tunnel, and is undefined for other errors", async () => {
  const acme = client(ACME);
  await acme.proxies.add('us-ny');
  const proxies = await acme.proxies.list();
  await acme.subAccounts.create({ username: 'refusals', password: 'refusals-pass-1' });
  const sub = client({ username: 'refusals', password: 'refusals-pass-1' });
  const token = await sub.tokens.create({ label: 'refusals' });
  const dispatcher = proxyDispatcher({ proxies, token: token.token, connectTo, tunnelHttp: true });
  try {
    expect((await request(targetUrl, { dispatcher })).statusCode).toBe(200);
    await acme.subAccounts.deactivate('refusals');
    await dispatcher.close();
    const again = proxyDispatcher({ proxies, token: token.token, connectTo, tunnelHttp: true });
    try {
      expect(proxyRefusal(await request(targetUrl, { dispatcher: again }).catch((e: unknown) => e))).toEqual({ status: 402, via: 'tunnel' });
    } finally {
      await again.close();
    }
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
  expect(proxyRefusal(new Error('Proxy response (407) !== 200 when HTTP Tunneling'))).toBeUndefined(); // not undici's
  expect(proxyRefusal(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBeUndefined();
  expect(proxyRefusal(undefined)).toBeUndefined();
  expect(proxyRefusal('Proxy Authentication Required (407)')).toBeUndefined();
});

test('printing a dispatcher shows where it connects, never the token', async () => {
  const secret = 'pxa_PrintedNowhere_0123456789';
  const dispatcher = proxyDispatcher({ proxies: ['us-ny.example.net:8080'], token: secret, ipHash: 'job-7', connectTo: () => '127.0.0.1:9' });
  try {
    const shown = [inspect(dispatcher), inspect(dispatcher, { depth: Infinity, showHidden: true }), JSON.stringify(dispatcher), String(dispatcher)];
    for (const text of shown) expect(text).not.toContain(secret);
    expect(shown[0]).toContain('us-ny.example.net:8080');
    expect(shown[0]).toContain('127.0.0.1:9');
    expect(JSON.parse(shown[2]!)).toEqual({
      proxy: 'us-ny.example.net:8080',
      connectTo: '127.0.0.1:9',
      token: '[REDACTED]',
      ipHash: 'job-7',
      tunnelHttp: false,
    });
  } finally {
    await dispatcher.close();
  }
});

test('an https target behind the tunnel is trusted with targetCaCert, and its certificate refused without it', async () => {
  const acme = client(ACME);
  await acme.proxies.add('us-ny');
  const proxies = await acme.proxies.list();
  const token = await acme.tokens.create({ label: 'https-script' });
  // The emulator's own API is a loopback https target with a self-signed certificate.
  const url = `${emu().url}/api/ips/`;
  const authorization = `Basic ${Buffer.from(`${ACME.username}:${ACME.password}`).toString('base64')}`;
  const trusting = proxyDispatcher({ proxies, token: token.token, connectTo, targetCaCert: readFileSync(emu().caFile) });
  const plain = proxyDispatcher({ proxies, token: token.token, connectTo });
  try {
    const res = await request(url, { dispatcher: trusting, headers: { authorization } });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toHaveProperty('ips');
    await expect(request(url, { dispatcher: plain, headers: { authorization } })).rejects.toThrow(/self[- ]signed|certificate/i);
  } finally {
    await Promise.all([trusting.close(), plain.close()]);
    await acme.tokens.delete({ id: token.id });
  }
});

test('arguments are checked before anything is opened, and the token is never quoted', () => {
  const bad: Array<[Parameters<typeof proxyDispatcher>[0], string]> = [
    [{ proxies: [], token: 'pxa_x' }, 'proxies'],
    [{ proxies: ['a.example.net:1'], token: 'has space secret' }, 'token'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', ipHash: 'a b' }, 'ipHash'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', country: 'FRA', countryHeader: 'X-A-Country' }, 'country'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', country: 'FR' }, 'countryHeader'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', use: 'b' }, 'use'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', use: 1 }, 'use'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', targetCaCert: 'not a certificate' }, 'targetCaCert'],
    [
      { proxies: ['a.example.net:1'], token: 'pxa_x', targetCaCert: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n' },
      'targetCaCert',
    ],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', targetCaCert: '-----BEGIN CERTIFICATE-----\nMIIB' }, 'targetCaCert'],
    // Wrong types are refused, not read loosely, and each names the option that is wrong.
    [loose({ proxies: ['a.example.net:1'], token: 'pxa_x', use: true }), 'use'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', use: '' }, 'use'],
    [loose({ proxies: ['a.example.net:1'], token: 'pxa_x', country: ['DE'], countryHeader: 'X-A-Country' }), 'country'],
    [loose({ proxies: ['a.example.net:1'], token: 'pxa_x', country: 'DE', countryHeader: 7 }), 'countryHeader'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', countryHeader: 'X-A-Country' }, 'countryHeader'],
    [loose({ proxies: ['a.example.net:1'], token: 'pxa_x', ipHash: null }), 'ipHash'],
    [loose({ proxies: ['a.example.net:1'], token: 'pxa_x', ipHash: 42 }), 'ipHash'],
    [loose({ proxies: ['a.example.net:1'], token: 'pxa_x', tunnelHttp: 'yes' }), 'tunnelHttp'],
    [loose({ proxies: ['a.example.net:1'], token: 'pxa_x', connectTo: { 'us-ny': '127.0.0.1:1' } }), 'connectTo'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', connectTo: () => '127.0.0.1:99999' }, 'connectTo'],
    [{ proxies: ['a.example.net:1'], token: 'pxa_x', connectTo: () => '127.0.0.1:0' }, 'connectTo'],
    [{ proxies: ['us-ny'], token: 'pxa_x' }, 'proxies[0]'],
    [{ proxies: ['a.example.net:1', ''], token: 'pxa_x' }, 'proxies[1]'],
    [loose({ proxies: [123], token: 'pxa_x', use: 'us-ny' }), 'proxies[0]'],
  ];
  for (const [options, field] of bad) {
    let caught: unknown;
    try {
      proxyDispatcher(options);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect((caught as InvalidArgumentError).field).toBe(field);
    expect((caught as Error).message).not.toContain('secret');
  }
});

/** Options of the wrong types, as a JavaScript caller can pass them. */
function loose(options: Record<string, unknown>): Parameters<typeof proxyDispatcher>[0] {
  return options as never;
}
