#!/usr/bin/env node
'use strict';
// Plan and apply of 200 resources against 200 `terraform_data` resources, measured in turns in
// one run (the ratio is what counts on a shared machine), plus the provider's spawn-to-handshake
// time against `node -e 0` and the peak RSS of each provider process during a plan.
//
//   npm run bench:plan            (npm run build first; defaults: 7 pairs)
//   node bench/plan.js [PAIRS]
//   PROXYACCOUNT_BENCH_COMPARE=grpc-js node bench/plan.js   also measures the provider with its
//                                  gRPC server on grpc-js instead of node:http2, in the same turns
//
// The proxyaccount side: 2 sub-accounts × 99 authorized IPs (200 resources in state), the
// emulator in this process. Prints the three ratios last.

const { execFile, spawn } = require('node:child_process');
const { promisify } = require('node:util');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { ROOT, requireBuild, startBench } = require('./lib');
const PAIRS = Number(process.argv[2] || 7);
// PROXYACCOUNT_BENCH_PROVIDER measures another build (e.g. an earlier commit's) with the same harness.
const PROVIDER = process.env.PROXYACCOUNT_BENCH_PROVIDER || path.join(ROOT, 'dist/provider/terraform-provider-proxyaccount');
requireBuild('plan', ['dist/emulator/index.js', 'dist/cli/provider.js', 'dist/provider/terraform-provider-proxyaccount', 'dist/util/x509.js']);
const { createSelfSignedCertificate } = require(path.join(ROOT, 'dist/util/x509.js'));

const REQUIRED = 'terraform {\n  required_providers {\n    proxyaccount = { source = "proxyaccount/proxyaccount" }\n  }\n}\nprovider "proxyaccount" {}\n';

function proxyaccountConfig(prefix = 'plan-bench') {
  const out = [REQUIRED];
  for (let a = 0; a < 2; a++) {
    out.push(`resource "proxyaccount_sub_account" "a${a}" {\n  username = "${prefix}${a}"\n}\n`);
    out.push(
      `resource "proxyaccount_authorized_ip" "a${a}" {\n  count    = 99\n  username = proxyaccount_sub_account.a${a}.username\n  ip       = "10.${a}.0.\${count.index + 1}"\n}\n`,
    );
  }
  return out.join('\n');
}

// Terraform's built-in resources alone: no provider block, so no provider process is started (a
// declared provider would be started, schema'd and configured, and hide its own cost in the baseline).
const BUILTIN = 'resource "terraform_data" "d" {\n  count = 200\n  input = count.index\n}\n';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Peak RSS (VmHWM, KiB) of every terraform-provider-proxyaccount process seen while `run` runs. */
async function watchProviders(run) {
  const peaks = new Map();
  const timer = setInterval(() => {
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!cmd.includes('terraform-provider-proxyaccount')) continue;
        const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (hwm) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, Number(hwm[1])));
      } catch {
        // The process ended between the listing and the read.
      }
    }
  }, 5);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return [...peaks.values()];
}

/** Spawn-to-handshake of the provider (ms): until its one handshake line on stdout. */
function handshakeMs(env, binary = PROVIDER) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(binary, [], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.once('data', () => {
      resolve(Number(process.hrtime.bigint() - t0) / 1e6);
      child.kill('SIGKILL');
    });
    child.once('error', reject);
  });
}

function nodeMs() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('exit', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    child.once('error', reject);
  });
}

