// The provider as a process, started the way go-plugin starts it: environment, stdout handshake,
// signals, Shutdown, and what it does when Terraform is gone: what the run left open is released
// at Shutdown, never while a connected Terraform is stopping gracefully after SIGTERM.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeMsgpack, encodeMsgpack } from '../../src/protocol/codec';
import { UNKNOWN } from '../../src/protocol/cty';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../src/protocol/handshake';
import { schemaBlockType } from '../../src/protocol/types';
import { THING_SCHEMA } from './fixtures/tiny-provider';
import { buildTinyProvider, clientCertificate, connect, HANDSHAKE_LINE, parseHandshake } from './helpers';

let dir: string;
let entry: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-protocol-proc-'));
  entry = buildTinyProvider(dir);
});

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function launch(env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Resolves once `test` holds for what the process wrote to stderr. */
async function stderrShows(s: Started, test: RegExp): Promise<void> {
  while (!test.test(s.stderr())) {
    if (s.child.exitCode !== null) throw new Error(`provider exited before writing ${test}: ${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function handshakeOf(s: Started): Promise<string> {
  for (;;) {
    const out = s.stdout();
    if (out.includes('\n')) return out.slice(0, out.indexOf('\n'));
    if (s.child.exitCode !== null) throw new Error(`provider exited early: ${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const pluginEnv = (clientCertPem: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
  PLUGIN_CLIENT_CERT: clientCertPem,
  PLUGIN_PROTOCOL_VERSIONS: '6',
  PLUGIN_MIN_PORT: '10000',
  PLUGIN_MAX_PORT: '25000',
});

describe('provider process', () => {
  it('run by hand (no magic cookie): says it is a Terraform plugin and exits with 1', async () => {
    const s = launch({ PATH: process.env.PATH });
    const { code } = await s.exited;
    expect(code).toBe(1);
    expect(s.stderr()).toMatch(/This binary is a plugin for Terraform: the tiny provider/);
    expect(s.stdout()).toBe('');
  });

  it('prints only the handshake line, ignores SIGINT, and exits with 0 right after Shutdown', async () => {
    const client = clientCertificate();
    const s = launch(pluginEnv(client.certPem));
    const line = await handshakeOf(s);
    expect(line).toMatch(HANDSHAKE_LINE);
    const { target, certPem } = parseHandshake(line);
    const conn = connect(target, certPem, client);
    try {
      s.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 100));
      const schema = await conn.provider<{ resourceSchemas: object }>('GetProviderSchema');
      expect(Object.keys(schema.resourceSchemas)).toEqual(['tiny_thing']);
      expect(s.child.exitCode).toBeNull();
      await conn.controller('Shutdown');
      expect(await s.exited).toEqual({ code: 0, signal: null });
    } finally {
      conn.close();
    }
    expect(s.stdout()).toBe(`${line}\n`);
    // stderr carries hclog JSON lines only
    for (const l of s.stderr().split('\n').filter(Boolean)) expect(JSON.parse(l)).toHaveProperty('@message');
  });

  it('shuts down gracefully on SIGTERM (said at TF_LOG=DEBUG)', async () => {
    const client = clientCertificate();
    const s = launch({ ...pluginEnv(client.certPem), TF_LOG: 'DEBUG' });
    await handshakeOf(s);
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.stderr()).toContain('shutting down: SIGTERM');
  });

  it('logs an unhandled promise rejection instead of dying of it', async () => {
    const client = clientCertificate();
    const s = launch({ ...pluginEnv(client.certPem), TINY_STRAY_REJECTION: '1' });
    const { target, certPem } = parseHandshake(await handshakeOf(s));
    const conn = connect(target, certPem, client);
    try {
      await conn.provider('GetProviderSchema');
      await new Promise((r) => setTimeout(r, 100));
      await conn.provider('GetProviderSchema');
      expect(s.child.exitCode).toBeNull();
      await conn.controller('Shutdown');
      expect(await s.exited).toEqual({ code: 0, signal: null });
    } finally {
      conn.close();
    }
    expect(s.stderr()).toMatch(/"@level":"error","@message":"unhandled promise rejection: Error: stray background failure/);
  });

  it('lets an apply in flight finish through SIGINT and SIGTERM', async () => {
    const client = clientCertificate();
    const s = launch({ ...pluginEnv(client.certPem), TINY_APPLY_DELAY_MS: '400' });
    const { target, certPem } = parseHandshake(await handshakeOf(s));
    const conn = connect(target, certPem, client);
    const apply = (name: string) => applyThing(conn, name);
    try {
      const first = apply('a');
      await new Promise((r) => setTimeout(r, 100));
      s.child.kill('SIGINT');
      expect(decodeMsgpack((await first).newState.msgpack, THING)).toEqual({ id: 'thing-a', name: 'a' });

      const second = apply('b');
      await new Promise((r) => setTimeout(r, 100));
      s.child.kill('SIGTERM');
      expect(decodeMsgpack((await second).newState.msgpack, THING)).toEqual({ id: 'thing-b', name: 'b' });
      // Terraform stops gracefully on SIGTERM, then calls Shutdown.
      await conn.controller('Shutdown');
      expect(await s.exited).toEqual({ code: 0, signal: null });
    } finally {
      conn.close();
    }
  });
});

const THING = schemaBlockType(THING_SCHEMA.block);

/** ApplyResourceChange creating a tiny_thing named `name`, as Terraform sends it. */
function applyThing(conn: ReturnType<typeof connect>, name: string): Promise<{ newState: { msgpack: Uint8Array } }> {
  return conn.provider<{ newState: { msgpack: Uint8Array } }>('ApplyResourceChange', {
    typeName: 'tiny_thing',
    priorState: { msgpack: encodeMsgpack(null, THING) },
    plannedState: { msgpack: encodeMsgpack({ id: UNKNOWN, name }, THING) },
    config: { msgpack: encodeMsgpack({ id: null, name }, THING) },
  });
}

describe('what the run left open (the release hook) and SIGTERM', () => {
  it('on SIGTERM while Terraform is connected serves on, and releases only at Shutdown', async () => {
    const client = clientCertificate();
    const s = launch({ ...pluginEnv(client.certPem), TINY_RELEASE: '1', TF_LOG: 'DEBUG' });
    const { target, certPem } = parseHandshake(await handshakeOf(s));
    const conn = connect(target, certPem, client);
    try {
      await conn.provider('GetProviderSchema');
      s.child.kill('SIGTERM');
      await stderrShows(s, /SIGTERM/);
      // Another provider of the run may still be using what this one opened.
      expect(s.stderr()).not.toContain('released');
      const schema = await conn.provider<{ resourceSchemas: object }>('GetProviderSchema');
      expect(Object.keys(schema.resourceSchemas)).toEqual(['tiny_thing']);
      expect(s.stderr()).not.toContain('released');
      await conn.controller('Shutdown');
      expect(await s.exited).toEqual({ code: 0, signal: null });
    } finally {
      conn.close();
    }
    expect(s.stderr()).toContain('released, within 1500 ms');
  });

  it('on SIGTERM while Terraform is connected never cuts a call in flight, however long past the grace', async () => {
    const client = clientCertificate();
    // The grace (200 ms) bounds calls in flight only when nobody is connected; this apply takes 1 s.
    const s = launch({ ...pluginEnv(client.certPem), TINY_RELEASE: '1', TINY_GRACE_MS: '200', TINY_APPLY_DELAY_MS: '1000', TF_LOG: 'DEBUG' });
    const { target, certPem } = parseHandshake(await handshakeOf(s));
    const conn = connect(target, certPem, client);
    try {
      await conn.provider('GetProviderSchema');
      const applying = applyThing(conn, 'late');
      await new Promise((r) => setTimeout(r, 100));
      s.child.kill('SIGTERM');
      expect(decodeMsgpack((await applying).newState.msgpack, THING)).toEqual({ id: 'thing-late', name: 'late' });
      expect(s.stderr()).not.toContain('released');
      await conn.controller('Shutdown');
      expect(await s.exited).toEqual({ code: 0, signal: null });
    } finally {
      conn.close();
    }
    expect(s.stderr()).toContain('released, within 1500 ms');
  });

  it('on SIGTERM releases and exits when Terraform then closes its connection without Shutdown', async () => {
    const client = clientCertificate();
    const s = launch({ ...pluginEnv(client.certPem), TINY_RELEASE: '1', TF_LOG: 'DEBUG' });
    const { target, certPem } = parseHandshake(await handshakeOf(s));
    const conn = connect(target, certPem, client);
    try {
      await conn.provider('GetProviderSchema');
      s.child.kill('SIGTERM');
      await stderrShows(s, /serving until it calls Shutdown/);
    } finally {
      conn.close();
    }
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.stderr()).toContain('Terraform closed its connection after SIGTERM');
    expect(s.stderr()).toContain('released, within 5000 ms');
  });

  /**
   * Starts the provider under a parent that dies as a SIGKILLed Terraform does, once the handshake
   * is out; `stderr` is where the provider's stderr goes: a file, or a pipe to that parent (closed
   * when it dies, as Terraform's is). Resolves once the provider has exited on its own.
   */
  const orphaned = async (stderr: 'file' | 'pipe', env: NodeJS.ProcessEnv): Promise<void> => {
    const log = path.join(dir, `parent-gone-${Date.now()}.log`);
    const target = stderr === 'file' ? `fs.openSync(${JSON.stringify(log)}, 'a')` : "'pipe'";
    const parentScript = `
      const { spawn } = require('node:child_process');
      const fs = require('node:fs');
      const child = spawn(process.execPath, [${JSON.stringify(entry)}], { stdio: ['ignore', 'pipe', ${target}] });
      child.stdout.once('data', () => { process.stdout.write(String(child.pid)); process.kill(process.pid, 'SIGKILL'); });`;
    const parent = spawn(process.execPath, ['-e', parentScript], {
      env: { ...pluginEnv(clientCertificate().certPem), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    parent.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => parent.on('exit', resolve));
    const pid = Number(out);
    expect(pid).toBeGreaterThan(0);
    try {
      // Until it exits on its own (without the watch it serves nobody forever, and the test times out).
      while (isRunning(pid)) await new Promise((r) => setTimeout(r, 50));
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
    if (stderr === 'file') {
      const said = fs.readFileSync(log, 'utf8');
      expect(said).toContain('Terraform, the parent process, is gone');
      expect(said).toContain('released, within 5000 ms');
    }
  };

  it('releases and exits when its parent (Terraform) is gone without calling Shutdown', async () => {
    await orphaned('file', { TINY_RELEASE: '1', TF_LOG: 'DEBUG' });
  });

  it('still releases when its parent is gone with the stderr pipe it logged to (EPIPE does not kill it first)', async () => {
    const released = path.join(dir, `released-${Date.now()}.txt`);
    await orphaned('pipe', { TINY_RELEASE: '1', TINY_RELEASE_FILE: released, TF_LOG: 'DEBUG' });
    expect(fs.readFileSync(released, 'utf8')).toBe('released, within 5000 ms\n');
  });
});

describe('where the provider process listens', () => {
  /** Connects as Terraform does, reads the schema, calls Shutdown and sees the process exit with 0. */
  const servesThenShutsDown = async (s: Started, target: string, certPem: string, client: { certPem: string; keyPem: string }): Promise<void> => {
    const conn = connect(target, certPem, client);
    try {
      const schema = await conn.provider<{ resourceSchemas: object }>('GetProviderSchema');
      expect(Object.keys(schema.resourceSchemas)).toEqual(['tiny_thing']);
      await conn.controller('Shutdown');
      expect(await s.exited).toEqual({ code: 0, signal: null });
    } finally {
      conn.close();
    }
  };

  /** Whether a process of another user (uid 12345, through setpriv) can open the socket: its error code, or 'connected'. */
  const asStranger = (socketPath: string): string => {
    const probe = `require('net').connect(${JSON.stringify(socketPath)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`;
    const r = spawnSync('setpriv', ['--reuid=12345', '--regid=12345', '--clear-groups', process.execPath, '-e', probe], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`setpriv failed: ${r.stderr || r.error}`);
    return r.stdout.trim();
  };

  it('serves on a Unix socket in a directory only its user can enter, and removes it on exit', async () => {
    const client = clientCertificate();
    const s = launch(pluginEnv(client.certPem));
    const { network, address, target, certPem } = parseHandshake(await handshakeOf(s));
    expect(network).toBe('unix');
    const socketDir = path.dirname(address);
    expect(path.dirname(socketDir)).toBe(os.tmpdir());
    expect(path.basename(socketDir)).toMatch(/^proxyaccount-plugin-/);
    expect(fs.statSync(socketDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(address).isSocket()).toBe(true);
    // Tests run as root here, so another user can be tried for real; the mode above is what stops them.
    if (process.getuid?.() === 0) expect(asStranger(address)).toBe('EACCES');
    await servesThenShutsDown(s, target, certPem, client);
    expect(fs.existsSync(socketDir)).toBe(false);
  });

  it('removes the socket directory when SIGTERM ends it too', async () => {
    const s = launch(pluginEnv(clientCertificate().certPem));
    const { address } = parseHandshake(await handshakeOf(s));
    expect(fs.existsSync(address)).toBe(true);
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.dirname(address))).toBe(false);
  });

  it('makes its directory under PLUGIN_UNIX_SOCKET_DIR when go-plugin names one', async () => {
    const parent = fs.mkdtempSync(path.join(dir, 'sockets-'));
    const client = clientCertificate();
    const s = launch({ ...pluginEnv(client.certPem), PLUGIN_UNIX_SOCKET_DIR: parent });
    const { network, address, target, certPem } = parseHandshake(await handshakeOf(s));
    expect(network).toBe('unix');
    expect(path.dirname(path.dirname(address))).toBe(parent);
    await servesThenShutsDown(s, target, certPem, client);
    expect(fs.readdirSync(parent)).toEqual([]);
  });

  /** A directory that exists, and whose socket path would be longer than any Unix takes. */
  const longParent = (): string => {
    const parent = path.join(dir, 'd'.repeat(100));
    fs.mkdirSync(parent, { recursive: true });
    return parent;
  };

  it.each([
    ['PLUGIN_UNIX_SOCKET_GROUP asks for a socket another user can reach', () => ({ PLUGIN_UNIX_SOCKET_GROUP: 'staff' })],
    ['the socket directory cannot be made', () => ({ PLUGIN_UNIX_SOCKET_DIR: path.join(dir, 'does-not-exist') })],
    ['the socket path would be too long', () => ({ PLUGIN_UNIX_SOCKET_DIR: longParent() })],
  ])('serves on a loopback port instead when %s', async (_why, extra) => {
    const client = clientCertificate();
    const env = extra();
    const s = launch({ ...pluginEnv(client.certPem), ...env, TF_LOG: 'DEBUG' });
    const { network, target, certPem } = parseHandshake(await handshakeOf(s));
    expect(network).toBe('tcp');
    expect(s.stderr()).toContain('serving on a loopback port');
    // Nothing is left where the socket would have been.
    if ('PLUGIN_UNIX_SOCKET_DIR' in env && fs.existsSync(env.PLUGIN_UNIX_SOCKET_DIR)) expect(fs.readdirSync(env.PLUGIN_UNIX_SOCKET_DIR)).toEqual([]);
    await servesThenShutsDown(s, target, certPem, client);
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
