#!/usr/bin/env node
'use strict';
// Plan and apply of 200 resources, three ways, measured in turns in one run (on a shared machine
// the ratios are what counts): Terraform's built-in `terraform_data`, the Go anchor (the smallest
// provider a Go author could write on go-plugin, bench/go-anchor) and ours. Then, per provider
// process, the CPU and the peak RSS during a plan, and the spawn-to-handshake time of ours next to
// `node -e 0` and the Go anchor.
//
//   npm run bench:plan            (npm run build and sh bench/go-anchor/build.sh first; 7 rounds)
//   node bench/plan.js [ROUNDS] [--our-schema]
//
// --our-schema adds a fourth side: the Go anchor serving our provider's schema (GOANCHOR_SCHEMA)
// for our very configuration, everything kept in state. Terraform then does all it does for ours,
// so the difference between that side and ours is the provider process alone.
//
// Ours: 2 sub-accounts × 99 authorized IPs that reference them (200 resources in state), the
// emulator in this process. The anchor: the same shape, 2 parents × 99 children. Ratios to the Go
// anchor are printed last, of the medians and round by round.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { GO_ANCHOR_BINARY, GO_ANCHOR_SOURCE, anchorWithOurSchema, goAnchorConfig, requireGoAnchor } = require('./go-anchor');
const {
  ROOT,
  median,
  pluginEnv: makePluginEnv,
  proxyaccountConfig,
  removePluginSocket,
  requireBuild,
  roundByRound,
  startBench,
  terraformRunner,
} = require('./lib');
const ARGS = process.argv.slice(2);
const OUR_SCHEMA = ARGS.includes('--our-schema');
for (const a of ARGS.filter((x) => x.startsWith('--') && x !== '--our-schema')) {
  console.error(`bench/plan: unknown option ${a} (usage: node bench/plan.js [ROUNDS] [--our-schema])`);
  process.exit(2);
}
const ROUNDS = Number(ARGS.find((a) => !a.startsWith('--')) || 7);
// PROXYACCOUNT_BENCH_PROVIDER measures another build (e.g. an earlier commit's) with the same harness.
const PROVIDER = process.env.PROXYACCOUNT_BENCH_PROVIDER || path.join(ROOT, 'dist/provider/terraform-provider-proxyaccount');
requireBuild('plan', ['dist/emulator/index.js', 'dist/cli/provider.js', 'dist/provider/terraform-provider-proxyaccount', 'dist/util/x509.js']);
requireGoAnchor('plan');

// Terraform's built-in resources alone: no provider block, so no provider process is started (a
// declared provider would be started, schema'd and configured, and hide its own cost in the baseline).
const BUILTIN = 'resource "terraform_data" "d" {\n  count = 200\n  input = count.index\n}\n';

/** The measured sides, in the order of the table; `binary` and `source` for the provider processes. */
const SIDES = [
  { key: 'builtin', label: '`terraform_data` (built-in)', config: BUILTIN },
  { key: 'go', label: 'Go anchor', config: goAnchorConfig(), binary: GO_ANCHOR_BINARY, type: 'goanchor', source: GO_ANCHOR_SOURCE },
  { key: 'ours', label: 'proxyaccount', config: proxyaccountConfig(), binary: PROVIDER, type: 'proxyaccount', source: 'proxyaccount/proxyaccount' },
];
/** With --our-schema: the anchor serving our schema (its config and GOANCHOR_SCHEMA are set in main). */
const GO_OUR_SCHEMA = { key: 'goOurs', label: 'Go anchor, our schema', binary: GO_ANCHOR_BINARY, type: 'goanchor', source: GO_ANCHOR_SOURCE };
if (OUR_SCHEMA) SIDES.splice(2, 0, GO_OUR_SCHEMA);

/** Spawn-to-handshake (ms): until the provider's one handshake line on stdout. */
function handshakeMs(env, binary) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(binary, [], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.once('data', (line) => {
      resolve(Number(process.hrtime.bigint() - t0) / 1e6);
      child.once('exit', () => removePluginSocket(line));
      child.kill('SIGKILL');
    });
    child.once('error', reject);
  });
}

function nodeMs(env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    child.once('exit', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    child.once('error', reject);
  });
}

/**
 * Each provider run under GNU time through dev_overrides (so no init): returns a function that
 * plans in `dir` and gives the whole command's CPU and each provider process's CPU (ms) and peak
 * RSS (KiB), in start order.
 */
