#!/usr/bin/env node
'use strict';
// Refresh-cost benchmark: how many API requests and how much time a `terraform plan` (which
// refreshes every resource) costs for many authorized IPs, next to a plan of a single IP
// measured in the same run. Terraform refreshes each resource separately and in parallel; the
// provider's coalescing reader should turn that into one list request per account.
//
//   npm run build && node bench/refresh.js [ACCOUNTS] [IPS_PER_ACCOUNT] [ROUNDS]
//   (defaults 5 × 100 = 500 IPs, the API's limit is 100 per account; 3 plan rounds each)

const { execFile, execFileSync } = require('node:child_process');
const { promisify } = require('node:util');
const fs = require('node:fs');
const path = require('node:path');

const { requireBuild, startBench } = require('./lib');
const ACCOUNTS = Number(process.argv[2] || 5);
const PER_ACCOUNT = Number(process.argv[3] || 100);
const ROUNDS = Number(process.argv[4] || 3);

requireBuild('refresh', ['dist/emulator/index.js', 'dist/cli/provider.js', 'dist/provider/terraform-provider-proxyaccount']);

function hcl(accounts, perAccount) {
  const out = ['terraform {\n  required_providers {\n    proxyaccount = { source = "proxyaccount/proxyaccount" }\n  }\n}\nprovider "proxyaccount" {}\n'];
  for (let a = 0; a < accounts; a++) {
    out.push(`resource "proxyaccount_sub_account" "a${a}" {\n  username = "bench${a}"\n}\n`);
    out.push(
      `resource "proxyaccount_authorized_ip" "a${a}" {\n  count    = ${perAccount}\n  username = proxyaccount_sub_account.a${a}.username\n` +
        `  ip       = "10.${a}.\${floor(count.index / 250)}.\${count.index % 250 + 1}"\n}\n`,
    );
  }
  return out.join('\n');
}

async function main() {
  const lines = [];
  const bench = await startBench({ prefix: 'proxyaccount-bench-', log: (l) => lines.push(l) });
  const { root, env } = bench;
  try {
    // Asynchronous on purpose: the emulator runs in this process and must keep serving.
    const tf = (dir, args) =>
      promisify(execFile)('terraform', [`-chdir=${dir}`, ...args, '-no-color', '-input=false'], { env, maxBuffer: 256 << 20 }).catch((err) => {
        // -detailed-exitcode: 2 means changes, which a refresh of an unchanged account must not show.
        throw new Error(`terraform ${args.join(' ')} failed (exit ${err.code}):\n${err.stderr}`);
      });

    const variants = [
      { name: `${ACCOUNTS * PER_ACCOUNT} IPs in ${ACCOUNTS} sub-accounts`, accounts: ACCOUNTS, per: PER_ACCOUNT, resources: ACCOUNTS * (PER_ACCOUNT + 1) },
      { name: '1 IP in 1 sub-account', accounts: 1, per: 1, resources: 2 },
    ];
    for (const v of variants) {
      v.dir = path.join(root, `w${v.accounts}x${v.per}`);
      fs.mkdirSync(v.dir);
      // The small variant uses other usernames so both can exist side by side.
      fs.writeFileSync(path.join(v.dir, 'main.tf'), v.accounts === 1 ? hcl(1, 1).replace(/bench0/g, 'single') : hcl(v.accounts, v.per));
      await tf(v.dir, ['init']);
      process.stderr.write(`applying ${v.name} (${v.resources} resources)...\n`);
      await tf(v.dir, ['apply', '-auto-approve']);
      v.ms = [];
      v.requests = [];
    }
    // Interleave the rounds so machine noise hits both variants alike.
    for (let r = 0; r < ROUNDS; r++) {
      for (const v of variants) {
        lines.length = 0;
        const t0 = process.hrtime.bigint();
        await tf(v.dir, ['plan', '-detailed-exitcode']);
        v.ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
        v.requests.push(lines.filter((l) => /^(GET|POST) \/api\//.test(l)).length);
      }
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const base = median(variants[1].ms);
    console.log(
      `Node ${process.version}, terraform ${JSON.parse(execFileSync('terraform', ['version', '-json'], { env })).terraform_version}, ${ROUNDS} rounds`,
    );
    console.log('| Plan (refresh of every resource) | resources | API requests | median ms | × 1-IP plan |');
    console.log('|---|---:|---:|---:|---:|');
    for (const v of variants) {
      console.log(`| ${v.name} | ${v.resources} | ${median(v.requests)} | ${median(v.ms).toFixed(0)} | ${(median(v.ms) / base).toFixed(2)} |`);
    }
    for (const v of variants) await tf(v.dir, ['destroy', '-auto-approve']);
  } finally {
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
