// Setting up the emulated proxies: the CLI's ready line and flags, a parent's own limits from the
// accounts file (enforced on its own traffic and its sub-accounts'), the grace period a plan
// downgrade gives the family's tokens, and a state file of an older emulator upgraded in place.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseAccounts, startEmulator } from '../../src/emulator';
import { proxyListenHost } from '../../src/emulator/server';
import { systemResolver } from '../../src/emulator/proxy/servers';
import { openDb } from '../../src/emulator/store/db';
import { runCli, spawnCli } from './cli';
import { authorizeProxies, createSub, createToken } from './proxy-fixtures';
import { curl, PARENT, startProxyWorld } from './proxy-world';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxy-setup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the ready line names one loopback proxy per catalogue host and the two header names; --operator renames them', async () => {
  const cli = spawnCli(['--port', '0', '--http-port', '0', '--operator', 'Acme', '--bytes-per-gb', '1000']);
  try {
    const ready = JSON.parse(await cli.firstLine) as { proxies: Record<string, string>; countryHeader: string; exitIpHeader: string };
    expect(ready.countryHeader).toBe('X-Acme-Country');
    expect(ready.exitIpHeader).toBe('X-Acme-IP');
    expect(Object.keys(ready.proxies)).toHaveLength(24);
    expect(ready.proxies['us-ny']).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(new Set(Object.values(ready.proxies)).size).toBe(24);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
});

describe('where the proxies listen', () => {
  test('on loopback unless any target is allowed: a loopback --host as given, a wildcard as 127.0.0.1 or ::1', () => {
    for (const [host, any, expected] of [
      ['127.0.0.1', false, '127.0.0.1'],
      ['127.0.0.2', false, '127.0.0.2'],
      ['::1', false, '::1'],
      ['localhost', false, 'localhost'],
      ['0.0.0.0', false, '127.0.0.1'],
      ['0.0.0.0', true, '127.0.0.1'],
      ['::', true, '::1'],
      ['192.0.2.2', false, '127.0.0.1'],
      ['fd00::2', false, '127.0.0.1'],
      ['192.0.2.2', true, '192.0.2.2'],
      ['fd00::2', true, 'fd00::2'],
    ] as const) {
      const where = proxyListenHost(host, any);
      expect([host, any, where.host, where.note !== undefined]).toEqual([host, any, expected, expected !== host && !['0.0.0.0', '::'].includes(host)]);
    }
    expect(proxyListenHost('192.0.2.2', false).note).toMatch(/not on 192\.0\.2\.2.*--proxy-allow-any-target/);
  });

  // Needs an address of this machine that is not loopback (a container's eth0 has one).
  const lan = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  (lan === undefined ? test.skip : test)('with a --host on the network they stay on 127.0.0.1, saying why; allowAnyTarget puts them on --host', async () => {
    const host = lan!;
    const start = async (allowAnyTarget: boolean) => {
      const log: string[] = [];
      const em = await startEmulator({ host, port: 0, httpPort: 0, adminToken: 'admin-token-for-tests', log: (l) => log.push(l), proxies: { allowAnyTarget } });
      return { em, log };
    };
    const kept = await start(false);
    try {
      expect(kept.em.url.startsWith(`https://${host}:`)).toBe(true);
      expect(Object.values(kept.em.proxies).filter((a) => !/^127\.0\.0\.1:\d+$/.test(a))).toEqual([]);
      expect(kept.log.filter((l) => l.startsWith('proxies:'))).toEqual([expect.stringContaining(`not on ${host}`)]);
      // Nothing listens on the network address at the proxy's port.
      const port = Number(kept.em.proxies['us-ny']!.split(':')[1]);
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect(port, host);
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
      expect(outcome).toBe('ECONNREFUSED');
    } finally {
      await kept.em.close();
    }
    const open = await start(true);
    try {
      expect(Object.values(open.em.proxies).filter((a) => !a.startsWith(`${host}:`))).toEqual([]);
      expect(open.log.filter((l) => l.startsWith('proxies:'))).toEqual([]);
    } finally {
      await open.em.close();
    }
  });
});

