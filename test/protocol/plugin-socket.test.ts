// Where the provider's socket goes (src/protocol/plugin-socket.ts), and when a loopback port is used instead.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { makePluginSocket, type PluginSocket } from '../../src/protocol/plugin-socket';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-plugin-socket-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const made = (socket: PluginSocket | string): PluginSocket => {
  if (typeof socket === 'string') throw new Error(`no socket: ${socket}`);
  return socket;
};

describe('makePluginSocket', () => {
  it('makes a new 0700 directory per call under PLUGIN_UNIX_SOCKET_DIR, and removes it once', () => {
    const a = made(makePluginSocket({ PLUGIN_UNIX_SOCKET_DIR: root }));
    const b = made(makePluginSocket({ PLUGIN_UNIX_SOCKET_DIR: root }));
    expect(path.dirname(path.dirname(a.path))).toBe(root);
    expect(path.basename(a.path)).toBe('plugin.sock');
    expect(path.dirname(a.path)).not.toBe(path.dirname(b.path));
    expect(fs.statSync(path.dirname(a.path)).mode & 0o777).toBe(0o700);
    a.remove();
    a.remove();
    expect(fs.readdirSync(root)).toEqual([path.basename(path.dirname(b.path))]);
  });

  it('removes the directory with the socket in it', async () => {
    const socket = made(makePluginSocket({ PLUGIN_UNIX_SOCKET_DIR: root }));
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socket.path, resolve));
    // The server is closed after the removal, as at exit: the socket file is still there.
    socket.remove();
    await new Promise((resolve) => server.close(resolve));
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('uses the system temporary directory when go-plugin names none', () => {
    const socket = made(makePluginSocket({}));
    try {
      expect(path.dirname(path.dirname(socket.path))).toBe(os.tmpdir());
    } finally {
      socket.remove();
    }
  });

  it.each([
    ['on Windows', {}, 'win32', /Windows/],
    ['for a group-shared socket', { PLUGIN_UNIX_SOCKET_GROUP: 'staff' }, 'linux', /PLUGIN_UNIX_SOCKET_GROUP/],
  ] as const)('says why not %s', (_case, env, platform, why) => {
    expect(makePluginSocket(env, platform)).toMatch(why);
  });

  it('says why not where the directory cannot be made', () => {
    // Under a regular file, so that no directory made by anyone (as root, say) can satisfy it.
    const file = path.join(root, 'file');
    fs.writeFileSync(file, '');
    const dir = path.join(file, 'x');
    expect(makePluginSocket({ PLUGIN_UNIX_SOCKET_DIR: dir }, 'linux')).toBe(`cannot make a directory for the socket in ${dir}: ENOTDIR`);
  });

  it.each([
    ['too long for a socket', 'd'.repeat(90), /longer than 103 bytes/],
    ['holding a |, the handshake line separator', 'a|b', /cannot be written in the handshake line/],
  ])('refuses a path %s, leaving nothing behind', (_case, name, why) => {
    const parent = path.join(root, name);
    fs.mkdirSync(parent);
    expect(makePluginSocket({ PLUGIN_UNIX_SOCKET_DIR: parent })).toMatch(why);
    expect(fs.readdirSync(parent)).toEqual([]);
  });
});
