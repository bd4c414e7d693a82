#!/usr/bin/env node
'use strict';
// Where the provider processes of one plan spend their CPU, and what a change to them is worth.
//
//   npm run build && node bench/profile-provider.js profile [PLANS]
//       PLANS plans (default 3) of 200 resources in state (2 sub-accounts × 99 authorized IPs, the
//       emulator in this process), each provider process run under `node --cpu-prof` through
//       dev_overrides. Prints, per process (in start order: schema, validation, serving), its
//       sampled CPU by part of the code and by RPC kind, as medians over the plans.
//   node bench/profile-provider.js compare A B [ROUNDS] [LATENCY]
//       Two provider executables measured in turns in one run (ROUNDS rounds, default 7): the
//       plan's wall and CPU (GNU time, provider processes included), spawn to handshake next to
//       `node -e 0`, and the peak RSS of each provider process of a plan (GNU time's maximum resident
//       set size, so a short peak is not missed by polling). A `terraform_data`
//       plan of 200 runs in the same turns as the machine's yardstick. Then the plans' ratio taken
//       round by round (each round's two plans ran back to back), with how often `after` was lower:
//       on a noisy machine a better guide than the ratio of two medians. LATENCY (e.g. `150` or
//       `150:network`) puts the plans behind an API that far away, in latency.js's two models:
//       every answer delayed by the emulator (`answers`, the default), or every packet delayed by
//       lib.js's relay (`network`).
//
// A sample is charged to the innermost frame of our bundle on its stack (so node:http2 work that
// our server asked for counts as "transport"); samples with no bundle frame are Node's own (event
// loop, HTTP/2 and TLS core called from libuv). The RPC kind comes from the framework method or the
// generated tfplugin6 message codec on the stack; transport work shared by every call is not split.

const { execFile, spawn } = require('node:child_process');
const { promisify } = require('node:util');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { ROOT, emulatorControl, planOf200Config, pluginEnv: makePluginEnv, removePluginSocket, requireBuild, startBench, startLatencyRelay } = require('./lib');

const MODE = process.argv[2];
/** How many functions the profile lists per process. */
const TOP = Number(process.env.PROFILE_TOP || 15);
const DEFAULT_PROVIDER = path.join(ROOT, 'dist/provider/terraform-provider-proxyaccount');
requireBuild('profile-provider', ['dist/emulator/index.js', 'dist/cli/provider.js', 'dist/provider/terraform-provider-proxyaccount', 'dist/util/x509.js']);

const CONFIG = planOf200Config('profile-bench');
const BUILTIN = 'resource "terraform_data" "d" {\n  count = 200\n  input = count.index\n}\n';