async function main() {
  const bench = await startBench({ prefix: 'proxyaccount-plan-bench-', provider: PROVIDER });
  const { root, env } = bench;
  try {
    delete env.TF_LOG;
    const tf = (dir, args, ok = [0]) =>
      promisify(execFile)('terraform', [`-chdir=${dir}`, ...args, '-no-color', '-input=false'], { env, maxBuffer: 256 << 20 }).catch((err) => {
        if (ok.includes(err.code)) return err;
        throw new Error(`terraform ${args.join(' ')} failed (exit ${err.code}):\n${err.stderr}`);
      });
    // Wall time, and the CPU time (user + system) of terraform and every provider process it ran
    // (GNU time reports the waited-for descendants): CPU time hardly moves with the machine's load.
    const cpuFile = path.join(root, 'cpu.txt');
    const timed = async (dir, args, extraEnv = {}, ok = [0]) => {
      const t0 = process.hrtime.bigint();
      await promisify(execFile)('/usr/bin/time', ['-q', '-f', '%U %S', '-o', cpuFile, 'terraform', `-chdir=${dir}`, ...args, '-no-color', '-input=false'], {
        env: { ...env, ...extraEnv },
        maxBuffer: 256 << 20,
      }).catch((err) => {
        if (!ok.includes(err.code)) throw new Error(`terraform ${args.join(' ')} failed (exit ${err.code}):\n${err.stderr}`);
      });
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      const [user, sys] = fs.readFileSync(cpuFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      return { wall, cpu: (user + sys) * 1000 };
    };
    if (!fs.existsSync('/usr/bin/time')) throw new Error('bench/plan needs GNU time at /usr/bin/time (Debian package `time`)');

    const sides = { proxyaccount: proxyaccountConfig(), terraform_data: BUILTIN };
    const sideEnv = { proxyaccount: {}, terraform_data: {} };
    const compare = process.env.PROXYACCOUNT_BENCH_COMPARE;
    if (compare) {
      sides[`proxyaccount (${compare})`] = proxyaccountConfig('plan-cmp');
      sideEnv[`proxyaccount (${compare})`] = { PROXYACCOUNT_GRPC_SERVER: compare };
    }
    const dirs = {};
    for (const [name, config] of Object.entries(sides)) {
      dirs[name] = path.join(root, name);
      fs.mkdirSync(dirs[name]);
      fs.writeFileSync(path.join(dirs[name], 'main.tf'), config);
      await tf(dirs[name], ['init']);
    }
    const plan = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
    const apply = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
    let peaks = [];
    for (let i = 0; i < PAIRS; i++) {
      for (const name of Object.keys(sides)) {
        // Apply from empty, then the plan of 200 resources in state.
        apply[name].push(await timed(dirs[name], ['apply', '-auto-approve'], sideEnv[name]));
        if (name === 'proxyaccount' && i === 0) peaks = await watchProviders(() => tf(dirs[name], ['plan', '-detailed-exitcode']));
        plan[name].push(await timed(dirs[name], ['plan', '-detailed-exitcode'], sideEnv[name]));
        await tf(dirs[name], ['destroy', '-auto-approve']);
      }
      process.stderr.write(`pair ${i + 1}/${PAIRS} done\n`);
    }

    // Where a plan's CPU goes: the same plan with each provider process run under GNU time
    // (through dev_overrides, so no init), next to the CPU of the whole command.
    const wrapDir = path.join(root, 'wrapped');
    fs.mkdirSync(wrapDir);
    const providerCpu = path.join(root, 'provider-cpu.txt');
    fs.writeFileSync(
      path.join(wrapDir, 'terraform-provider-proxyaccount'),
      `#!/bin/sh\nexec /usr/bin/time -a -o '${providerCpu}' -f '%U %S' '${PROVIDER}' "$@"\n`,
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(root, 'wrapped.rc'),
      `provider_installation {\n  dev_overrides {\n    "proxyaccount/proxyaccount" = "${wrapDir}"\n  }\n  direct {}\n}\n`,
    );
    await tf(dirs.proxyaccount, ['apply', '-auto-approve']);
    const breakdown = [];
    for (let i = 0; i < 5; i++) {
      fs.writeFileSync(providerCpu, '');
      const run = await timed(dirs.proxyaccount, ['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: path.join(root, 'wrapped.rc') }, [0, 2]);
      const processes = fs
        .readFileSync(providerCpu, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ').map(Number))
        .map(([u, sy]) => (u + sy) * 1000);
      breakdown.push({ ...run, processes, terraform: run.cpu - processes.reduce((a, b) => a + b, 0) });
    }
    await tf(dirs.proxyaccount, ['destroy', '-auto-approve']);

    const cert = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
    const pluginEnv = {
      ...env,
      TF_PLUGIN_MAGIC_COOKIE: 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2',
      PLUGIN_CLIENT_CERT: cert.certPem,
      PLUGIN_PROTOCOL_VERSIONS: '6',
    };
    const hs = [];
    const hsCmp = [];
    const nd = [];
    const sea = [];
    const seaBinary = path.join(ROOT, 'dist/sea/linux_amd64/terraform-provider-proxyaccount');
    for (let i = 0; i < 15; i++) {
      hs.push(await handshakeMs(pluginEnv));
      if (compare) hsCmp.push(await handshakeMs({ ...pluginEnv, PROXYACCOUNT_GRPC_SERVER: compare }));
      nd.push(await nodeMs());
      if (fs.existsSync(seaBinary)) sea.push(await handshakeMs(pluginEnv, seaBinary));
    }

    const m = (xs) => median(xs).toFixed(0);
    const of = (runs, key) => runs.map((r) => r[key]);
    const ratio = (runs, key, side = 'proxyaccount') => median(of(runs[side], key)) / median(of(runs.terraform_data, key));
    console.log(
      `Node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}, ${PAIRS} pairs`,
    );
    console.log('| Measure | proxyaccount | terraform_data / node -e 0 | ratio |');
    console.log('|---|---:|---:|---:|');
    for (const [label, runs] of [
      ['plan, 200 resources in state', plan],
      ['apply of 200 from empty', apply],
    ]) {
      for (const key of ['wall', 'cpu']) {
        for (const side of Object.keys(sides).filter((k) => k !== 'terraform_data')) {
          const name = side === 'proxyaccount' ? '' : ` ${side}`;
          console.log(
            `| ${label}${name}, ${key} (ms) | ${m(of(runs[side], key))} | ${m(of(runs.terraform_data, key))} | ${ratio(runs, key, side).toFixed(2)} |`,
          );
        }
      }
    }
    console.log(`| spawn to handshake (ms, 15 runs) | ${m(hs)} | ${m(nd)} | ${(median(hs) / median(nd)).toFixed(2)} |`);
    if (compare) console.log(`| spawn to handshake, ${compare} (ms) | ${m(hsCmp)} | ${m(nd)} | ${(median(hsCmp) / median(nd)).toFixed(2)} |`);
    if (sea.length > 0) console.log(`| spawn to handshake, single executable (ms) | ${m(sea)} | ${m(nd)} | ${(median(sea) / median(nd)).toFixed(2)} |`);
    const nProc = Math.max(...breakdown.map((b) => b.processes.length));
    const perProcess = Array.from({ length: nProc }, (_, k) => m(breakdown.map((b) => b.processes[k] ?? 0)));
    console.log(
      `CPU of one plan (median of 5, ms): whole command ${m(of(breakdown, 'cpu'))} = terraform ${m(of(breakdown, 'terraform'))} + provider processes ${perProcess.join(' + ')}`,
    );
    console.log(`peak RSS per provider process during a plan: ${peaks.map((k) => `${(k / 1024).toFixed(0)} MiB`).join(', ') || 'not sampled'}`);
    console.log(
      `ratios: plan ${ratio(plan, 'wall').toFixed(2)}x (cpu ${ratio(plan, 'cpu').toFixed(2)}x), apply ${ratio(apply, 'wall').toFixed(2)}x (cpu ${ratio(apply, 'cpu').toFixed(2)}x), handshake ${(median(hs) / median(nd)).toFixed(2)}x`,
    );
  } finally {
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
