#!/usr/bin/env node
'use strict';
// Load benchmark of the emulator's proxy servers: N concurrent clients, each a sub-account with
// its own bearer token, send absolute-form POSTs of random size through one emulated proxy to a
// target on 127.0.0.1 (never another address), bounded in requests and time. Prints throughput,
// p50/p99/max latency, unexpected answers, and whether the usage the emulator counted matches the
// bytes each client sent and received exactly (request body + response body). Not a test.
//
//   npm run build && node bench/proxy-load.js [CLIENTS] [REQUESTS] [SECONDS]
//   (defaults 20 clients, 6000 requests, 20 s; whichever bound comes first ends the run)

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { Agent, ProxyAgent, request } = require('undici');
const { boundedArg, percentile, requireBuild, spawnEmulator } = require('./lib');

const bounded = (text, fallback, min, max, name) => boundedArg('proxy-load', text, fallback, min, max, name);
const CLIENTS = bounded(process.argv[2], 20, 1, 200, 'CLIENTS');
const REQUESTS = bounded(process.argv[3], 6000, 1, 100_000, 'REQUESTS');
const SECONDS = bounded(process.argv[4], 20, 1, 120, 'SECONDS');
/** 1000 bytes of traffic = 1 GB of usage, so usage in GB × 1000 is the byte count. */
const BYTES_PER_GB = 1000;
const MAX_UP = 2048;
const MAX_DOWN = 8192;

/** The target: answers `?size=` bytes after reading the whole body. */
function startTarget() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const size = Number(new URL(req.url, 'http://x').searchParams.get('size'));
      res.writeHead(200, { 'content-length': String(size) });
      res.end(Buffer.alloc(size, 120));
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main() {
  requireBuild('proxy-load', ['dist/cli/main.js']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-bench-proxy-'));
  const accountsFile = path.join(dir, 'accounts.json');
  fs.writeFileSync(accountsFile, JSON.stringify({ accounts: [{ username: 'bench', password: 'bench-password', plan: 'plan100', subAccountLimit: CLIENTS }] }));
  const emulatorArgs = ['--accounts', accountsFile, '--bytes-per-gb', String(BYTES_PER_GB)];
  const { child, log, info } = await spawnEmulator(emulatorArgs, (line) => /internal error|^error:/.test(line));
  const target = await startTarget();
  const guard = setTimeout(
    () => {
      console.error('bench/proxy-load: did not finish in time; stopping');
      child.kill('SIGKILL');
      process.exit(1);
    },
    (SECONDS + 60) * 1000,
  );
  const agents = [];
  try {
    const proxy = info.proxies['us-ny'];
    if (!proxy.startsWith('127.0.0.1:') || !info.url.startsWith('https://127.0.0.1:')) throw new Error('refusing to load anything but loopback');
    const targetUrl = `http://127.0.0.1:${target.address().port}`;
    const api = new Agent({ connect: { ca: fs.readFileSync(info.caFile, 'utf8') } });
    const auth = `Basic ${Buffer.from('bench:bench-password').toString('base64')}`;
    const call = async (method, pathname, params) => {
      const form = new URLSearchParams(params).toString();
      const res = await request(method === 'GET' ? `${info.url}${pathname}?${form}` : `${info.url}${pathname}`, {
        method,
        dispatcher: api,
        headers: method === 'GET' ? { authorization: auth } : { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: method === 'GET' ? undefined : form,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`setup: ${method} ${pathname}: ${res.statusCode} ${text}`);
      return JSON.parse(text);
    };
    await call('POST', '/api/proxy/add/', { proxy: 'us-ny' });
    const tokens = [];
    for (let i = 0; i < CLIENTS; i++) {
      await call('POST', '/api/sub/create/', { username: `proxy${i}` });
      tokens.push((await call('POST', '/api/token/create/', { username: `proxy${i}`, label: 'bench' })).token);
    }

    const latencies = [];
    const unexpected = new Map();
    const expectedBytes = new Array(CLIENTS).fill(0);
    let started = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const t0 = process.hrtime.bigint();
    const client = async (i) => {
      const agent = new ProxyAgent({ uri: `http://${proxy}`, token: `Bearer ${tokens[i]}`, proxyTunnel: false, connections: 1 });
      agents.push(agent);
      while (started < REQUESTS && Date.now() < deadline) {
        started++;
        const up = Math.floor(Math.random() * (MAX_UP + 1));
        const down = Math.floor(Math.random() * (MAX_DOWN + 1));
        const s = process.hrtime.bigint();
        const res = await request(`${targetUrl}/load?size=${down}`, { method: 'POST', body: Buffer.alloc(up, 121), dispatcher: agent });
        const body = await res.body.arrayBuffer();
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
        if (res.statusCode !== 200 || body.byteLength !== down) {
          const key = `${res.statusCode}`;
          unexpected.set(key, (unexpected.get(key) ?? 0) + 1);
        } else expectedBytes[i] += up + down;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;

    let mismatched = 0;
    let counted = 0;
    for (let i = 0; i < CLIENTS; i++) {
      const sub = await call('GET', '/api/sub/get/', { username: `proxy${i}` });
      const bytes = Math.round(sub.total_bandwidth * BYTES_PER_GB);
      counted += bytes;
      if (bytes !== expectedBytes[i]) mismatched++;
    }
    const expected = expectedBytes.reduce((a, b) => a + b, 0);
    latencies.sort((a, b) => a - b);
    const rows = [
      ['clients', CLIENTS],
      ['requests', latencies.length],
      ['time s', seconds.toFixed(2)],
      ['throughput req/s', (latencies.length / seconds).toFixed(0)],
      ['payload MB/s', (expected / seconds / 1e6).toFixed(2)],
      ['p50 ms', percentile(latencies, 50).toFixed(2)],
      ['p99 ms', percentile(latencies, 99).toFixed(2)],
      ['max ms', latencies[latencies.length - 1].toFixed(1)],
      ['unexpected answers', [...unexpected].map(([k, v]) => `${k}×${v}`).join(', ') || '0'],
      ['bytes sent+received', expected],
      ['bytes counted', counted],
      ['accounts counted wrong', mismatched],
      ['emulator log lines', log.lines],
      ['internal errors', log.errors.length],
    ];
    for (const [k, v] of rows) console.log(`${k.padEnd(24)} ${v}`);
    for (const line of log.errors.slice(0, 5)) console.log(`  ${line}`);
    await api.close();
    if (mismatched > 0 || log.errors.length > 0) process.exitCode = 1;
  } finally {
    clearTimeout(guard);
    await Promise.all(agents.map((a) => a.close()));
    target.close();
    target.closeAllConnections();
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench/proxy-load: ${err.stack ?? err}`);
  process.exit(1);
});
