#!/usr/bin/env node
'use strict';
// The peer run against an API with real latency: the plan of 200 resources in state (bench/plan.js's
// shapes), ours against the Go anchor, in turns in one run, under two models of the latency:
//
// - answers: every API request answered after a fixed delay. Ours talks to the emulator with a
//   delay fault on every API path; the anchor makes one HTTPS GET per ReadResource to a local
//   server that answers after the same delay, as a provider that reads each resource separately
//   does. Connections and TLS handshakes cost nothing here.
// - network: every packet delayed, through a TCP relay (lib.js, startLatencyRelay) with that round
//   trip in front of each API server: a new HTTPS connection then pays three round trips before
//   its first answer (TCP, TLS 1.3, the request), a reused one pays one, as against a distant API.
//
//   npm run bench:latency         (npm run build and sh bench/go-anchor/build.sh first)
//   node bench/latency.js [ROUNDS] [DELAYS_MS]      (defaults: 7 rounds, 0,50,150)
//   PROXYACCOUNT_BENCH_PROVIDER=PATH measures another build of ours with the same harness.
//
// Also counts the API requests each plan made (the emulator's request log, the local server's
// count) and, in the network model, the connections each side opened.

const fs = require('node:fs');
const path = require('node:path');

const { goAnchorConfig, requireGoAnchor, startDelayServer } = require('./go-anchor');
const { ROOT, emulatorControl, median, proxyaccountConfig, requireBuild, roundByRound, startBench, startLatencyRelay, terraformRunner } = require('./lib');

const ROUNDS = Number(process.argv[2] || 7);
const DELAYS = (process.argv[3] || '0,50,150').split(',').map(Number);
requireBuild('latency', ['dist/emulator/index.js', 'dist/cli/provider.js', 'dist/provider/terraform-provider-proxyaccount', 'dist/util/x509.js']);
requireGoAnchor('latency');
const { createSelfSignedCertificate } = require(path.join(ROOT, 'dist/util/x509.js'));

