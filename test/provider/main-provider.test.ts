// The provider binary's entry: provider code loads on the first RPC, and neither the SDK nor
// undici load before the provider is configured (start-up is the main cost of every command).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { lazyProviderServer } from '../../src/main-provider';
import type { ProviderServer } from '../../src/protocol/types';

const ROOT = join(__dirname, '..', '..');

describe('lazyProviderServer', () => {
  it('loads the provider on the first call, once', async () => {
    let loads = 0;
    const fake = {
      getProviderSchema: async () => ({ provider: { version: 0, block: { attributes: [] } }, resourceSchemas: {}, dataSourceSchemas: {}, diagnostics: [] }),
      stopProvider: async () => ({}),
    };
    const server = lazyProviderServer(() => {
      loads++;
      return fake as unknown as ProviderServer;
    });
    expect(loads).toBe(0);
    await server.getProviderSchema();
    await server.stopProvider();
    expect(loads).toBe(1);
  });

  it('forwards every method of the provider and none it lacks, without loading it for a promise check', async () => {
    let loads = 0;
    const fake = {
      readResource: async (req: { typeName: string }) => ({ diagnostics: [], seen: req.typeName, self: fake }),
      stopProvider: async () => ({}),
    };
    const server = lazyProviderServer(() => {
      loads++;
      return fake as unknown as ProviderServer;
    });
    // What `await server` or Promise.resolve(server) would ask: not a reason to load the provider.
    expect((server as unknown as { then?: unknown }).then).toBeUndefined();
    expect(loads).toBe(0);
    const res = (await server.readResource({ typeName: 't', currentState: {}, private: new Uint8Array() })) as unknown as { seen: string; self: unknown };
    expect(res).toEqual({ diagnostics: [], seen: 't', self: fake });
    expect(server.openEphemeralResource).toBeUndefined();
    expect('openEphemeralResource' in server).toBe(false);
    expect('stopProvider' in server).toBe(true);
    expect(loads).toBe(1);
  });
});

