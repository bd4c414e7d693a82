// The SDK's proxy dispatcher against the emulator process: the authorized-proxy list and a token
// become requests through the emulated proxy, sticky with an ipHash, in the chosen country; a
// deleted token is refused. Also its argument checks, made before anything is opened.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { InvalidArgumentError, proxyDispatcher } from '../../src/sdk';
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
  try {
    await expect(request(targetUrl, { dispatcher: refused })).rejects.toThrow(/407/);
  } finally {
    await refused.close();
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
