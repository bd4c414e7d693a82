#!/usr/bin/env node
'use strict';
// How much of the gap to the Go anchor a plan pays once, whatever its size, and how much per
// resource. The same plan with 2 resources in state (the two parents) and with 200 (2 parents × 99
// children), the Go anchor and ours in turns, each provider process under GNU time:
//
//   npm run build && sh bench/go-anchor/build.sh && node bench/fixed-cost.js [ROUNDS]   (default 9)
//
// Per side and size, as medians: the plan's wall, terraform's own CPU (its threads alone, from
// /proc), and the CPU of each provider process in start order (schema, validation, serving). Then
// each provider's teardown: from SIGTERM after the handshake to the exit Terraform waits for before
// it starts the next process (15 runs each). What is printed last is the split: the gap at 2
// resources is fixed cost, the growth from 2 to 200 is per-resource cost.
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');

const { GO_ANCHOR_BINARY, GO_ANCHOR_SOURCE, goAnchorConfig, requireGoAnchor } = require('./go-anchor');
const { ROOT, boundedArg, median, pluginEnv, proxyaccountConfig, requireBuild, startBench, terraformRunner } = require('./lib');

const ROUNDS = boundedArg('fixed-cost', process.argv[2], 9, 1, 99, 'ROUNDS');
requireBuild('fixed-cost', ['dist/emulator/index.js', 'dist/cli/provider.js', 'dist/provider/terraform-provider-proxyaccount', 'dist/util/x509.js']);
requireGoAnchor('fixed-cost');
const PROVIDER = path.join(ROOT, 'dist/provider/terraform-provider-proxyaccount');
const SIZES = [0, 99]; // children per parent: 2 and 200 resources in state

/** Spawn, wait for the handshake line, SIGTERM a moment later: ms from the signal to the exit. */
function teardownMs(env, binary) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let sent = 0;
    child.stdout.once('data', () =>
      setTimeout(() => {
        sent = performance.now();
        child.kill('SIGTERM');
      }, 50),
    );
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - sent));
  });
}

async function main() {
  const bench = await startBench({ prefix: 'proxyaccount-fixed-cost-', goAnchor: true });
  const { root, env } = bench;
  delete env.TF_LOG;
  try {
    const runner = terraformRunner(root, env);
    const processFile = path.join(root, 'processes.txt');
    const sides = [];
    for (const [key, binary, source, type] of [
      ['go', GO_ANCHOR_BINARY, GO_ANCHOR_SOURCE, 'goanchor'],
      ['ours', PROVIDER, 'proxyaccount/proxyaccount', 'proxyaccount'],
    ]) {
      // Each provider process under GNU time, through dev_overrides (the same for both sides).
      const wrapDir = path.join(root, `wrapped-${key}`);
      fs.mkdirSync(wrapDir);
      fs.writeFileSync(path.join(wrapDir, `terraform-provider-${type}`), `#!/bin/sh\nexec /usr/bin/time -a -o '${processFile}' -f '%U %S' '${binary}' "$@"\n`, {
        mode: 0o755,
      });
      const rc = path.join(root, `${key}.rc`);
      fs.writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "${source}" = "${wrapDir}"\n  }\n  direct {}\n}\n`);
      for (const children of SIZES) {
        const dir = path.join(root, `${key}-${children}`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'main.tf'), key === 'go' ? goAnchorConfig(children) : proxyaccountConfig(`fixed${children}-`, children));
        await runner.tf(dir, ['apply', '-auto-approve'], { TF_CLI_CONFIG_FILE: rc });
        sides.push({ key, binary, children, dir, rc, rows: [] });
      }
    }
    const loadBefore = fs.readFileSync('/proc/loadavg', 'utf8').trim();
    // Round 0 warms caches and is not counted.
    for (let i = 0; i <= ROUNDS; i++) {
      for (const side of sides) {
        fs.writeFileSync(processFile, '');
        const run = await runner.timed(side.dir, ['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: side.rc }, [0, 2]);
        const processes = fs
          .readFileSync(processFile, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ').map(Number))
          .map(([user, sys]) => (user + sys) * 1000);
        if (i > 0) side.rows.push({ ...run, processes });
      }
      if (i > 0) process.stderr.write(`round ${i}/${ROUNDS}\n`);
    }
    const teardown = { go: [], ours: [] };
    const penv = pluginEnv(env);
    for (let i = 0; i < 15; i++) {
      teardown.go.push(await teardownMs(penv, GO_ANCHOR_BINARY));
      teardown.ours.push(await teardownMs(penv, PROVIDER));
    }
    for (const side of sides) await runner.tf(side.dir, ['destroy', '-auto-approve'], { TF_CLI_CONFIG_FILE: side.rc });
    const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').trim();

    const med = (side, get) => median(side.rows.map(get));
    const find = (key, children) => sides.find((s) => s.key === key && s.children === children);
    console.log(`Node ${process.version}, ${ROUNDS} rounds in turns; /proc/loadavg before: ${loadBefore}; after: ${loadAfter}`);
    console.log('| Plan (medians, ms) | resources | wall | terraform own CPU | provider processes CPU (schema, validation, serving) |');
    console.log('|---|---:|---:|---:|---|');
    for (const side of sides) {
      const procs = [0, 1, 2].map((k) => med(side, (r) => r.processes[k] ?? 0).toFixed(0)).join(', ');
      console.log(
        `| ${side.key === 'go' ? 'Go anchor' : 'proxyaccount'} | ${2 + 2 * side.children} | ${med(side, (r) => r.wall).toFixed(0)} | ${med(side, (r) => r.terraform).toFixed(0)} | ${procs} |`,
      );
    }
    console.log(
      `\nSIGTERM after the handshake to exit (ms, median of 15): Go anchor ${median(teardown.go).toFixed(1)}, ours ${median(teardown.ours).toFixed(1)}`,
    );
    const [small, large] = SIZES;
    const wall = (key, children) => med(find(key, children), (r) => r.wall);
    const fixed = wall('ours', small) - wall('go', small);
    const perResource = wall('ours', large) - wall('ours', small) - (wall('go', large) - wall('go', small));
    console.log(
      `gap to the Go anchor at ${2 + 2 * large} resources: ${(wall('ours', large) - wall('go', large)).toFixed(0)} ms wall = fixed ${fixed.toFixed(0)} (the gap at ${2 + 2 * small}) + per resource ${perResource.toFixed(0)} (${((perResource / (2 * large)) * 1000).toFixed(0)} µs a resource); ours / Go: ${(wall('ours', large) / wall('go', large)).toFixed(2)}x at ${2 + 2 * large}, ${(wall('ours', small) / wall('go', small)).toFixed(2)}x at ${2 + 2 * small}`,
    );
  } finally {
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
