#!/usr/bin/env node
'use strict';
// How long each provider process of a plan keeps Terraform waiting between its handshake line and
// its first answer, read from Terraform's own debug log: from "using plugin" (Terraform has read
// the handshake line) to the end of its first exchange with the process ("received EOF" of the
// stdio stream, which go-plugin opens right after the first call). It covers Terraform's
// connection and TLS handshake, the process's own work until it can answer, and the first call.
//
//   npm run build && node bench/first-answer.js BUILD... [--rounds N]
//
// BUILD: provider executables (e.g. copies of dist/provider/terraform-provider-proxyaccount from
// two commits); `go` stands for the Go anchor (bench/go-anchor). Each build plans the same 200
// resources in state against its own emulator, in turns (the order alternates each round), with
// TF_LOG=DEBUG: the log costs every build the same, so compare builds only within one run.
const fs = require('node:fs');
const path = require('node:path');

const { boundedArg, median, planOf200Config, requireBuild, startBench, terraformRunner } = require('./lib');

requireBuild('first-answer', ['dist/emulator/index.js', 'dist/cli/provider.js']);
const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const ROUNDS = roundsAt === -1 ? 7 : boundedArg('first-answer', args[roundsAt + 1], 7, 1, 101, '--rounds');
const BUILDS = args.filter((a, i) => a !== '--rounds' && i !== roundsAt + 1);
if (BUILDS.length === 0) {
  console.error('usage: node bench/first-answer.js BUILD... [--rounds N]   (BUILD: a provider executable, or `go` for the Go anchor)');
  process.exit(2);
}

/** Milliseconds of a Terraform log line's timestamp (2026-11-26T13:18:48.454Z ...). */
const stamp = (line) => Date.parse(`${line.slice(0, 23)}Z`);

/** Per provider process of one plan's log, in start order: "using plugin" to the first "received EOF". */
function firstAnswers(log) {
  const procs = [];
  let current;
  for (const line of log.split('\n')) {
    if (line.includes('provider: using plugin')) {
      current = { using: stamp(line) };
      procs.push(current);
    } else if (current !== undefined && current.eof === undefined && line.includes('received EOF, stopping recv loop')) current.eof = stamp(line);
  }
  return procs.map((p) => (p.eof === undefined ? Number.NaN : p.eof - p.using));
}

async function main() {
  const sides = [];
  try {
    for (const build of BUILDS) {
      const go = build === 'go';
      if (go) require('./go-anchor').requireGoAnchor('first-answer');
      const bench = await startBench({ prefix: 'proxyaccount-first-answer-', provider: go ? undefined : path.resolve(build), goAnchor: go });
      sides.push({ build, bench, results: [] });
      const { tf } = terraformRunner(bench.root, bench.env);
      const dir = path.join(bench.root, 'plan');
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'main.tf'), go ? require('./go-anchor').goAnchorConfig() : planOf200Config('first-answer'));
      await tf(dir, ['init']);
      await tf(dir, ['apply', '-auto-approve']);
      // One plan first, so a new build's code cache is written before the measured ones.
      await tf(dir, ['plan'], {}, [0, 2]);
      Object.assign(sides.at(-1), { tf, dir });
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const logFile = path.join(side.bench.root, 'terraform.log');
        fs.rmSync(logFile, { force: true });
        const t0 = process.hrtime.bigint();
        await side.tf(side.dir, ['plan', '-detailed-exitcode'], { TF_LOG: 'DEBUG', TF_LOG_PATH: logFile }, [0, 2]);
        side.results.push({ wall: Number(process.hrtime.bigint() - t0) / 1e6, gaps: firstAnswers(fs.readFileSync(logFile, 'utf8')) });
      }
      process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
    console.log(`Node ${process.version}, ${ROUNDS} rounds in turns, TF_LOG=DEBUG (medians, ms)`);
    console.log('| build | plan of 200 in state, wall | handshake line read -> first answer, per process in start order |\n|---|---:|---|');
    for (const side of sides) {
      const processes = Math.max(...side.results.map((r) => r.gaps.length));
      const gaps = Array.from({ length: processes }, (_, k) => median(side.results.map((r) => r.gaps[k]).filter((g) => Number.isFinite(g))));
      console.log(`| ${side.build} | ${median(side.results.map((r) => r.wall)).toFixed(0)} | ${gaps.map((g) => g.toFixed(0)).join(', ')} |`);
    }
  } finally {
    for (const side of sides) await side.bench.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