const median = (xs) => (xs.length === 0 ? Number.NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
const RPC_METHODS = {
  getProviderSchema: 'GetProviderSchema',
  validateProviderConfig: 'ValidateProviderConfig',
  validateResourceConfig: 'ValidateResourceConfig',
  upgradeResourceState: 'UpgradeResourceState',
  configureProvider: 'ConfigureProvider',
  readResource: 'ReadResource',
  planResourceChange: 'PlanResourceChange',
  applyResourceChange: 'ApplyResourceChange',
  validateResource: 'ValidateResourceConfig',
};
const RPC_PREFIXES = Object.keys(RPC_METHODS).sort((a, b) => b.length - a.length);
/** The RPC kind a function serves, from its name (framework methods, convert.ts's converters). */
const rpcOfName = (name) => RPC_METHODS[RPC_PREFIXES.find((p) => name.startsWith(p))];

/** Runs `terraform` in `dir`; resolves with wall and CPU (ms) of the command and its descendants. */
function makeTerraform(env, root) {
  const cpuFile = path.join(root, 'cpu.txt');
  return async (dir, args, extraEnv = {}) => {
    const t0 = process.hrtime.bigint();
    await promisify(execFile)('/usr/bin/time', ['-q', '-f', '%U %S', '-o', cpuFile, 'terraform', `-chdir=${dir}`, ...args, '-no-color', '-input=false'], {
      env: { ...env, ...extraEnv },
      maxBuffer: 256 << 20,
    }).catch((err) => {
      // plan -detailed-exitcode exits 2 when there are changes: still a measurement.
      if (err.code !== 2) throw new Error(`terraform ${args.join(' ')} failed (exit ${err.code}):\n${err.stderr}`);
    });
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    const [user, sys] = fs.readFileSync(cpuFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    return { wall, cpu: (user + sys) * 1000 };
  };
}

/** The bundle's module boundaries (esbuild's `// path` comments) and tfplugin6 message codecs, by line. */
function bundleMap(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const modules = [];
  const messages = [];
  let inGen = false;
  lines.forEach((line, i) => {
    const m = /^\/\/ ((?:dist|node_modules)\/\S+)$/.exec(line);
    if (m) {
      modules.push([i, m[1]]);
      inGen = m[1] === 'dist/protocol/gen/tfplugin6.js';
    }
    const msg = inGen && /^var (\w+) = \{$/.exec(line);
    if (msg) messages.push([i, msg[1]]);
  });
  const find = (list, line) => {
    let lo = 0;
    let hi = list.length - 1;
    let best;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid][0] <= line) {
        best = list[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  };
  return { module: (line) => find(modules, line), message: (line) => find(messages, line) };
}

function partOf(module) {
  if (module === undefined) return 'launcher (compiling the bundle)';
  if (/protocol\/(h2-[a-z]+|server|provider-service|handshake|log)\.js$/.test(module))
    return 'transport: our gRPC server and HTTP/2 layer (with the node:tls work it asks for)';
  if (/protocol\/(gen\/|wire\.js)/.test(module)) return 'protobuf messages (generated codecs)';
  if (/protocol\/|@msgpack/.test(module)) return 'value codec (msgpack/JSON <-> cty, converters)';
  if (/util\/x509/.test(module)) return 'AutoMTLS certificate';
  if (/provider\/framework\//.test(module)) return 'provider framework';
  if (/undici/.test(module)) return 'undici (HTTP client)';
  if (/dist\/(provider|sdk)\//.test(module)) return 'resources and SDK';
  if (/main-provider/.test(module)) return 'entry';
  return module;
}

/** Splits one .cpuprofile's samples by part of the code, by RPC kind, and start-up vs serving. */
function analyse(profile, map, bundleNames) {
  const ours = (url) => bundleNames.some((n) => url.includes(n));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const parts = {};
  const rpcs = {};
  const functions = {};
  let startup = 0;
  let serving = false;
  let total = 0;
  const add = (o, k, v) => {
    o[k] = (o[k] ?? 0) + v;
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]);
    const name = leaf.callFrame.functionName;
    if (name === '(idle)') continue;
    total += ms;
    let part;
    let rpc;
    let inBundle = false;
    let inLauncherCompile = false;
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      // V8 names code it took from the code cache after the file the cache was made from (a copy
      // of the same executable elsewhere, e.g. in a plugin mirror), so match the executable's name.
      if (ours(f.url)) {
        inBundle = true;
        const mod = map.module(f.lineNumber);
        if (part === undefined && mod !== undefined) part = partOf(mod);
        if (mod === undefined && f.functionName === 'launch') inLauncherCompile = true;
        if (f.functionName === 'onStream') serving = true;
        if (rpc === undefined) rpc = rpcOfName(f.functionName);
        if (rpc === undefined && mod === 'dist/protocol/gen/tfplugin6.js') {
          const msg = map.message(f.lineNumber);
          if (msg?.includes('_')) rpc = msg.split('_')[0];
        }
      }
    }
    if (name === '(garbage collector)') part = 'garbage collection';
    else if (name === '(program)') part = 'V8/Node native (program)';
    else if (part === undefined)
      part = inLauncherCompile
        ? 'launcher: compiling and evaluating the bundle'
        : inBundle
          ? 'launcher'
          : "Node's own (event loop, HTTP/2 and TLS core, built-ins)";
    if (rpc !== undefined) serving = true;
    if (!serving) startup += ms;
    add(parts, part, ms);
    const where = ours(leaf.callFrame.url) ? (map.module(leaf.callFrame.lineNumber) ?? 'launcher') : leaf.callFrame.url;
    add(functions, `${name || '(anonymous)'} ${where}:${leaf.callFrame.lineNumber + 1}`, ms);
    add(rpcs, rpc ?? (serving ? '(shared by every call, or not attributable)' : '(start-up, before the first call)'), ms);
  }
  return { total, startup, parts, rpcs, functions };
}

async function profileMode(plans) {
  const provider = process.env.PROXYACCOUNT_BENCH_PROVIDER || DEFAULT_PROVIDER;
  const bench = await startBench({ prefix: 'proxyaccount-profile-', provider });
  try {
    const { root, env } = bench;
    delete env.TF_LOG;
    const terraform = makeTerraform(env, root);
    const dir = path.join(root, 'plan');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'main.tf'), CONFIG);
    await terraform(dir, ['init']);
    await terraform(dir, ['apply', '-auto-approve']);
    const wrapDir = path.join(root, 'wrapped');
    fs.mkdirSync(wrapDir);
    const rc = path.join(root, 'wrapped.rc');
    fs.writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "proxyaccount/proxyaccount" = "${wrapDir}"\n  }\n  direct {}\n}\n`);
    const map = bundleMap(provider);
    const runs = [];
    for (let p = 0; p < plans; p++) {
      const profDir = path.join(root, `prof-${p}`);
      fs.mkdirSync(profDir);
      fs.writeFileSync(
        path.join(wrapDir, 'terraform-provider-proxyaccount'),
        `#!/bin/sh\nexec '${process.execPath}' --cpu-prof --cpu-prof-interval 250 --cpu-prof-dir='${profDir}' '${provider}' "$@"\n`,
        { mode: 0o755 },
      );
      await terraform(dir, ['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: rc });
      const profiles = fs
        .readdirSync(profDir)
        .map((f) => JSON.parse(fs.readFileSync(path.join(profDir, f), 'utf8')))
        .sort((a, b) => a.startTime - b.startTime);
      runs.push(profiles.map((prof) => analyse(prof, map, ['terraform-provider-proxyaccount', path.basename(provider)])));
      process.stderr.write(`plan ${p + 1}/${plans}: ${profiles.length} provider processes profiled\n`);
    }
    const roles = ['schema', 'validation', 'serving'];
    const nProc = Math.max(...runs.map((r) => r.length));
    console.log(
      `Node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}, ${plans} plans, medians of the sampled main-thread CPU (ms)`,
    );
    for (let k = 0; k < nProc; k++) {
      const mine = runs.map((r) => r[k]).filter(Boolean);
      const med = (get) => median(mine.map(get)).toFixed(1);
      console.log(`\nprocess ${k + 1} (${roles[k] ?? '?'}): ${med((a) => a.total)} ms busy, ${med((a) => a.startup)} ms of it before the first call`);
      for (const [title, key] of [
        ['by part of the code', 'parts'],
        ['by RPC kind', 'rpcs'],
        ['top functions by self time', 'functions'],
      ]) {
        const keys = [...new Set(mine.flatMap((a) => Object.keys(a[key])))];
        const rows = keys.map((name) => [name, median(mine.map((a) => a[key][name] ?? 0))]).sort((a, b) => b[1] - a[1]);
        console.log(`| ${title} | ms |\n|---|---:|`);
        for (const [name, ms] of rows.slice(0, key === 'functions' ? TOP : rows.length)) if (ms >= 0.5) console.log(`| ${name} | ${ms.toFixed(1)} |`);
      }
    }
    await terraform(dir, ['destroy', '-auto-approve']);
  } finally {
    await bench.stop();
  }
}

