// Entry point of the provider binary (terraform-provider-proxyaccount). Terraform starts it 3-4
// times per command, so start-up is the main cost: only the protocol layer loads before the
// handshake; provider code loads just after it (while Terraform connects), and the SDK only when the
// provider is configured.
import { serve } from './protocol/server';
import type { ProviderServer } from './protocol/types';

/**
 * A ProviderServer that loads the real one on first use. A Proxy forwards every method, so it
 * cannot fall out of step with the ProviderServer interface (a hand-written copy of each method
 * did); an optional method the provider lacks reads as undefined, as on the provider itself.
 */
export function lazyProviderServer(load: () => ProviderServer = loadProvider): ProviderServer {
  let server: ProviderServer | undefined;
  const methods = new Map<PropertyKey, unknown>();
  const member = (name: PropertyKey): unknown => {
    // Symbols and `then` (a check for a promise) are never provider methods: answering them must not load it.
    if (typeof name === 'symbol' || name === 'then') return undefined;
    if (methods.has(name)) return methods.get(name);
    server ??= load();
    const value = Reflect.get(server, name, server) as unknown;
    const bound = typeof value === 'function' ? value.bind(server) : value;
    methods.set(name, bound);
    return bound;
  };
  return new Proxy({} as ProviderServer, {
    get: (_target, name) => member(name),
    has: (_target, name) => member(name) !== undefined,
  });
}

function loadProvider(onClientLoaded?: () => void): ProviderServer {
  // A plain require keeps this synchronous and lets a bundler inline the module.
  const mod = require('./provider/provider') as typeof import('./provider/provider');
  // Node's certificates, when the executable's shell line kept them from Node (provider/deferred-ca.ts).
  const deferredCa = mod.takeDeferredCa(process.env);
  return mod.createProviderServer({
    ...(deferredCa === undefined ? {} : { deferredCa }),
    ...(onClientLoaded === undefined ? {} : { onClientLoaded }),
  });
}

/**
 * undici parses HTTP with a WebAssembly build of llhttp. Once it is warm, V8 compiles its large
 * parser function again with TurboFan, which briefly took about 30 MiB, a third of the serving
 * process's peak memory, for the few API requests a plan makes (bench/RESULTS.md, "Provider process
 * cost"); Liftoff, V8's baseline WebAssembly compiler, is fast enough for those. V8 reads the flag
 * when it compiles a WebAssembly module (undici's first request), so it is set once the API client
 * is loaded, in the one process of a command that configures the provider. Not earlier: V8 refuses
 * a code cache made under other flags, Node's own for its built-in modules included, and the API
 * client loads a dozen of those (node:http, node:assert, node:fs/promises and theirs), which then
 * took three times as long to compile. For the same reason the flag is cleared again before the
 * launcher writes our code cache at exit (an exit listener put first runs first).
 *
 * The young generation is kept at its starting size (1 MiB per semi-space) the same way: V8 grows
 * it up to 16 MiB per semi-space under a steady allocation rate, and the ~800 calls of a plan made
 * it 8 MiB, for objects that live for one call. `--max-semi-space-size` would say it directly, but
 * V8 reads that one only at start (Node's command line, which a `#!/usr/bin/env node` launcher
 * cannot portably pass); the growth factor it reads each time it would grow.
 */
function servingFlags(): void {
  // Loaded here: node:v8 costs a start several milliseconds (its heap utilities), before the
  // handshake, in the processes that never serve a call too.
  const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
  setFlagsFromString('--liftoff-only --semi-space-growth-factor=1');
  // Clearing --liftoff-only leaves the two flags it turned off; all of them restore the start's flags.
  process.prependOnceListener('exit', () => setFlagsFromString('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering --semi-space-growth-factor=2'));
}

/** What the executable's launcher (scripts/provider-launcher.js) tells the provider. */
export interface LaunchInfo {
  /** How the bundle was compiled: with the code cache (`hit`), without one yet (`miss`), with one V8 refused (`rejected`), or with the cache `off`. */
  readonly codeCache?: 'hit' | 'miss' | 'rejected' | 'off' | 'untrusted';
  /** Why the code cache was not used (`untrusted`: its directory is another user's, or shared, or a link). */
  readonly codeCacheNote?: string;
}

/** Serves the provider until Terraform shuts it down, then exits. */
export function main(launch: LaunchInfo = {}): void {
  const startupFields = {
    ...(launch.codeCache === undefined ? {} : { code_cache: launch.codeCache }),
    ...(launch.codeCacheNote === undefined ? {} : { code_cache_note: launch.codeCacheNote }),
  };
  const provider = lazyProviderServer(() => loadProvider(servingFlags));
  // Every process Terraform starts makes a call, which needs the provider's code: evaluated while
  // Terraform connects (its TLS handshake, its first request), it is ready when that call comes.
  const preload = (): void => void require('./provider/provider');
  serve(provider, { startupFields, afterHandshake: preload }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`terraform-provider-proxyaccount: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) main();