function perProcessPlanner(root, runner, side) {
  const wrapDir = path.join(root, `wrapped-${side.key}`);
  fs.mkdirSync(wrapDir);
  const out = path.join(wrapDir, 'processes.txt');
  fs.writeFileSync(
    path.join(wrapDir, `terraform-provider-${side.type}`),
    `#!/bin/sh\nexec /usr/bin/time -a -o '${out}' -f '%U %S %M' '${side.binary}' "$@"\n`,
    { mode: 0o755 },
  );
  const rc = path.join(wrapDir, 'wrapped.rc');
  fs.writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "${side.source}" = "${wrapDir}"\n  }\n  direct {}\n}\n`);
  return async (dir) => {
    fs.writeFileSync(out, '');
    const run = await runner.timed(dir, ['plan', '-detailed-exitcode'], { ...side.env, TF_CLI_CONFIG_FILE: rc }, [0, 2]);
    const processes = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map(Number))
      .map(([u, sy, rss]) => ({ cpu: (u + sy) * 1000, rss }));
    return { ...run, processes };
  };
}

async function main() {
  const bench = await startBench({ prefix: 'proxyaccount-plan-bench-', provider: PROVIDER, goAnchor: true });
  const { root, env } = bench;
  try {
    delete env.TF_LOG;
    const loadBefore = fs.readFileSync('/proc/loadavg', 'utf8').trim();
    const runner = terraformRunner(root, env);
    if (OUR_SCHEMA) {
      const schemaFile = path.join(root, 'our-schema.pb');
      GO_OUR_SCHEMA.config = await anchorWithOurSchema(schemaFile, proxyaccountConfig());
      GO_OUR_SCHEMA.env = { GOANCHOR_SCHEMA: schemaFile };
    }
    const dirs = {};
    for (const side of SIDES) {
      dirs[side.key] = path.join(root, side.key);
      fs.mkdirSync(dirs[side.key]);
      fs.writeFileSync(path.join(dirs[side.key], 'main.tf'), side.config);
      await runner.tf(dirs[side.key], ['init'], side.env);
    }
    const plan = Object.fromEntries(SIDES.map((s) => [s.key, []]));
    const apply = Object.fromEntries(SIDES.map((s) => [s.key, []]));
    for (let i = 0; i < ROUNDS; i++) {
      // Each round starts with the next side, so that no side always follows the same other's load.
      for (const side of [...SIDES.slice(i % SIDES.length), ...SIDES.slice(0, i % SIDES.length)]) {
        // Apply from empty, then the plan of 200 resources in state, then back to empty.
        apply[side.key].push(await runner.timed(dirs[side.key], ['apply', '-auto-approve'], side.env));
        plan[side.key].push(await runner.timed(dirs[side.key], ['plan', '-detailed-exitcode'], side.env));
        await runner.tf(dirs[side.key], ['destroy', '-auto-approve'], side.env);
      }
      process.stderr.write(`round ${i + 1}/${ROUNDS} done\n`);
    }

    // Per provider process: 5 plans of each provider in turns, each process under GNU time.
    const providers = SIDES.filter((s) => s.binary);
    const planners = Object.fromEntries(providers.map((s) => [s.key, perProcessPlanner(root, runner, s)]));
    const breakdown = Object.fromEntries(providers.map((s) => [s.key, []]));
    for (const side of providers) await runner.tf(dirs[side.key], ['apply', '-auto-approve'], side.env);
    for (let i = 0; i < 5; i++) for (const side of providers) breakdown[side.key].push(await planners[side.key](dirs[side.key]));
    for (const side of providers) await runner.tf(dirs[side.key], ['destroy', '-auto-approve'], side.env);

    const pluginEnv = makePluginEnv(env);
    // NODE_EXTRA_CA_CERTS makes every Node start parse its root certificates (about 50 ms on our CI
    // machines, where it is set machine-wide), `node -e 0` included, and our provider defers it:
    // spawn to handshake is measured with and without it in the environment.
    const { NODE_EXTRA_CA_CERTS: extraCa, ...withoutExtraCa } = pluginEnv;
    const seaBinary = path.join(ROOT, 'dist/sea/linux_amd64/terraform-provider-proxyaccount');
    const hs = { ours: [], node: [], go: [], sea: [], oursBare: [], nodeBare: [] };
    for (let i = 0; i < 15; i++) {
      hs.ours.push(await handshakeMs(pluginEnv, PROVIDER));
      hs.node.push(await nodeMs(pluginEnv));
      hs.go.push(await handshakeMs(pluginEnv, GO_ANCHOR_BINARY));
      if (fs.existsSync(seaBinary)) hs.sea.push(await handshakeMs(pluginEnv, seaBinary));
      if (extraCa !== undefined) {
        hs.oursBare.push(await handshakeMs(withoutExtraCa, PROVIDER));
        hs.nodeBare.push(await nodeMs(withoutExtraCa));
      }
    }
    const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').trim();

    const m = (xs) => median(xs).toFixed(0);
    const of = (runs, key) => runs.map((r) => r[key]);
    const ratio = (runs, key, a, b) => median(of(runs[a], key)) / median(of(runs[b], key));
    const byRound = (runs, key, a, b) => `round by round ${roundByRound(of(runs[a], key), of(runs[b], key), 'x')}`;
    console.log(`Node ${process.version}, ${ROUNDS} rounds in turns; /proc/loadavg before: ${loadBefore}; after: ${loadAfter}`);
    console.log(`| Measure (median) | ${SIDES.map((s) => s.label).join(' | ')} | ours / Go | ours / built-in |`);
    console.log(`|---|${SIDES.map(() => '---:|').join('')}---:|---:|`);
    for (const [label, runs] of [
      ['plan, 200 in state', plan],
      ['apply of 200 from empty', apply],
    ]) {
      for (const key of ['wall', 'cpu']) {
        const cells = SIDES.map((s) => m(of(runs[s.key], key)));
        console.log(
          `| ${label}, ${key} (ms) | ${cells.join(' | ')} | ${ratio(runs, key, 'ours', 'go').toFixed(2)} | ${ratio(runs, key, 'ours', 'builtin').toFixed(2)} |`,
        );
      }
    }
    const hsRow = (label, xs) =>
      console.log(
        `| spawn to handshake, ${label} (ms, 15 runs) | ${m(xs)} | × \`node -e 0\` ${(median(xs) / median(hs.node)).toFixed(2)} | × Go ${(median(xs) / median(hs.go)).toFixed(2)} |`,
      );
    console.log('\n| Start | median | | |\n|---|---:|---:|---:|');
    hsRow('`node -e 0` (to exit)', hs.node);
    hsRow('Go anchor', hs.go);
    hsRow('ours, script form', hs.ours);
    if (hs.sea.length > 0) hsRow('ours, single executable', hs.sea);
    if (extraCa !== undefined) {
      console.log(`(the rows above with NODE_EXTRA_CA_CERTS=${extraCa}, as the machine has it; without it:)`);
      console.log(
        `| spawn to handshake without NODE_EXTRA_CA_CERTS: \`node -e 0\` ${m(hs.nodeBare)}, ours ${m(hs.oursBare)} (ms, 15 runs) | | × \`node -e 0\` ${(median(hs.oursBare) / median(hs.nodeBare)).toFixed(2)} | × Go ${(median(hs.oursBare) / median(hs.go)).toFixed(2)} |`,
      );
    }
    for (const side of providers) {
      const runs = breakdown[side.key];
      const n = Math.max(...runs.map((b) => b.processes.length));
      const at = (k, key) => median(runs.map((b) => b.processes[k]?.[key] ?? 0));
      const cpus = Array.from({ length: n }, (_, k) => at(k, 'cpu').toFixed(0));
      const rss = Array.from({ length: n }, (_, k) => `${(at(k, 'rss') / 1024).toFixed(0)}`);
      console.log(
        `${side.label}, one plan (median of 5, ms CPU): whole command ${m(of(runs, 'cpu'))}; terraform's own threads ${m(of(runs, 'terraform'))}; provider processes ${cpus.join(' + ')}; peak RSS per process (MiB): ${rss.join(', ')}`,
      );
    }
    console.log(
      `ratios, ours / Go anchor: plan ${ratio(plan, 'wall', 'ours', 'go').toFixed(2)}x (${byRound(plan, 'wall', 'ours', 'go')}; cpu ${ratio(plan, 'cpu', 'ours', 'go').toFixed(2)}x), apply ${ratio(apply, 'wall', 'ours', 'go').toFixed(2)}x (cpu ${ratio(apply, 'cpu', 'ours', 'go').toFixed(2)}x); handshake ${(median(hs.ours) / median(hs.node)).toFixed(2)}x node -e 0`,
    );
    if (OUR_SCHEMA) {
      console.log(
        `ratios, ours / Go anchor with our schema: plan ${ratio(plan, 'wall', 'ours', 'goOurs').toFixed(2)}x (${byRound(plan, 'wall', 'ours', 'goOurs')}; cpu ${ratio(plan, 'cpu', 'ours', 'goOurs').toFixed(2)}x), apply ${ratio(apply, 'wall', 'ours', 'goOurs').toFixed(2)}x (cpu ${ratio(apply, 'cpu', 'ours', 'goOurs').toFixed(2)}x); the anchor with our schema / its own: plan ${ratio(plan, 'wall', 'goOurs', 'go').toFixed(2)}x`,
      );
    }
  } finally {
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