async function main() {
  // Our plan's API requests: when each was answered (ms since the plan started) and its log line.
  let apiRequests = [];
  let planStart = 0n;
  const bench = await startBench({
    prefix: 'proxyaccount-latency-bench-',
    provider: process.env.PROXYACCOUNT_BENCH_PROVIDER,
    goAnchor: true,
    log: (line) => {
      if (!line.includes(' /_emulator/')) apiRequests.push(`${(Number(process.hrtime.bigint() - planStart) / 1e6).toFixed(0)} ms: ${line}`);
    },
  });
  const { root, env, emu } = bench;
  const server = await startDelayServer(root, createSelfSignedCertificate);
  // The network model's relays, per round trip: in front of the emulator and of the anchor's server.
  const relays = {};
  try {
    for (const delay of DELAYS.filter((d) => d > 0)) {
      relays[delay] = {
        ours: await startLatencyRelay(Number(new URL(emu.url).port), delay),
        go: await startLatencyRelay(Number(new URL(server.url).port), delay),
      };
    }
    delete env.TF_LOG;
    const loadBefore = fs.readFileSync('/proc/loadavg', 'utf8').trim();
    const runner = terraformRunner(root, env);
    const goEnv = { GOANCHOR_READ_URL: server.url, GOANCHOR_CA_FILE: server.caFile };
    const sides = {
      go: { config: goAnchorConfig(), env: goEnv },
      ours: { config: proxyaccountConfig('latency-bench'), env: {} },
    };
    for (const [key, side] of Object.entries(sides)) {
      side.dir = path.join(root, key);
      fs.mkdirSync(side.dir);
      fs.writeFileSync(path.join(side.dir, 'main.tf'), side.config);
      await runner.tf(side.dir, ['init']);
      await runner.tf(side.dir, ['apply', '-auto-approve'], side.env);
    }
    // Each measured case: a round trip and a model (no network model at 0 ms: it is the same plan).
    const cases = DELAYS.flatMap((delay) => (delay > 0 ? [`${delay}:answers`, `${delay}:network`] : [`${delay}:answers`]));
    const results = Object.fromEntries(cases.map((c) => [c, { go: [], ours: [], goRequests: [], ourRequests: [], goConnections: [], ourConnections: [] }]));
    const planOnce = {
      async go(delay, model) {
        const r = results[`${delay}:${model}`];
        const relay = model === 'network' ? relays[delay].go : undefined;
        server.setDelay(relay === undefined ? delay : 0);
        server.takeCount();
        relay?.connections();
        const env = relay === undefined ? sides.go.env : { ...sides.go.env, GOANCHOR_READ_URL: server.url.replace(/:\d+\//, `:${relay.port}/`) };
        r.go.push(await runner.timed(sides.go.dir, ['plan', '-detailed-exitcode'], env));
        r.goRequests.push(server.takeCount());
        if (relay !== undefined) r.goConnections.push(relay.connections());
      },
      async ours(delay, model) {
        const r = results[`${delay}:${model}`];
        const relay = model === 'network' ? relays[delay].ours : undefined;
        if (relay === undefined && delay > 0) await emulatorControl(emu, 'POST', '/_emulator/faults', { path: '/*', delayMs: delay, count: 1_000_000 });
        relay?.connections();
        apiRequests = [];
        planStart = process.hrtime.bigint();
        try {
          const env = relay === undefined ? {} : { PROXYACCOUNT_BASE_URL: `https://127.0.0.1:${relay.port}` };
          const run = await runner.timed(sides.ours.dir, ['plan', '-detailed-exitcode'], env);
          r.ours.push({ ...run, timeline: [...apiRequests] });
          r.ourRequests.push(apiRequests.length);
          if (relay !== undefined) r.ourConnections.push(relay.connections());
        } finally {
          if (relay === undefined && delay > 0) await emulatorControl(emu, 'DELETE', '/_emulator/faults');
        }
      },
    };
    for (let i = 0; i < ROUNDS; i++) {
      for (const c of cases) {
        const [delay, model] = [Number(c.split(':')[0]), c.split(':')[1]];
        // Alternate which side goes first, so neither always follows the other's load.
        const order = i % 2 === 0 ? ['go', 'ours'] : ['ours', 'go'];
        for (const key of order) await planOnce[key](delay, model);
      }
      process.stderr.write(`round ${i + 1}/${ROUNDS} done\n`);
    }
    for (const side of Object.values(sides)) await runner.tf(side.dir, ['destroy', '-auto-approve'], side.env);
    const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').trim();

    const m = (xs) => median(xs).toFixed(0);
    console.log(`Node ${process.version}, ${ROUNDS} rounds in turns; /proc/loadavg before: ${loadBefore}; after: ${loadAfter}`);
    console.log(
      '| API latency | model | Go anchor, wall (ms) | ours, wall (ms) | Go / ours | Go / ours, round by round: median (lowest–highest) | Go CPU (ms) | ours CPU (ms) | API requests per plan, Go / ours | connections per plan, Go / ours |',
    );
    console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const c of cases) {
      const [delay, model] = c.split(':');
      const r = results[c];
      const wall = (runs) => runs.map((x) => x.wall);
      const cpu = (runs) => runs.map((x) => x.cpu);
      const conns = model === 'network' ? `${m(r.goConnections)} / ${m(r.ourConnections)}` : '';
      console.log(
        `| ${delay} ms | ${model} | ${m(wall(r.go))} | ${m(wall(r.ours))} | **${(median(wall(r.go)) / median(wall(r.ours))).toFixed(2)}×** | ${roundByRound(wall(r.go), wall(r.ours))} | ${m(cpu(r.go))} | ${m(cpu(r.ours))} | ${m(r.goRequests)} / ${m(r.ourRequests)} | ${conns} |`,
      );
    }
    // Where the latency sits on our critical path: the answers of the median plan at the largest delay, in each model.
    const largest = DELAYS[DELAYS.length - 1];
    for (const c of cases.filter((x) => Number(x.split(':')[0]) === largest)) {
      const runs = results[c].ours;
      const mid = [...runs].sort((a, b) => a.wall - b.wall)[Math.floor(runs.length / 2)];
      console.log(`\nour plan at ${largest} ms, ${c.split(':')[1]} model (median, ${mid.wall.toFixed(0)} ms wall), API answers at:`);
      for (const line of mid.timeline) console.log(`  ${line}`);
    }
  } finally {
    for (const pair of Object.values(relays)) for (const relay of Object.values(pair)) await relay.close();
    await server.close();
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
