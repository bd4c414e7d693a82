// The emulator as a process: its JSON line, logs, clean shutdown, flags and their errors, the
// accounts file, a given certificate, and persistence across restarts with --state.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as tls from 'node:tls';
import { Agent, request } from 'undici';
import Database from 'better-sqlite3';
import { startEmulator as startInProcess } from '../../src/emulator';
import { createSelfSignedCertificate } from '../../src/util/x509';
import { startEmulator } from '../helpers/emulator';
import { api, basic, createToken, DEMO, emulatorState, type SubDetails } from './api';
import { runCli, spawnCli } from './cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-emulator-lifecycle-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ready line and shutdown', () => {
  it('prints the JSON line, serves with a trusted certificate and removes its CA file on SIGTERM', async () => {
    const em = await startEmulator();
    try {
      expect(em.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(em.httpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(em.url).not.toBe(em.httpUrl.replace('http:', 'https:'));
      expect(em.adminToken.length).toBeGreaterThanOrEqual(16);
      expect(em.caPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect(readFileSync(em.caFile, 'utf8')).toBe(em.caPem);
      expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);

      // The certificate also names localhost.
      const byName = new Agent({ connect: { ca: em.caPem, servername: 'localhost' } });
      const res = await request(`${em.url}/api/geoips/open/`, {
        dispatcher: byName,
        headers: { authorization: `Basic ${Buffer.from('demo:demo-password').toString('base64')}` },
      });
      expect(res.statusCode).toBe(200);
      await res.body.text();
      await byName.close();
    } finally {
      await em.stop();
    }
    expect(existsSync(em.caFile)).toBe(false);
    expect(existsSync(dirname(em.caFile))).toBe(false);
  });

  it('writes nothing else to stdout, logs requests to stderr without secrets, and exits 0 on SIGINT', async () => {
    const cli = spawnCli(['--port', '0', '--http-port', '0']);
    const info = JSON.parse(await cli.firstLine) as { url: string; caFile: string; adminToken: string };
    const em = { ...info, dispatcher: new Agent({ connect: { ca: readFileSync(info.caFile, 'utf8') } }) };
    const asEmulator = em as unknown as Parameters<typeof api>[0];
    const { token } = await createToken(asEmulator, DEMO);
    await api(asEmulator, 'POST', '/api/sub/create/', { auth: { bearer: token }, form: { username: 'logged', password: 'Log-Secret-9' } });
    await api(asEmulator, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'logged' } });
    await api(asEmulator, 'GET', '/api/ips/', { auth: basic('demo', 'Wrong-Guess-7') });
    await em.dispatcher.close();

    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe(`${JSON.stringify(info)}\n`);
    const log = cli.stderr();
    expect(log).toMatch(/^POST \/api\/token\/create\/ 200 [\d.]+ms$/m);
    expect(log).toMatch(/^GET \/api\/ips\/ 401 [\d.]+ms$/m);
    expect(log).toMatch(/^GET \/api\/sub\/get\/ 200 /m);
    for (const secret of ['demo-password', 'Log-Secret-9', 'Wrong-Guess-7', token, 'Basic ', 'Bearer ', 'username=logged']) {
      expect(log).not.toContain(secret);
    }
    expect(existsSync(info.caFile)).toBe(false);
  });
});

describe('shutdown with connections that never sent a request', () => {
  it('closes them and exits 0, whether their TLS handshake is done or never began', async () => {
    const em = await startEmulator();
    const port = Number(new URL(em.url).port);
    // A client that opened a connection ahead of its first request (as the SDK's preconnect does).
    const ready = tls.connect({ host: '127.0.0.1', port, ca: em.caPem });
    await once(ready, 'secureConnect');
    // And one that sent nothing at all: its TLS handshake is still under way for the server.
    const silent = net.connect({ host: '127.0.0.1', port });
    await once(silent, 'connect');
    const closed = Promise.all([once(ready, 'close'), once(silent, 'close')]);
    // stop() rejects unless the process exits 0 before the helper's SIGKILL.
    await em.stop();
    await closed;
  });
});