describe('the built entry point (dist/main-provider.js)', () => {
  // In a fresh node process: which of our modules (and undici's) are loaded.
  const LOADED = `const loaded = () => Object.keys(require.cache).filter((k) => /[\\\\/](dist[\\\\/](provider|sdk)|node_modules[\\\\/]undici)[\\\\/]/.test(k));`;
  // Runs in a fresh node process: which of our modules are loaded after each step.
  const script = `
    ${LOADED}
    const { lazyProviderServer } = require('./dist/main-provider.js');
    const out = { atImport: loaded() };
    const server = lazyProviderServer();
    server.getProviderSchema().then((schema) => {
      out.afterSchema = loaded();
      out.resources = Object.keys(schema.resourceSchemas);
      console.log(JSON.stringify(out));
    });
  `;

  it('imports no provider, SDK or undici code at start, and no SDK or undici for the schema', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as {
      atImport: string[];
      afterSchema: string[];
      resources: string[];
    };
    expect(out.atImport).toEqual([]);
    expect(out.afterSchema.some((p) => /provider[\\/]provider\.js$/.test(p))).toBe(true);
    expect(out.afterSchema.filter((p) => /sdk|undici/.test(p))).toEqual([]);
    expect(out.resources).toContain('proxyaccount_sub_account');
  });

  it('evaluates the provider in steps after the handshake, each of them new modules, none of them the SDK or undici', () => {
    const stepsScript = `
      ${LOADED}
      const { PRELOAD_STEPS } = require('./dist/main-provider.js');
      const added = PRELOAD_STEPS.map((step) => { const before = loaded().length; step(); return loaded().length - before; });
      console.log(JSON.stringify({ added, after: loaded() }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', stepsScript], { cwd: ROOT, encoding: 'utf8' })) as { added: number[]; after: string[] };
    expect(out.added.length).toBeGreaterThan(5);
    // A step that adds nothing was made redundant by an earlier one: the list no longer splits the work.
    expect(out.added.filter((n) => n === 0)).toEqual([]);
    expect(out.after.some((p) => /provider[\\/]provider\.js$/.test(p))).toBe(true);
    expect(out.after.filter((p) => /sdk|undici/.test(p))).toEqual([]);
  });

  // The executable sets its serving V8 flags in beforeClientLoad, after loadClientBuiltins: Node
  // compiles a built-in module loaded after a flag change without its code cache, three times as
  // slowly, so the client must load none of its own. The API client resolves modules as the bundle
  // does (scripts/provider-resolution.js): undici's lean entry, and no node:http2 for undici's
  // HTTP/2 client, which then falls back as it does where Node has none.
  const configureScript = `
    const Module = require('node:module');
    const { UNDICI_IN_BUNDLE, leavesOutHttp2 } = require('./scripts/provider-resolution.js');
    const load = Module._load;
    Module._load = function (request, parent, ...rest) {
      if (request === 'undici') request = UNDICI_IN_BUNDLE;
      if (request === 'node:http2' && leavesOutHttp2(parent?.filename ?? '')) throw Object.assign(new Error('left out of the provider bundle'), { code: 'MODULE_NOT_FOUND' });
      return load.call(this, request, parent, ...rest);
    };
    const { loadClientBuiltins } = require('./dist/main-provider.js');
    const { createProvider } = require('./dist/provider/provider.js');
    const { Diagnostics } = require('./dist/provider/framework/diagnostics.js');
    const calls = [];
    const undici = () => Object.keys(require.cache).some((k) => /node_modules[\\/]undici[\\/]/.test(k));
    const builtins = () => process.moduleLoadList.filter((m) => /^NativeModule (http|assert|fs\\/promises)$/.test(m)).map((m) => m.slice(13)).sort();
    let mark;
    const provider = createProvider({
      env: { PROXYACCOUNT_BASE_URL: 'https://127.0.0.1:9', PROXYACCOUNT_USERNAME: 'u', PROXYACCOUNT_PASSWORD: 'p' },
      beforeClientLoad: () => {
        calls.push({ undici: undici(), builtins: builtins() });
        loadClientBuiltins();
        mark = process.moduleLoadList.length;
      },
    });
    const ctx = { diagnostics: new Diagnostics(), terraformVersion: '1.11.4', clientCapabilities: undefined, signal: new AbortController().signal };
    const config = { base_url: null, username: null, password: null };
    Promise.resolve(provider.configure(ctx, config)).then(async (store) => {
      const before = { calls: calls.length, builtins: builtins() };
      await new Promise((resolve) => setTimeout(resolve, 20));
      const after = { undici: undici(), builtins: builtins(), loadedLater: process.moduleLoadList.slice(mark).filter((m) => m.startsWith('NativeModule ')) };
      console.log(JSON.stringify({ configured: store !== undefined, errors: ctx.diagnostics.hasErrors(), before, calls, after }));
      process.exit(0);
    });
  `;

  it('calls beforeClientLoad after configure answers, before undici loads; after loadClientBuiltins the client loads no Node module', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', configureScript], { cwd: ROOT, encoding: 'utf8' })) as {
      configured: boolean;
      errors: boolean;
      before: { calls: number; builtins: string[] };
      calls: { undici: boolean; builtins: string[] }[];
      after: { undici: boolean; builtins: string[]; loadedLater: string[] };
    };
    expect(out.configured).toBe(true);
    expect(out.errors).toBe(false);
    // Not during configure: the client's modules load after its answer has gone out.
    expect(out.before.calls).toBe(0);
    expect(out.before.builtins).not.toContain('http');
    expect(out.calls).toEqual([{ undici: false, builtins: out.before.builtins }]);
    // The client loaded (its first connection started), and loadClientBuiltins had loaded all it needed.
    expect(out.after.undici).toBe(true);
    expect(out.after.builtins).toEqual(['assert', 'fs/promises', 'http']);
    expect(out.after.loadedLater).toEqual([]);
  });
});
