// Where the provider listens for Terraform: a Unix domain socket in a private directory, as
// go-plugin's own servers do on Unix (a socket, not a loopback port). No other local user can even
// connect (the directory is 0700; any user could start a TLS handshake on a loopback port), and
// each of a plan's 800 calls costs the kernel a little less than over loopback TCP
// (bench/RESULTS.md).
// AutoMTLS runs over it unchanged. Where a socket cannot be used, the server falls back to a
// loopback TCP port.
import { mkdtempSync, rmdirSync, unlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The socket's path and how to remove it with its directory (idempotent, never throws). */
export interface PluginSocket {
  readonly path: string;
  remove(): void;
}

/** Longest socket path every Unix takes (sun_path is 104 bytes on macOS, 108 on Linux, with its NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

/**
 * A new private directory (mode 0700, under `PLUGIN_UNIX_SOCKET_DIR` when go-plugin's client sets
 * it, else the system's temporary directory) and the socket path in it. A string (why not) when
 * a socket cannot be used: on Windows, when go-plugin's client asks for a group-shared socket
 * (`PLUGIN_UNIX_SOCKET_GROUP`: another user is to connect, which a private directory forbids), when
 * the directory cannot be made, or when its path is too long for a socket or holds a `|` or a
 * line break (the handshake line's separators).
 */
export function makePluginSocket(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): PluginSocket | string {
  if (platform === 'win32') return 'Windows: go-plugin uses TCP there';
  if (env.PLUGIN_UNIX_SOCKET_GROUP) return 'PLUGIN_UNIX_SOCKET_GROUP asks for a socket another user can reach';
  const parent = env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir();
  let dir: string;
  try {
    dir = mkdtempSync(path.join(parent, 'proxyaccount-plugin-'));
  } catch (err) {
    return `cannot make a directory for the socket in ${parent}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
  }
  const socketPath = path.join(dir, 'plugin.sock');
  let removed = false;
  // The directory is private: it holds the socket or nothing. Removed without fs.rmSync, which
  // loads a module of Node's at exit, in every process Terraform starts.
  const remove = (): void => {
    if (removed) return;
    removed = true;
    for (const step of [() => unlinkSync(socketPath), () => rmdirSync(dir)]) {
      try {
        step();
      } catch {
        // No socket yet, or a directory that cannot be removed at exit: it holds no secret.
      }
    }
  };
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    remove();
    return `the socket path would be longer than ${MAX_SOCKET_PATH_BYTES} bytes: ${socketPath}`;
  }
  if (/[|\r\n]/.test(socketPath)) {
    remove();
    return `the socket path cannot be written in the handshake line: ${JSON.stringify(socketPath)}`;
  }
  return { path: socketPath, remove };
}