describe('flags', () => {
  it.each([
    [['--port', 'abc'], /--port.*integer from 0 to 65535/],
    [['--http-port', '70000'], /--http-port.*integer from 0 to 65535/],
    [['--tls-cert', '/nonexistent/cert.pem'], /--tls-cert and --tls-key must be given together/],
    [['--tls-cert', '/nonexistent/c.pem', '--tls-key', '/nonexistent/k.pem'], /--tls-cert \/nonexistent\/c\.pem: cannot read/],
    [['--accounts', '/nonexistent/accounts.json'], /cannot read accounts file \/nonexistent\/accounts\.json/],
    [['--token-prefix', 'has space'], /--token-prefix.*URL-safe/],
    [['--admin-token', 'Short-7'], /--admin-token must be 8-256/],
    [['--proxy-domain', 'not_a_domain'], /--proxy-domain.*domain name/],
    [['--proxy-domain', '127.0.0.1'], /--proxy-domain.*the last not a number \(127\.0\.0\.1 and proxy\.0x1 read as IPv4 addresses\)/],
    [['--proxy-domain', 'proxy.0x1'], /--proxy-domain.*the last not a number/],
    [['--proxy-domain', 'proxy.0XAB'], /--proxy-domain.*the last not a number/],
    [['--state', '/nonexistent/dir/state.db'], /cannot open state file \/nonexistent\/dir\/state\.db/],
    [['--bogus'], /unknown option '--bogus'/],
  ])('%p fails with a clear message and prints nothing on stdout', async (args, message) => {
    const { code, stdout, stderr } = await runCli(['--port', '0', '--http-port', '0', ...args]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('Short-7');
  });

  it('startEmulator refuses a proxy domain that ends in a number, as --proxy-domain does', async () => {
    for (const proxyDomain of ['127.0.0.1', 'proxy.0x1', 'localhost']) {
      await expect(startInProcess({ port: 0, httpPort: 0, adminToken: 'admin-token-for-tests', proxies: false, proxyDomain, log: () => {} })).rejects.toThrow(
        'the proxy domain must be a domain name such as proxy.example.net',
      );
    }
  });

  it('lists every problem of an invalid accounts file, never its passwords', async () => {
    const file = join(dir, 'bad-accounts.json');
    writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          { username: 'ok', password: 'Top-Secret-1', plan: 'gold' },
          { username: 'bad name', password: 'Top-Secret-2', plan: 'plan10' },
          { username: 'nopw', plan: 'trial', subAccountLimit: -1, extra: true },
        ],
      }),
    );
    const { code, stdout, stderr } = await runCli(['--port', '0', '--http-port', '0', '--accounts', file]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('accounts[0].plan must be one of trial, plan10, plan20, plan50, plan100');
    expect(stderr).toContain('accounts[1].username');
    expect(stderr).toContain('accounts[2].password');
    expect(stderr).toContain('accounts[2].subAccountLimit');
    expect(stderr).toContain('unknown field "extra"');
    expect(stderr).not.toContain('Top-Secret');
  });

  it('rejects an accounts file that is not JSON, and a state file that is not a database', async () => {
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{accounts:');
    const a = await runCli(['--port', '0', '--http-port', '0', '--accounts', notJson]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('not JSON');
    const notDb = join(dir, 'not.db');
    writeFileSync(notDb, 'this is not sqlite '.repeat(100));
    chmodSync(notDb, 0o644);
    const b = await runCli(['--port', '0', '--http-port', '0', '--state', notDb]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('not an emulator state file');
    expect(statSync(notDb).mode & 0o777).toBe(0o644); // refused untouched
  });

  it("refuses another program's SQLite database as --state, and leaves it exactly as it was (finding: its tables were added, its journal and mode changed)", async () => {
    const other = join(dir, 'app.db');
    const app = new Database(other);
    app.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT); INSERT INTO orders (item) VALUES ('keep me')");
    app.close();
    chmodSync(other, 0o644);
    const before = readFileSync(other);
    const { code, stdout, stderr } = await runCli(['--port', '0', '--http-port', '0', '--state', other]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`state file ${other} is not an emulator state file (it is a database of tables orders); it was left as it was`);
    expect(readFileSync(other).equals(before)).toBe(true);
    expect(statSync(other).mode & 0o777).toBe(0o644);
    for (const beside of ['-wal', '-shm', '.tls.pem']) expect(existsSync(`${other}${beside}`)).toBe(false);
    // One in WAL mode whose writes are still in its -wal (its program ended without closing it):
    // the database and its -wal untouched, both still there. (A reader only takes its turn in the
    // -shm index, as any reader of the file does.)
    const walDb = join(dir, 'app-wal.db');
    execFileSync(process.execPath, [
      '-e',
      `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const db = new D(${JSON.stringify(walDb)}); db.pragma('journal_mode = WAL'); db.pragma('wal_autocheckpoint = 0'); db.exec("CREATE TABLE customers (name TEXT); INSERT INTO customers VALUES ('still here')"); process.exit(0);`,
    ]);
    const files = [walDb, `${walDb}-wal`];
    const kept = files.map((f) => readFileSync(f));
    expect(kept[1]!.length).toBeGreaterThan(0);
    const wal = await runCli(['--port', '0', '--http-port', '0', '--state', walDb]);
    expect(wal.code).toBe(1);
    expect(wal.stderr).toContain('(it is a database of tables customers); it was left as it was');
    for (const [i, f] of files.entries()) expect({ f, same: existsSync(f) && readFileSync(f).equals(kept[i]!) }).toEqual({ f, same: true });
    const reader = new Database(walDb, { readonly: true });
    expect(reader.prepare('SELECT name FROM customers').all()).toEqual([{ name: 'still here' }]);
    reader.close();
    // An empty file is a new state file, made the emulator's.
    const fresh = join(dir, 'fresh.db');
    writeFileSync(fresh, '');
    const em = await startEmulator({ args: ['--state', fresh] });
    await em.stop();
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    const again = await startEmulator({ args: ['--state', fresh] });
    await again.stop();
  });

  it('fails clearly when its port is taken', async () => {
    const em = await startEmulator();
    try {
      const port = new URL(em.url).port;
      const { code, stderr } = await runCli(['--port', port, '--http-port', '0']);
      expect(code).toBe(1);
      expect(stderr).toContain(`port ${port} is in use; pick another with --port, or --port 0 for any free port`);
    } finally {
      await em.stop();
    }
  });

  it('names --proxy-port when a proxy host cannot listen, and refuses a first port whose hosts would pass 65535', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const busy = await runCli(['--port', '0', '--http-port', '0', '--proxy-port', String(port)]);
      expect(busy.code).toBe(1);
      expect(busy.stdout).toBe('');
      expect(busy.stderr).toContain(
        `emulator failed to start: port ${port} (of proxy host us-ny, 1 of 24 from --proxy-port ${port}) is in use; pick another with --proxy-port, or --proxy-port 0 for any free port`,
      );
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
    const high = await runCli(['--port', '0', '--http-port', '0', '--proxy-port', '65530']);
    expect(high.code).toBe(1);
    expect(high.stderr).toContain(
      "option '--proxy-port <port>' argument '65530' is invalid. The 24 proxy hosts take ports 65530-65553, past 65535: give at most 65512, or 0 for free ports",
    );
    expect(high.stderr).not.toContain('options.port');
  });

  it('honours --admin-token, --token-prefix and --proxy-domain', async () => {
    const em = await startEmulator({ args: ['--admin-token', 'admin-secret-123', '--token-prefix', 'tst_', '--proxy-domain', 'px.test.local'] });
    try {
      expect(em.adminToken).toBe('admin-secret-123');
      expect((await createToken(em, DEMO)).token).toMatch(/^tst_[A-Za-z0-9_-]{32,}$/);
      expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'nl-ams.px.test.local:1080' } })).json()).toEqual({
        proxy: 'nl-ams.px.test.local',
      });
      expect((await api(em, 'GET', '/api/proxies/', { auth: DEMO })).json()).toEqual({ proxies: ['nl-ams.px.test.local:1080'] });
      expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'us-ny.proxy.example.net' } })).status).toBe(400);
    } finally {
      await em.stop();
    }
  });

  it('serves a given certificate and reports its file as caFile, leaving it in place', async () => {
    const cert = createSelfSignedCertificate({ commonName: 'given', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const certFile = join(dir, 'given-cert.pem');
    const keyFile = join(dir, 'given-key.pem');
    writeFileSync(certFile, cert.certPem);
    writeFileSync(keyFile, cert.keyPem);
    const em = await startEmulator({ args: ['--tls-cert', certFile, '--tls-key', keyFile] });
    try {
      expect(em.caFile).toBe(certFile);
      expect(em.caPem).toBe(cert.certPem);
      expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    } finally {
      await em.stop();
    }
    expect(existsSync(certFile)).toBe(true);
  });
});

