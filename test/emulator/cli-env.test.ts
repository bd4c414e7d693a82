// `proxyaccount emulator` for a shell session that outlives a restart: --print-env, --ca-out with a
// certificate kept across restarts by --state, owner-only state and key files, and the hint when
// a port is taken.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { exportLines } from '../../src/cli/emulator';
import { startEmulator } from '../helpers/emulator';
import { api, DEMO } from './api';
import { runCli, spawnCli, type CliProcess } from './cli';

const READY_MARKER = '# proxyaccount emulator ready\n';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-emulator-cli-env-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const modeOf = (file: string): number => statSync(file).mode & 0o777;

/** Waits until the process has printed the --print-env marker (or fails with its stderr). */
async function envOutput(cli: CliProcess): Promise<string> {
  for (let i = 0; i < 300 && !cli.stdout().endsWith(READY_MARKER); i++) {
    if (cli.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!cli.stdout().endsWith(READY_MARKER)) throw new Error(`no env output; stderr: ${cli.stderr()}`);
  return cli.stdout();
}

/** Sources `script` in sh and returns the variables it exported. */
function sourced(script: string): Record<string, string> {
  const file = join(dir, `env-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, script);
  const names = [
    'PROXYACCOUNT_BASE_URL',
    'PROXYACCOUNT_USERNAME',
    'PROXYACCOUNT_PASSWORD',
    'PROXYACCOUNT_CA_CERT_FILE',
    'PROXYACCOUNT_EMULATOR_ADMIN_TOKEN',
    'PROXYACCOUNT_EMULATOR_PROXIES',
    'PROXYACCOUNT_EMULATOR_COUNTRY_HEADER',
    'PROXYACCOUNT_EMULATOR_EXIT_IP_HEADER',
    'PROXYACCOUNT_EMULATOR_PID',
  ];
  const out = execFileSync(
    'sh',
    [
      '-c',
      `. "$1" && node -e 'process.stdout.write(JSON.stringify(Object.fromEntries(process.argv.slice(1).map((n) => [n, process.env[n]]))))' ${names.join(' ')}`,
      'sh',
      file,
    ],
    {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] },
    },
  );
  return JSON.parse(out) as Record<string, string>;
}

async function stop(cli: CliProcess): Promise<void> {
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(0);
}

describe('exportLines', () => {
  it('quotes every value so that sh reads it back exactly', () => {
    const tricky = `it's "$HOME" \`id\` $(id) \\ ; & | * ~ \n next line`;
    const env = sourced(exportLines({ PROXYACCOUNT_PASSWORD: tricky, PROXYACCOUNT_USERNAME: "'" }));
    expect(env['PROXYACCOUNT_PASSWORD']).toBe(tricky);
    expect(env['PROXYACCOUNT_USERNAME']).toBe("'");
  });
});

describe('a background start as docs/emulator.md writes it', () => {
  /** `npx` runs the emulator under `sh -c`, which keeps a signal to itself; this wrapper does the same. */
  const WRAPPED = `sh -c '${process.execPath} ${join(__dirname, '..', '..', 'bin', 'proxyaccount.js')} emulator "$@"; true' emulator`;
  /** Runs `script` with sh; a script still running after a minute is killed, and says so in `signal`. */
  const run = (script: string): { code: number | null; signal: string | null; out: string } => {
    const r = require('node:child_process').spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, signal: r.signal, out: `${r.stdout}${r.stderr}` };
  };
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('stops the emulator itself by the pid its ready line names, leaving no process behind', () => {
    const { code, out } = run(`
      ${WRAPPED} --port 0 --http-port 0 --no-proxies > bg.json 2> bg.log &
      until [ -s bg.json ]; do kill -0 $! 2>/dev/null || { cat bg.log >&2; exit 1; }; sleep 0.1; done
      PID=$(node -p 'JSON.parse(require("fs").readFileSync("bg.json", "utf8")).pid')
      kill "$PID"; wait $!
      echo "pid=$PID"`);
    expect({ code, out: code === 0 ? '' : out }).toEqual({ code: 0, out: '' });
    const pid = Number(/pid=(\d+)/.exec(out)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    expect(readFileSync(join(dir, 'bg.log'), 'utf8')).toContain('emulator: SIGTERM received, shutting down');
  });

  it('ends the wait, showing why, when the emulator cannot start', () => {
    const { code, signal, out } = run(`
      ${WRAPPED} --port 0 --http-port 0 --no-proxies --accounts missing-accounts.json > bad.json 2> bad.log &
      until [ -s bad.json ]; do kill -0 $! 2>/dev/null || { cat bad.log >&2; exit 1; }; sleep 0.1; done
      echo "never ready"`);
    expect({ code, signal }).toEqual({ code: 1, signal: null }); // ended by the loop, not by the minute's kill
    expect(out).toContain('emulator failed to start');
    expect(out).not.toContain('never ready');
  });
});

