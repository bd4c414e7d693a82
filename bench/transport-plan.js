#!/usr/bin/env node
'use strict';
// What the transport of one plan costs on both sides of the connection: Terraform's own CPU next to
// the serving provider process's, and how many reads and writes each makes. The plan is the one of
// bench/profile-provider.js (200 resources in state, about 800 unary calls to the serving process).
//
//   npm run build && node bench/transport-plan.js A B [ROUNDS]
//       Two provider executables in turns (ROUNDS rounds, default 7). Per plan: terraform's CPU
//       (its own threads, read from /proc), the CPU of each provider process, and the
//       plan's wall, as medians. Then one plan each under `strace -f -c`: the serving process's
//       read and write system calls (a TLS record written or read is one of them at best), and
//       terraform's (its own threads, without the provider's).
//
// Terraform's CPU is the interesting number: what we send (how many writes, frames and header
// bytes) costs its grpc-go client reads, decoding and goroutine wake-ups too.
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const { median, planOf200Config, requireBuild, startBench, terraformRunner } = require('./lib');

requireBuild('transport-plan', ['dist/emulator/index.js', 'dist/cli/provider.js']);
const [A, B] = process.argv.slice(2, 4).map((p) => p && path.resolve(p));
const ROUNDS = Number(process.argv[4] || 7);
if (A === undefined || B === undefined) {
  console.error('usage: node bench/transport-plan.js BEFORE AFTER [ROUNDS]');
  process.exit(2);
}

const CONFIG = planOf200Config('transport-bench');

/** The serving process is the busiest of a plan's provider processes. */
const serving = (procs) => {
  const p = procs.reduce((a, b) => (a.cpu > b.cpu ? a : b));
  return { serving: p.cpu, servingSys: p.sys };
};

/** `strace -c` summary lines: {syscall: calls}. */
function straceCounts(file) {
  const counts = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (m) counts[m[2]] = Number(m[1]);
  }
  return counts;
}