describe('accounts file', () => {
  it('replaces the demo account with the listed ones and their plans', async () => {
    const em = await startEmulator({
      accounts: { accounts: [{ username: 'acme', password: 'acme-pw', plan: 'trial', subAccountLimit: 3 }] },
    });
    try {
      expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(401);
      const acme = basic('acme', 'acme-pw');
      expect((await api(em, 'GET', '/api/ips/', { auth: acme })).status).toBe(200);
      expect((await api(em, 'GET', '/api/tokens/', { auth: acme })).status).toBe(402);
      for (const username of ['a1', 'a2', 'a3']) {
        expect((await api(em, 'POST', '/api/sub/create/', { auth: acme, form: { username } })).status).toBe(200);
      }
      expect((await api(em, 'POST', '/api/sub/create/', { auth: acme, form: { username: 'a4' } })).status).toBe(402);
      await em.control.reset();
      expect((await emulatorState(em)).accounts.map((a) => [a.username, a.plan, a.subAccounts.length])).toEqual([['acme', 'trial', 0]]);
    } finally {
      await em.stop();
    }
  });
});

describe('--state', () => {
  it('keeps accounts, lists, tokens, usage and the clock across a restart', async () => {
    const stateFile = join(dir, 'state.db');
    const first = await startEmulator({ stateFile });
    let token: string;
    try {
      await api(first, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'keeper', password: 'keeper-pw', email: 'k@example.com' } });
      await api(first, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.44', label: 'kept', username: 'keeper' } });
      await api(first, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'fr-par' } });
      token = (await createToken(first, basic('keeper', 'keeper-pw'), { label: 'persisted' })).token;
      await first.control.usage('keeper', 2.5);
      await first.control.advanceClock(86400);
      await first.control.plan('demo', 'plan50');
    } finally {
      await first.stop();
    }
    expect(existsSync(stateFile)).toBe(true);

    const second = await startEmulator({ stateFile });
    try {
      const sub = await api(second, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'keeper' } });
      expect(sub.json<SubDetails>()).toMatchObject({ username: 'keeper', email: 'k@example.com', total_bandwidth: 2.5 });
      expect((await api(second, 'GET', '/api/ip_labels/', { auth: { bearer: token } })).json()).toEqual([{ ip: '192.0.2.44', label: 'kept' }]);
      expect((await api(second, 'GET', '/api/proxies/', { auth: DEMO })).json()).toEqual({ proxies: ['fr-par.proxy.example.net:1080'] });
      const state = await emulatorState(second);
      expect(state.clockOffsetSeconds).toBe(86400);
      expect(state.accounts[0]!.plan).toBe('plan50');
      expect((await createToken(second, DEMO)).id).toBe(2);
    } finally {
      await second.stop();
    }

    // Accounts added to the accounts file later are created; existing state is kept.
    const third = await startEmulator({
      stateFile,
      accounts: {
        accounts: [
          { username: 'demo', password: 'demo-password', plan: 'plan20' },
          { username: 'late', password: 'late-pw', plan: 'plan10' },
        ],
      },
    });
    try {
      expect((await api(third, 'GET', '/api/ips/', { auth: basic('late', 'late-pw') })).status).toBe(200);
      expect((await api(third, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'keeper' } })).status).toBe(200);
      expect((await emulatorState(third)).accounts[0]!.plan).toBe('plan50');
    } finally {
      await third.stop();
    }
  });

  it('starts empty without --state', async () => {
    const em = await startEmulator();
    try {
      expect((await emulatorState(em)).accounts).toEqual([expect.objectContaining({ username: 'demo', subAccounts: [] })]);
    } finally {
      await em.stop();
    }
  });
});
