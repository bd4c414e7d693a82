#!/usr/bin/env node
'use strict';
// What the plan's gap to the Go anchor is made of, found by making the anchor more like us one
// step at a time and measuring every step in turns in one run (the plan of 200 in state):
//
//   1. the Go anchor as bench/plan.js measures it: its own two-attribute schema and configuration;
//   2. the anchor serving our schema for our configuration (GOANCHOR_SCHEMA): Terraform now does
//      all it does for our provider, so 2 - 1 is what our wider resources cost Terraform;
//   3. the same anchor spending US microseconds of CPU per call, one call at a time
//      (GOANCHOR_CALL_CPU_US), for each US given: a provider as slow per call as a single-threaded
//      one that spends that much more per call, Terraform's reaction to it included;
//   4. ours.
//
//   npm run build && sh bench/go-anchor/build.sh && node bench/gap.js [ROUNDS] [US,US,...]
//       (default 7 rounds; 200,400 µs)
//
// Per side: the plan's wall, its CPU (provider processes included) and Terraform's own CPU (its
// threads alone). What 4 has beyond 3 is what a per-call cost of US does not explain: the fixed
// costs (three starts and exits, the API client and its four requests).
const fs = require('node:fs');
const path = require('node:path');

const { anchorWithOurSchema, goAnchorConfig, requireGoAnchor } = require('./go-anchor');
const { boundedArg, median, proxyaccountConfig, requireBuild, startBench, terraformRunner } = require('./lib');

const ROUNDS = boundedArg('gap', process.argv[2], 7, 1, 99, 'ROUNDS');
const CALL_CPU = (process.argv[3] || '200,400').split(',').map((us) => boundedArg('gap', us, 0, 1, 100_000, 'US'));
requireBuild('gap', ['dist/emulator/index.js', 'dist/provider/terraform-provider-proxyaccount', 'dist/provider/provider.js']);
requireGoAnchor('gap');

async function main() {
  const bench = await startBench({ prefix: 'proxyaccount-gap-bench-', goAnchor: true });
  const { root, env } = bench;
  try {
    delete env.TF_LOG;
    const loadBefore = fs.readFileSync('/proc/loadavg', 'utf8').trim();
    const runner = terraformRunner(root, env);
    const schemaFile = path.join(root, 'our-schema.pb');
    const schemaConfig = await anchorWithOurSchema(schemaFile, proxyaccountConfig());
    const withSchema = { GOANCHOR_SCHEMA: schemaFile };
    // Directories by configuration; the anchor's variants with our schema share one state.
    const dirs = { go: goAnchorConfig(), goSchema: schemaConfig, ours: proxyaccountConfig() };
    for (const [key, config] of Object.entries(dirs)) {
      dirs[key] = path.join(root, key);
      fs.mkdirSync(dirs[key]);
      fs.writeFileSync(path.join(dirs[key], 'main.tf'), config);
      const sideEnv = key === 'goSchema' ? withSchema : {};
      await runner.tf(dirs[key], ['init'], sideEnv);
      await runner.tf(dirs[key], ['apply', '-auto-approve'], sideEnv);
    }
    const sides = [
      { label: '1. Go anchor (its own schema)', dir: dirs.go, env: {} },
      { label: '2. Go anchor, our schema and configuration', dir: dirs.goSchema, env: withSchema },
      ...CALL_CPU.map((us) => ({
        label: `3. the same, ${us} µs of CPU per call`,
        dir: dirs.goSchema,
        env: { ...withSchema, GOANCHOR_CALL_CPU_US: String(us) },
      })),
      { label: '4. proxyaccount', dir: dirs.ours, env: {} },
    ];
    const runs = sides.map(() => []);
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate the order, so no side always follows the same one.
      const order = i % 2 === 0 ? sides.keys() : [...sides.keys()].reverse();
      for (const k of order) runs[k].push(await runner.timed(sides[k].dir, ['plan', '-detailed-exitcode'], sides[k].env));
      process.stderr.write(`round ${i + 1}/${ROUNDS} done\n`);
    }
    for (const [key, dir] of Object.entries(dirs)) await runner.tf(dir, ['destroy', '-auto-approve'], key === 'goSchema' ? withSchema : {});
    const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').trim();

    const med = (k, key) => median(runs[k].map((r) => r[key]));
    console.log(`Node ${process.version}, ${ROUNDS} rounds in turns; /proc/loadavg before: ${loadBefore}; after: ${loadAfter}`);
    console.log('| plan of 200 in state (medians) | wall (ms) | CPU (ms) | Terraform own CPU (ms) | wall / side 1 |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [k, side] of sides.entries()) {
      console.log(
        `| ${side.label} | ${med(k, 'wall').toFixed(0)} | ${med(k, 'cpu').toFixed(0)} | ${med(k, 'terraform').toFixed(0)} | ${(med(k, 'wall') / med(0, 'wall')).toFixed(2)} |`,
      );
    }
    const last = sides.length - 1;
    const gap = med(last, 'wall') - med(0, 'wall');
    const schema = med(1, 'wall') - med(0, 'wall');
    console.log(`\ngap, ours - anchor: ${gap.toFixed(0)} ms wall; our schema ${schema.toFixed(0)} ms of it (Terraform's work for our resources)`);
    for (const [i, us] of CALL_CPU.entries()) {
      const k = 2 + i;
      const perCall = med(k, 'wall') - med(1, 'wall');
      console.log(
        `at ${us} µs a call: ${perCall.toFixed(0)} ms more wall (Terraform's own CPU ${(med(k, 'terraform') - med(1, 'terraform')).toFixed(0)} ms more), ${(med(last, 'wall') - med(k, 'wall')).toFixed(0)} ms of the gap left`,
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