test('--no-proxies serves none; a --bytes-per-gb that does not divide 10^9 is refused', async () => {
  const cli = spawnCli(['--port', '0', '--http-port', '0', '--no-proxies']);
  try {
    expect(JSON.parse(await cli.firstLine).proxies).toEqual({});
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
  const bad = await runCli(['--port', '0', '--http-port', '0', '--bytes-per-gb', '1024']);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('--bytes-per-gb');
});

test('the accounts file sets a parent its own limits; invalid ones are refused', () => {
  const seeds = parseAccounts({ accounts: [{ username: 'p', password: 'pw', plan: 'plan10', monthlyLimit: 3, totalLimit: 9 }] }, 'f');
  expect(seeds[0]).toMatchObject({ monthlyLimit: 3, totalLimit: 9 });
  expect(() => parseAccounts({ accounts: [{ username: 'p', password: 'pw', plan: 'plan10', monthlyLimit: -1, totalLimit: 1.5 }] }, 'f')).toThrow(
    /monthlyLimit must be an integer >= 0[\s\S]*totalLimit must be an integer >= 0/,
  );
});

test("a parent's total limit from the accounts file stops its own traffic and its sub-accounts'", async () => {
  const world = await startProxyWorld([{ ...PARENT, plan: 'plan20', totalLimit: 1 }]);
  try {
    await authorizeProxies(world, 'us-ny');
    const sub = await createSub(world, 'kid');
    const parent = ['-x', world.proxyUrl('us-ny'), '-U', `${PARENT.username}:${PARENT.password}`];
    expect((await curl([...parent, `${world.httpTarget}/a?size=1000`])).status).toBe(200);
    expect((await curl([...parent, `${world.httpTarget}/a?size=1`])).status).toBe(509);
    expect((await curl(['-x', world.proxyUrl('us-ny'), '-U', `${sub.username}:${sub.password}`, `${world.httpTarget}/a?size=1`])).status).toBe(509);
  } finally {
    await world.close();
  }
});

test("a downgrade to a plan without tokens deactivates the family's tokens: they pass for five more minutes", async () => {
  const world = await startProxyWorld();
  try {
    await authorizeProxies(world, 'us-ny');
    const token = await createToken(world, (await createSub(world, 'dg')).username);
    const send = () => curl(['-x', world.proxyUrl('us-ny'), '--proxy-header', `Proxy-Authorization: Bearer ${token.raw}`, `${world.httpTarget}/d?size=1`]);
    expect((await world.control('/_emulator/plan', { username: PARENT.username, plan: 'trial' })).json.deactivatedTokens).toBe(1);
    expect((await send()).status).toBe(200);
    await world.control('/_emulator/clock', { advanceSeconds: 301 });
    expect((await send()).status).toBe(407);
  } finally {
    await world.close();
  }
});

test('a state file written before tokens had a deactivation time is upgraded in place, not refused', () => {
  const file = join(dir, 'old.sqlite');
  const old = new Database(file);
  old.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta VALUES ('schema_version', '1');
    CREATE TABLE tokens (id INTEGER PRIMARY KEY AUTOINCREMENT, account_id INTEGER NOT NULL, label TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE, active INTEGER NOT NULL, expires_at INTEGER, created_at INTEGER NOT NULL);`);
  old.close();
  const db = openDb(file);
  try {
    const columns = (db.prepare('PRAGMA table_info(tokens)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).toContain('deactivated_at');
  } finally {
    db.close();
  }
});

test('the default resolver of authorized hostnames gives every address of a name, and fails for an unknown one', async () => {
  expect((await systemResolver('localhost')).some((a) => a === '127.0.0.1' || a === '::1')).toBe(true);
  await expect(systemResolver('no-such-host.invalid')).rejects.toThrow();
});