describe('--print-env', () => {
  it('prints export lines that a shell can source to reach the emulator', async () => {
    const accounts = join(dir, 'accounts.json');
    writeFileSync(accounts, JSON.stringify({ accounts: [{ username: 'acme', password: "p'w $x", plan: 'plan20' }] }));
    const cli = spawnCli(['--port', '0', '--http-port', '0', '--accounts', accounts, '--operator', 'Acme', '--print-env']);
    try {
      const env = sourced(await envOutput(cli));
      expect(env['PROXYACCOUNT_USERNAME']).toBe('acme');
      expect(env['PROXYACCOUNT_PASSWORD']).toBe("p'w $x");
      expect(env['PROXYACCOUNT_EMULATOR_PID']).toBe(String(cli.child.pid));
      const dispatcher = new Agent({ connect: { ca: readFileSync(env['PROXYACCOUNT_CA_CERT_FILE']!, 'utf8') } });
      const auth = Buffer.from(`${env['PROXYACCOUNT_USERNAME']}:${env['PROXYACCOUNT_PASSWORD']}`).toString('base64');
      const res = await request(`${env['PROXYACCOUNT_BASE_URL']}/api/ips/`, { dispatcher, headers: { authorization: `Basic ${auth}` } });
      expect([res.statusCode, await res.body.text()]).toEqual([200, '{"ips":[]}']);
      const state = await request(`${env['PROXYACCOUNT_BASE_URL']}/_emulator/state`, {
        dispatcher,
        headers: { authorization: `Bearer ${env['PROXYACCOUNT_EMULATOR_ADMIN_TOKEN']}` },
      });
      expect(state.statusCode).toBe(200);
      await state.body.text();
      await dispatcher.close();
      // Where the proxies are (free ports by default), and their two header names.
      const proxies = JSON.parse(env['PROXYACCOUNT_EMULATOR_PROXIES']!) as Record<string, string>;
      expect(Object.keys(proxies)).toHaveLength(24);
      expect(proxies['us-ny']).toMatch(/^127\.0\.0\.1:\d+$/);
      expect([env['PROXYACCOUNT_EMULATOR_COUNTRY_HEADER'], env['PROXYACCOUNT_EMULATOR_EXIT_IP_HEADER']]).toEqual(['X-Acme-Country', 'X-Acme-IP']);
      const proxyAnswer = await new Promise<string>((resolve, reject) => {
        const [host, port] = proxies['us-ny']!.split(':');
        const socket = connect(Number(port), host, () => socket.end('GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n'));
        let answer = '';
        socket.on('data', (d: Buffer) => (answer += d.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
      expect(proxyAnswer).toMatch(/^HTTP\/1\.1 407 /);
      // Only export lines and the marker: nothing else a shell would try to run.
      expect(
        cli
          .stdout()
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('export ') && !l.startsWith('#')),
      ).toEqual([]);
    } finally {
      await stop(cli);
    }
  });

  it('exports --ca-out as an absolute path, which still names the file from another directory', async () => {
    const cli = spawnCli(['--port', '0', '--http-port', '0', '--no-proxies', '--ca-out', 'relative-ca.pem', '--print-env'], { cwd: dir });
    try {
      const caFile = sourced(await envOutput(cli))['PROXYACCOUNT_CA_CERT_FILE'];
      expect(caFile).toBe(join(dir, 'relative-ca.pem'));
      expect(readFileSync(caFile!, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    } finally {
      await stop(cli);
    }
  });

  it('names no proxies with --no-proxies', async () => {
    const cli = spawnCli(['--port', '0', '--http-port', '0', '--no-proxies', '--print-env']);
    try {
      const out = await envOutput(cli);
      expect(sourced(out)['PROXYACCOUNT_BASE_URL']).toMatch(/^https:/);
      expect(out).not.toMatch(/PROXYACCOUNT_EMULATOR_(PROXIES|COUNTRY_HEADER|EXIT_IP_HEADER)/);
    } finally {
      await stop(cli);
    }
  });
});

describe('--ca-out and --state', () => {
  it('keeps the same certificate across restarts, so a client trusting --ca-out keeps working', async () => {
    const stateFile = join(dir, 'kept.db');
    const caOut = join(dir, 'kept-ca.pem');
    const first = await startEmulator({ stateFile, args: ['--ca-out', caOut] });
    const trustedPem = readFileSync(caOut, 'utf8');
    try {
      expect(first.caFile).toBe(caOut);
      expect(first.caPem).toBe(trustedPem);
    } finally {
      await first.stop();
    }
    expect(readFileSync(caOut, 'utf8')).toBe(trustedPem); // left in place on shutdown
    expect(modeOf(`${stateFile}.tls.pem`)).toBe(0o600);
    expect(modeOf(caOut)).toBe(0o644);

    chmodSync(`${stateFile}.tls.pem`, 0o644);
    const second = await startEmulator({ stateFile, args: ['--ca-out', caOut] });
    try {
      expect(readFileSync(caOut, 'utf8')).toBe(trustedPem);
      const oldTrust = new Agent({ connect: { ca: trustedPem } });
      const res = await request(`${second.url}/api/ips/`, {
        dispatcher: oldTrust,
        headers: { authorization: `Basic ${Buffer.from('demo:demo-password').toString('base64')}` },
      });
      expect(res.statusCode).toBe(200);
      await res.body.text();
      await oldTrust.close();
      expect(modeOf(`${stateFile}.tls.pem`)).toBe(0o600);
    } finally {
      await second.stop();
    }
  });

  it('without --state a fresh certificate is written to --ca-out at each start', async () => {
    const caOut = join(dir, 'fresh-ca.pem');
    const first = await startEmulator({ args: ['--ca-out', caOut] });
    await first.stop();
    const firstPem = readFileSync(caOut, 'utf8');
    const second = await startEmulator({ args: ['--ca-out', caOut] });
    try {
      expect(readFileSync(caOut, 'utf8')).not.toBe(firstPem);
      expect((await api(second, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('replaces a kept certificate file it cannot use, and says so', async () => {
    const stateFile = join(dir, 'broken.db');
    writeFileSync(`${stateFile}.tls.pem`, 'not a certificate', { mode: 0o600 });
    const cli = spawnCli(['--port', '0', '--http-port', '0', '--state', stateFile]);
    try {
      const info = JSON.parse(await cli.firstLine) as { caFile: string };
      expect(cli.stderr()).toContain(`${stateFile}.tls.pem holds no key and certificate; made a new certificate`);
      const kept = readFileSync(`${stateFile}.tls.pem`, 'utf8');
      expect(kept).toContain('-----BEGIN PRIVATE KEY-----');
      expect(kept).toContain(readFileSync(info.caFile, 'utf8').trim());
    } finally {
      await stop(cli);
    }
  });
});

describe('--state with an accounts file whose password changed', () => {
  it('refuses to start, naming the account and the way out, and never a password', async () => {
    const stateFile = join(dir, 'rotated.db');
    const accounts = join(dir, 'rotated.json');
    const write = (password: string): void => writeFileSync(accounts, JSON.stringify({ accounts: [{ username: 'acme', password, plan: 'plan20' }] }));
    const args = ['--port', '0', '--http-port', '0', '--no-proxies', '--state', stateFile, '--accounts', accounts, '--print-env'];
    write('First-Secret-1');
    const first = spawnCli(args);
    await envOutput(first);
    await stop(first);

    write('Second-Secret-2');
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(1);
    expect(stdout).toBe(''); // no exports holding a password the emulator would refuse
    expect(stderr).toContain(`state file ${stateFile} holds account "acme" with a password other than the one the accounts file gives it`);
    expect(stderr).toContain(`or remove ${stateFile} to create the accounts afresh from the file`);
    expect(stderr).not.toMatch(/First-Secret|Second-Secret/);

    // With the password put back, it starts, and the exports work.
    write('First-Secret-1');
    const again = spawnCli(args);
    try {
      const env = sourced(await envOutput(again));
      expect(env['PROXYACCOUNT_PASSWORD']).toBe('First-Secret-1');
      const dispatcher = new Agent({ connect: { ca: readFileSync(env['PROXYACCOUNT_CA_CERT_FILE']!, 'utf8') } });
      const auth = Buffer.from(`acme:${env['PROXYACCOUNT_PASSWORD']}`).toString('base64');
      const res = await request(`${env['PROXYACCOUNT_BASE_URL']}/api/ips/`, { dispatcher, headers: { authorization: `Basic ${auth}` } });
      expect([res.statusCode, await res.body.text()]).toEqual([200, '{"ips":[]}']);
      await dispatcher.close();
    } finally {
      await stop(again);
    }
  });
});

describe('state file permissions', () => {
  it('creates the --state file owner-only (0600)', async () => {
    const stateFile = join(dir, 'new.db');
    const em = await startEmulator({ stateFile });
    try {
      await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'hashed', password: 'Secret-Pw-1' } });
      expect(modeOf(stateFile)).toBe(0o600);
      if (existsSync(`${stateFile}-wal`)) expect(modeOf(`${stateFile}-wal`)).toBe(0o600);
    } finally {
      await em.stop();
    }
  });

  it('tightens an existing state file with a looser mode', async () => {
    const stateFile = join(dir, 'loose.db');
    writeFileSync(stateFile, '');
    chmodSync(stateFile, 0o644);
    const em = await startEmulator({ stateFile });
    await em.stop();
    expect(modeOf(stateFile)).toBe(0o600);
  });
});

describe('port in use', () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => blocker.close(() => r())));

  it('names the port and the way out, for --port', async () => {
    const { code, stdout, stderr } = await runCli(['--port', String(port), '--http-port', '0']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`port ${port} is in use; pick another with --port, or --port 0 for any free port`);
  });

  it('and for --http-port', async () => {
    const { code, stderr } = await runCli(['--port', '0', '--http-port', String(port)]);
    expect(code).toBe(1);
    expect(stderr).toContain(`port ${port} is in use; pick another with --http-port, or --http-port 0 for any free port`);
  });
});
