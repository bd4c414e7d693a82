#!/usr/bin/env node
'use strict';
// Emulator load benchmark: N concurrent clients mixing reads and writes against an emulator
// process on 127.0.0.1 (never another address), bounded in requests and in time; prints
// throughput, p50/p99/max latency, unexpected answers and lost writes. Not a test.
//
//   npm run build && node bench/emulator-load.js [CLIENTS] [REQUESTS] [SECONDS]
//   (defaults 20 clients, 6000 requests, 20 s; whichever bound comes first ends the run)
//
// Each client owns one sub-account and, in a loop: reads (70 %: its IP list, its details, its
// hostnames) or writes (30 %: adds or deletes one of its IPs, edits its first name). At the end
// each client's IP list is read back and compared with what it wrote: a difference is a lost write.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Agent, request } = require('undici');
const { boundedArg, percentile, ROOT, spawnEmulator } = require('./lib');

const bounded = (text, fallback, min, max, name) => boundedArg('emulator-load', text, fallback, min, max, name);
const startEmulator = (accountsFile) => spawnEmulator(['--accounts', accountsFile], (line) => line.startsWith('error:') || / 5\d\d /.test(line));
const CLIENTS = bounded(process.argv[2], 20, 1, 200, 'CLIENTS');
const REQUESTS = bounded(process.argv[3], 6000, 1, 100_000, 'REQUESTS');
const SECONDS = bounded(process.argv[4], 20, 1, 120, 'SECONDS');
const READ_SHARE = 0.7;

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist/cli/main.js'))) {
    console.error('bench/emulator-load: dist/ is missing; run `npm run build` first');
    process.exit(1);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-bench-load-'));
  const accountsFile = path.join(dir, 'accounts.json');
  fs.writeFileSync(accountsFile, JSON.stringify({ accounts: [{ username: 'bench', password: 'bench-password', plan: 'plan100', subAccountLimit: CLIENTS }] }));
  const { child, log, info } = await startEmulator(accountsFile);
  // A hard stop in case anything hangs: the benchmark must end by itself.
  const guard = setTimeout(
    () => {
      console.error('bench/emulator-load: did not finish in time; stopping');
      child.kill('SIGKILL');
      process.exit(1);
    },
    (SECONDS + 60) * 1000,
  );
  try {
    const url = new URL(info.url);
    if (url.hostname !== '127.0.0.1') throw new Error(`refusing to load ${info.url}: loopback only`);
    const dispatcher = new Agent({ connect: { ca: fs.readFileSync(info.caFile, 'utf8') }, connections: CLIENTS });
    const auth = `Basic ${Buffer.from('bench:bench-password').toString('base64')}`;
    const call = async (method, pathname, params) => {
      const form = new URLSearchParams(params).toString();
      const res = await request(method === 'GET' ? `${info.url}${pathname}?${form}` : `${info.url}${pathname}`, {
        method,
        dispatcher,
        headers: method === 'GET' ? { authorization: auth } : { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: method === 'GET' ? undefined : form,
      });
      const text = await res.body.text();
      return { status: res.statusCode, text };
    };

    for (let i = 0; i < CLIENTS; i++) {
      const res = await call('POST', '/api/sub/create/', { username: `load${i}` });
      if (res.status !== 200) throw new Error(`setup: create load${i}: ${res.status} ${res.text}`);
    }

    const latencies = [];
    const unexpected = new Map();
    let started = 0;
    let reads = 0;
    let writes = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const t0 = process.hrtime.bigint();

    const client = async (i) => {
      const username = `load${i}`;
      const ips = new Set();
      let next = 0;
      while (started < REQUESTS && Date.now() < deadline) {
        started++;
        let op;
        if (Math.random() < READ_SHARE) {
          reads++;
          const pick = Math.floor(Math.random() * 3);
          op = pick === 0 ? ['GET', '/api/ips/', { username }] : pick === 1 ? ['GET', '/api/sub/get/', { username }] : ['GET', '/api/hostnames/', { username }];
        } else {
          writes++;
          if (Math.random() < 0.2) op = ['POST', '/api/sub/edit/', { username, first_name: `n${next++ % 1000}` }];
          else if (ips.size > 0 && (ips.size >= 50 || Math.random() < 0.5)) {
            const ip = ips.values().next().value;
            ips.delete(ip);
            op = ['POST', '/api/ip/delete/', { username, ip }];
          } else {
            const ip = `10.${i}.${Math.floor(next / 250) % 250}.${(next++ % 250) + 1}`;
            if (ips.has(ip)) continue;
            ips.add(ip);
            op = ['POST', '/api/ip/add/', { username, ip }];
          }
        }
        const s = process.hrtime.bigint();
        const res = await call(...op);
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
        if (res.status !== 200 && res.status !== 204) {
          const key = `${op[0]} ${op[1]} ${res.status}`;
          unexpected.set(key, (unexpected.get(key) ?? 0) + 1);
        }
      }
      return { username, ips };
    };

    const results = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
    const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;

    let lost = 0;
    for (const { username, ips } of results) {
      const res = await call('GET', '/api/ips/', { username });
      const actual = new Set(JSON.parse(res.text).ips);
      for (const ip of ips) if (!actual.has(ip)) lost++;
      for (const ip of actual) if (!ips.has(ip)) lost++;
    }
    await dispatcher.close();

    latencies.sort((a, b) => a - b);
    const [l1, l5, l15] = os.loadavg().map((v) => v.toFixed(2));
    console.log(`emulator load: ${CLIENTS} clients, ${latencies.length} requests (${reads} reads, ${writes} writes) in ${elapsed.toFixed(2)} s`);
    console.log(`  throughput      ${(latencies.length / elapsed).toFixed(0)} req/s`);
    console.log(`  latency p50     ${percentile(latencies, 50).toFixed(2)} ms`);
    console.log(`  latency p99     ${percentile(latencies, 99).toFixed(2)} ms`);
    console.log(`  latency max     ${latencies[latencies.length - 1].toFixed(2)} ms`);
    console.log(`  unexpected      ${unexpected.size === 0 ? 0 : JSON.stringify(Object.fromEntries(unexpected))}`);
    console.log(`  lost writes     ${lost}`);
    console.log(`  server errors   ${log.errors.length}${log.errors.length ? `: ${log.errors.slice(0, 3).join(' | ')}` : ''}`);
    console.log(`  node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${l1} ${l5} ${l15}`);
  } finally {
    clearTimeout(guard);
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench/emulator-load: ${err.stack ?? err}`);
  process.exit(1);
});