function spawnMs(file, args, env, untilLine) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const done = () => resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    if (untilLine) {
      child.stdout.once('data', (line) => {
        done();
        child.once('exit', () => removePluginSocket(line));
        child.kill('SIGKILL');
      });
    } else child.once('exit', done);
    child.once('error', reject);
  });
}

/** `MS` or `MS:answers` or `MS:network`, as compare's LATENCY argument; exits 2 on anything else. */
function parseLatency(text) {
  if (text === undefined) return undefined;
  const m = /^(\d{1,4})(?::(answers|network))?$/.exec(text);
  if (m === null || Number(m[1]) === 0) {
    console.error(`profile-provider: LATENCY must be milliseconds (1-9999), optionally :answers or :network, not ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return { ms: Number(m[1]), model: m[2] ?? 'answers' };
}

async function compareMode(a, b, rounds, latency) {
  const bench = await startBench({ prefix: 'proxyaccount-profile-cmp-' });
  let relay;
  try {
    const { root, env } = bench;
    delete env.TF_LOG;
    const terraform = makeTerraform(env, root);
    // Each provider in a dev_overrides directory of its own, so one terraform directory serves both.
    const sides = { before: a, after: b };
    const rcs = {};
    const rssRcs = {};
    const rssFile = path.join(root, 'rss.txt');
    const override = (d, command) => {
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'terraform-provider-proxyaccount'), `#!/bin/sh\nexec ${command} "$@"\n`, { mode: 0o755 });
      const rc = `${d}.rc`;
      fs.writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "proxyaccount/proxyaccount" = "${d}"\n  }\n  direct {}\n}\n`);
      return rc;
    };
    for (const [name, file] of Object.entries(sides)) {
      const copy = path.join(root, `terraform-provider-proxyaccount-${name}`);
      fs.copyFileSync(file, copy);
      rcs[name] = override(path.join(root, `provider-${name}`), `'${copy}'`);
      // GNU time's %M: the peak RSS of each provider process, as the kernel counted it at its exit.
      rssRcs[name] = override(path.join(root, `provider-${name}-rss`), `/usr/bin/time -q -a -o '${rssFile}' -f %M '${copy}'`);
    }
    const dir = path.join(root, 'plan');
    const builtin = path.join(root, 'builtin');
    fs.mkdirSync(dir);
    fs.mkdirSync(builtin);
    fs.writeFileSync(path.join(dir, 'main.tf'), CONFIG);
    fs.writeFileSync(path.join(builtin, 'main.tf'), BUILTIN);
    await terraform(builtin, ['init']);
    await terraform(builtin, ['apply', '-auto-approve']);
    await terraform(dir, ['apply', '-auto-approve'], { TF_CLI_CONFIG_FILE: rcs.after });
    // The plans' API: as far away as LATENCY says (apply and destroy run without it).
    const far = {};
    if (latency?.model === 'network') {
      relay = await startLatencyRelay(Number(new URL(bench.emu.url).port), latency.ms);
      far.PROXYACCOUNT_BASE_URL = `https://127.0.0.1:${relay.port}`;
    } else if (latency !== undefined) {
      await emulatorControl(bench.emu, 'POST', '/_emulator/faults', { path: '/*', delayMs: latency.ms, count: 1_000_000 });
    }
    // One plan each first: it fills each build's code cache and warms the machine's caches.
    for (const name of Object.keys(sides)) await terraform(dir, ['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: rcs[name], ...far });
    const plan = { before: [], after: [], terraform_data: [] };
    for (let i = 0; i < rounds; i++) {
      // Alternate which build goes first, so neither always follows the other's load.
      const order = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const name of order) plan[name].push(await terraform(dir, ['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: rcs[name], ...far }));
      plan.terraform_data.push(await terraform(builtin, ['plan', '-detailed-exitcode']));
      process.stderr.write(`round ${i + 1}/${rounds}\n`);
    }
    if (latency?.model === 'answers') await emulatorControl(bench.emu, 'DELETE', '/_emulator/faults');
    // Peak RSS of each provider process (schema, validation, serving), medians over the rounds.
    const peaks = { before: [], after: [] };
    for (let i = 0; i < rounds; i++) {
      for (const name of Object.keys(sides)) {
        fs.writeFileSync(rssFile, '');
        await terraform(dir, ['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: rssRcs[name], ...far });
        peaks[name].push(
          fs
            .readFileSync(rssFile, 'utf8')
            .trim()
            .split('\n')
            .map((k) => Number(k) / 1024),
        );
      }
    }
    const peakCol = (name) =>
      Array.from({ length: Math.max(...peaks[name].map((p) => p.length)) }, (_, k) => median(peaks[name].map((p) => p[k] ?? 0)).toFixed(0)).join(', ');
    const pluginEnv = makePluginEnv(env);
    const hs = { before: [], after: [], 'node -e 0': [] };
    for (let i = 0; i < rounds * 3; i++) {
      hs.before.push(await spawnMs(a, [], pluginEnv, true));
      hs.after.push(await spawnMs(b, [], pluginEnv, true));
      hs['node -e 0'].push(await spawnMs(process.execPath, ['-e', '0'], env, false));
    }
    await terraform(dir, ['destroy', '-auto-approve'], { TF_CLI_CONFIG_FILE: rcs.after });

    const m = (xs) => median(xs).toFixed(0);
    const col = (side, key) => plan[side].map((r) => r[key]);
    const where = latency === undefined ? '' : `, the API ${latency.ms} ms away (${latency.model} model) for the proxyaccount plans`;
    console.log(
      `Node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}, ${rounds} rounds in turns (medians)${where}`,
    );
    console.log('| Measure | before | after | after / before | terraform_data |');
    console.log('|---|---:|---:|---:|---:|');
    for (const key of ['wall', 'cpu']) {
      console.log(
        `| plan of 200 in state, ${key} (ms) | ${m(col('before', key))} | ${m(col('after', key))} | ${(median(col('after', key)) / median(col('before', key))).toFixed(2)} | ${m(col('terraform_data', key))} |`,
      );
    }
    const nd = median(hs['node -e 0']);
    console.log(
      `| spawn to handshake (ms; ${rounds * 3} each) | ${m(hs.before)} (${(median(hs.before) / nd).toFixed(2)}× node -e 0) | ${m(hs.after)} (${(median(hs.after) / nd).toFixed(2)}×) | ${(median(hs.after) / median(hs.before)).toFixed(2)} | node -e 0: ${nd.toFixed(0)} |`,
    );
    console.log(`| peak RSS per provider process, in start order (MiB) | ${peakCol('before')} | ${peakCol('after')} | | |`);
    // Each round's two plans ran one after the other: their ratio is spared the machine's drift
    // over the run, which moves the medians above by several percent from one run to the next.
    for (const key of ['wall', 'cpu']) {
      const ratios = plan.after.map((r, i) => r[key] / plan.before[i][key]);
      const faster = ratios.filter((x) => x < 1).length;
      console.log(
        `paired by round, plan ${key}: after / before ${median(ratios).toFixed(3)} (median of ${rounds}); after lower in ${faster} of ${rounds} rounds`,
      );
    }
  } finally {
    await relay?.close();
    await bench.stop();
  }
}

const run =
  MODE === 'profile'
    ? () => profileMode(Number(process.argv[3] || 3))
    : MODE === 'compare' && process.argv[4] !== undefined
      ? () => compareMode(path.resolve(process.argv[3]), path.resolve(process.argv[4]), Number(process.argv[5] || 7), parseLatency(process.argv[6]))
      : undefined;
if (run === undefined) {
  console.error('usage: node bench/profile-provider.js profile [PLANS] | compare BEFORE AFTER [ROUNDS] [LATENCY_MS[:answers|:network]]');
  process.exit(2);
}
run().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