async function main() {
  const bench = await startBench({ prefix: 'proxyaccount-transport-plan-' });
  const { root, env } = bench;
  delete env.TF_LOG;
  const run = promisify(execFile);
  try {
    const sides = { before: A, after: B };
    const cpuFile = path.join(root, 'provider-cpu.txt');
    const rc = {};
    const straceRc = {};
    for (const [name, file] of Object.entries(sides)) {
      const copy = path.join(root, `terraform-provider-proxyaccount-${name}`);
      fs.copyFileSync(file, copy);
      const wrap = (dir, command) => {
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'terraform-provider-proxyaccount'), `#!/bin/sh\nexec ${command} "$@"\n`, { mode: 0o755 });
        fs.writeFileSync(`${dir}.rc`, `provider_installation {\n  dev_overrides {\n    "proxyaccount/proxyaccount" = "${dir}"\n  }\n  direct {}\n}\n`);
        return `${dir}.rc`;
      };
      // GNU time appends one line per provider process: its user and system CPU.
      rc[name] = wrap(path.join(root, `p-${name}`), `/usr/bin/time -q -a -o '${cpuFile}' -f '%U %S' '${copy}'`);
      straceRc[name] = wrap(path.join(root, `s-${name}`), `strace -f -qq -c -o '${root}/strace-provider-${name}.'$$ '${copy}'`);
    }
    const dir = path.join(root, 'plan');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'main.tf'), CONFIG);
    const { tf, timed } = terraformRunner(root, env);
    const terraform = (args, extraEnv = {}) => timed(dir, args, extraEnv, [0, 2]);
    /** One plan with terraform (and what it starts) under `strace -f -c`, the summary in `file`. */
    const tracedPlan = (extraEnv, file) =>
      run('strace', ['-f', '-qq', '-c', '-o', file, 'terraform', `-chdir=${dir}`, 'plan', '-detailed-exitcode', '-no-color', '-input=false'], {
        env: { ...env, ...extraEnv },
        maxBuffer: 256 << 20,
      }).catch((err) => {
        if (err.code !== 2) throw new Error(`terraform plan under strace failed (exit ${err.code}):\n${err.stderr}`);
      });
    await tf(dir, ['init']);
    await tf(dir, ['apply', '-auto-approve'], { TF_CLI_CONFIG_FILE: rc.after });
    const rows = { before: [], after: [] };
    for (let i = -1; i < ROUNDS; i++) {
      for (const name of Object.keys(sides)) {
        fs.writeFileSync(cpuFile, '');
        const plan = await terraform(['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: rc[name] });
        const procs = fs
          .readFileSync(cpuFile, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ').map(Number))
          .map(([u, s]) => ({ cpu: (u + s) * 1000, sys: s * 1000 }));
        // The first round warms code caches and the machine; it is not counted.
        if (i >= 0) rows[name].push({ wall: plan.wall, cpu: plan.cpu, terraform: plan.terraform, ...serving(procs) });
      }
      if (i >= 0) process.stderr.write(`round ${i + 1}/${ROUNDS}\n`);
    }
    const syscalls = {};
    for (const name of Object.keys(sides)) {
      for (const f of fs.readdirSync(root).filter((f) => f.startsWith('strace-'))) fs.rmSync(path.join(root, f));
      const tfTrace = path.join(root, 'strace-terraform.txt');
      // A process has one tracer: terraform with its providers in one plan, the providers alone in
      // another; terraform's own calls are the difference.
      await tracedPlan({ TF_CLI_CONFIG_FILE: rc[name] }, tfTrace);
      await terraform(['plan', '-detailed-exitcode'], { TF_CLI_CONFIG_FILE: straceRc[name] });
      const providers = fs
        .readdirSync(root)
        .filter((f) => f.startsWith(`strace-provider-${name}.`))
        .map((f) => straceCounts(path.join(root, f)));
      const serving = providers.reduce((a, b) => ((a.write ?? 0) + (a.read ?? 0) > (b.write ?? 0) + (b.read ?? 0) ? a : b));
      const all = straceCounts(tfTrace);
      const sum = (k) => providers.reduce((n, p) => n + (p[k] ?? 0), 0);
      syscalls[name] = {
        serving,
        terraform: Object.fromEntries(Object.keys(all).map((k) => [k, all[k] - sum(k)])),
      };
    }
    await tf(dir, ['destroy', '-auto-approve'], { TF_CLI_CONFIG_FILE: rc.after });
    const m = (name, key) => median(rows[name].map((r) => r[key]));
    console.log(
      `Node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}, ${ROUNDS} rounds in turns (medians, ms)`,
    );
    console.log('| Measure | before | after | after / before |');
    console.log('|---|---:|---:|---:|');
    for (const [label, key] of [
      ['plan wall', 'wall'],
      ['plan CPU (terraform and providers)', 'cpu'],
      ["terraform's own CPU", 'terraform'],
      ['serving provider process CPU', 'serving'],
      ['serving provider process CPU in the kernel', 'servingSys'],
    ]) {
      console.log(`| ${label} | ${m('before', key).toFixed(0)} | ${m('after', key).toFixed(0)} | ${(m('after', key) / m('before', key)).toFixed(2)} |`);
    }
    const count = (name, who, keys) => keys.reduce((n, k) => n + (syscalls[name][who][k] ?? 0), 0);
    for (const [label, who, keys] of [
      ['serving process: write/writev calls', 'serving', ['write', 'writev']],
      ['serving process: read calls', 'serving', ['read']],
      ['serving process: epoll_wait calls', 'serving', ['epoll_wait', 'epoll_pwait']],
      ['terraform: write calls', 'terraform', ['write', 'writev']],
      ['terraform: read calls', 'terraform', ['read']],
      ['terraform: futex calls', 'terraform', ['futex']],
      ['terraform: epoll_pwait calls', 'terraform', ['epoll_wait', 'epoll_pwait']],
    ]) {
      const b = count('before', who, keys);
      const a = count('after', who, keys);
      console.log(`| ${label} (one plan) | ${b} | ${a} | ${(a / b).toFixed(2)} |`);
    }
    // Every system call of both, for a closer look.
    if (process.env.TRANSPORT_PLAN_SYSCALLS) console.log(JSON.stringify(syscalls));
  } finally {
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
