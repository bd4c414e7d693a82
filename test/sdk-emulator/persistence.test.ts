// State written through the SDK survives an emulator restart with --state FILE.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAccountClient, type ClientAuth } from '../../src/sdk';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { ACCOUNTS, ACME } from './setup';

describe('persistence across a restart', () => {
  let dir: string;
  let emu: RunningEmulator | undefined;
  const clients: ProxyAccountClient[] = [];

  const connect = (auth: ClientAuth): ProxyAccountClient => {
    if (emu === undefined) throw new Error('emulator not started');
    const c = new ProxyAccountClient({ baseUrl: emu.url, caCert: emu.caPem, auth, authFailureCache: false });
    clients.push(c);
    return c;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'proxyaccount-sdk-state-'));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emu?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps sub-accounts, access lists, proxies and tokens', async () => {
    const stateFile = join(dir, 'state.sqlite');
    emu = await startEmulator({ accounts: ACCOUNTS, stateFile });
    let acme = connect(ACME);
    await acme.subAccounts.create({ username: 'alice', password: 'alice-Password-1', email: 'alice@example.com', totalLimit: 9 });
    await acme.subAccounts.deactivate('alice');
    await acme.subAccounts.create({ username: 'bob', password: 'bob-Password-1' });
    await acme.ips.add({ ip: '198.51.100.5', username: 'bob' });
    await acme.ips.add({ ip: '203.0.113.7', label: 'office' });
    await acme.hostnames.add({ domain: 'alice.example.com', username: 'alice' });
    const proxy = await acme.proxies.add('us-ny');
    const token = await acme.tokens.create({ label: 'ci' });
    const before = {
      sub: await acme.subAccounts.get('alice'),
      ips: await acme.ips.listWithLabels(),
      hostnames: await acme.hostnames.list({ username: 'alice' }),
      proxies: await acme.proxies.list(),
      tokens: await acme.tokens.list(),
    };
    expect(before.proxies.some((p) => p.startsWith(`${proxy.proxy}:`))).toBe(true);
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await emu.stop();

    emu = await startEmulator({ accounts: ACCOUNTS, stateFile });
    acme = connect(ACME);
    expect({
      sub: await acme.subAccounts.get('alice'),
      ips: await acme.ips.listWithLabels(),
      hostnames: await acme.hostnames.list({ username: 'alice' }),
      proxies: await acme.proxies.list(),
      tokens: await acme.tokens.list(),
    }).toEqual(before);
    // The raw token was stored only as a hash, and still authenticates.
    await expect(connect({ token: token.token }).ips.list()).resolves.toEqual(['203.0.113.7']);
    // A sub-account's password survived too.
    await expect(connect({ username: 'bob', password: 'bob-Password-1' }).ips.list()).resolves.toEqual(['198.51.100.5']);
  });
});
