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

function loadProvider(beforeClientLoad?: () => void): ProviderServer {
  // A plain require keeps this synchronous and lets a bundler inline the module.
  const mod = require('./provider/provider') as typeof import('./provider/provider');
  // Node's certificates, when the executable's shell line kept them from Node (provider/deferred-ca.ts).
  const deferredCa = mod.takeDeferredCa(process.env);
  return mod.createProviderServer({
    ...(deferredCa === undefined ? {} : { deferredCa }),
    ...(beforeClientLoad === undefined ? {} : { beforeClientLoad }),
  });
}

/**
 * undici parses HTTP with a WebAssembly build of llhttp. Once it is warm, V8 compiles its large
 * parser function again with TurboFan, which briefly took about 30 MiB, a third of the serving
 * process's peak memory, for the few API requests a plan makes (bench/RESULTS.md, "Provider process
 * cost"); Liftoff, V8's baseline WebAssembly compiler, is fast enough for those. V8 reads the flag
 * when it compiles a WebAssembly module (undici's first request), so it is set just before the API
 * client's HTTP stack loads, in the one process of a command that configures the provider. Not
 * earlier: V8 refuses a code cache made under other flags, Node's own for its built-in modules
 * included, which then take three times as long to compile; so the Node modules that stack needs
 * ({@link loadClientBuiltins}) are loaded first. For the same reason the flags are put back before
 * the launcher writes our code cache at exit (an exit listener put first runs first).
 *
 * The young generation is kept at its starting size (1 MiB per semi-space) the same way: V8 grows
 * it up to 16 MiB per semi-space under a steady allocation rate, and the ~800 calls of a plan made
 * it 8 MiB, for objects that live for one call. Set after undici had loaded, it came too late in
 * about half of the plans: undici's evaluation had already doubled it (2 MiB more at the peak).
 * `--max-semi-space-size` would say it directly, but V8 reads that one only at start, and a flag on
 * Node's command line would refuse Node's code cache for every built-in module; the growth factor it
 * reads each time it would grow.
 */
export function servingFlags(): void {
  loadClientBuiltins();
  // Loaded here: node:v8 costs a start several milliseconds (its heap utilities), before the
  // handshake, in the processes that never serve a call too.
  const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
  setFlagsFromString('--liftoff-only --semi-space-growth-factor=1');
  // Clearing --liftoff-only leaves the two flags it turned off; all of them restore the start's flags.
  process.prependOnceListener('exit', () => setFlagsFromString('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering --semi-space-growth-factor=2'));
}

/**
 * The Node modules the API client's HTTP stack (undici, the SDK's transport) loads when it is
 * evaluated, loaded before the serving flags change; test/provider/main-provider.test.ts checks
 * that loading the client after this loads no other.
 */
export function loadClientBuiltins(): void {
  require('node:http');
  require('node:assert');
  require('node:fs/promises');
}

/**
 * Every process Terraform starts makes a call, which needs the provider's code (5–8 ms to
 * evaluate): evaluated after the handshake line, it is ready when that call comes. Terraform
 * connects as soon as it reads that line, so the code is evaluated a group of modules per turn of
 * the event loop: between two groups Node answers Terraform's TLS handshake, and the evaluation
 * fills the time this process waits for Terraform's side of it instead of holding up the
 * handshake. A module not named here is evaluated by the last step, or by the first call.
 */
export const PRELOAD_STEPS: ReadonlyArray<() => unknown> = [
  () => require('./provider/framework') as typeof import('./provider/framework'),
  () => require('./provider/settings') as typeof import('./provider/settings'),
  () => require('./provider/errors') as typeof import('./provider/errors'),
  () => require('./provider/configure') as typeof import('./provider/configure'),
  () => require('./provider/data-sources/sub-account') as typeof import('./provider/data-sources/sub-account'),
  () => require('./provider/data-sources/authorized-hostnames') as typeof import('./provider/data-sources/authorized-hostnames'),
  () => require('./provider/data-sources/authorized-ips') as typeof import('./provider/data-sources/authorized-ips'),
  () => require('./provider/data-sources/bearer-tokens') as typeof import('./provider/data-sources/bearer-tokens'),
  () => require('./provider/data-sources/geoips') as typeof import('./provider/data-sources/geoips'),
  () => require('./provider/data-sources/proxies') as typeof import('./provider/data-sources/proxies'),
  () => require('./provider/ephemeral-resources/bearer-token') as typeof import('./provider/ephemeral-resources/bearer-token'),
  () => require('./provider/resources/sub-account') as typeof import('./provider/resources/sub-account'),
  () => require('./provider/resources/authorized-hostnames') as typeof import('./provider/resources/authorized-hostnames'),
  () => require('./provider/resources/authorized-ips') as typeof import('./provider/resources/authorized-ips'),
  () => require('./provider/resources/authorized-proxies') as typeof import('./provider/resources/authorized-proxies'),
  () => require('./provider/resources/authorized-hostname') as typeof import('./provider/resources/authorized-hostname'),
  () => require('./provider/resources/authorized-ip') as typeof import('./provider/resources/authorized-ip'),
  () => require('./provider/resources/authorized-proxy') as typeof import('./provider/resources/authorized-proxy'),
  () => require('./provider/resources/bearer-token') as typeof import('./provider/resources/bearer-token'),
  () => require('./provider/provider') as typeof import('./provider/provider'),
];

function preloadInSteps(step = 0): void {
  PRELOAD_STEPS[step]!();
  if (step + 1 < PRELOAD_STEPS.length) setImmediate(preloadInSteps, step + 1);
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
  serve(provider, { startupFields, afterHandshake: preloadInSteps }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`terraform-provider-proxyaccount: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) main();
