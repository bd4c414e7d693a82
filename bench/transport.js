#!/usr/bin/env node
'use strict';
// The gRPC server alone, three ways, on the provider's workload shape: 800 unary calls (the calls
// of a 200-resource plan) at Terraform's parallelism of 10, over mutual TLS, from one grpc-js
// client. Each server runs in its own process (bench/transport-server.js) that reports the CPU it
// used for the calls; the variants take turns in every round.
//
//   node bench/transport.js [ROUNDS]          (npm run build first; default 7 rounds)
//
// Variants: our unary server on our own HTTP/2 layer (src/protocol/h2-server.ts), the unary server
// on node:http2 it replaced (kept in bench/transport-server.js), grpc-js, and, when it is
// installed, @connectrpc/connect-node (with a protobuf-es descriptor for the one message).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const { echoService } = require('./transport-blob');

const ROOT = path.resolve(__dirname, '..');
const ROUNDS = Number(process.argv[2] || 7);
const CALLS = 800;
const PARALLELISM = 10;
const REQUEST_BYTES = 300;
// connect-node 2.x declares Node >= 22, so it is not a dependency of this Node 20 project; install
// it for a run with `npm install --no-save @connectrpc/connect-node@2.2.0 @bufbuild/protobuf@2.17.0`.
const VARIANTS = ['h2', 'node-http2', 'grpc-js', ...(hasConnect() ? ['connect'] : [])];

function hasConnect() {
  try {
    require.resolve('@connectrpc/connect-node');
    require.resolve('@bufbuild/protobuf');
    return true;
  } catch {
    process.stderr.write('bench/transport: @connectrpc/connect-node is not installed, so its row is left out (see the comment at the top)\n');
    return false;
  }
}
const { createSelfSignedCertificate } = require(path.join(ROOT, 'dist/util/x509.js'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function startServer(variant, certDir) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [path.join(__dirname, 'transport-server.js'), variant, certDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${variant} server exited ${code}`)));
    child.stdout.once('data', (d) => resolve({ child, port: Number(String(d).trim()), startMs: Number(process.hrtime.bigint() - t0) / 1e6 }));
  });
}

async function measure(variant, certs, certDir) {
  const { child, port, startMs } = await startServer(variant, certDir);
  const Client = grpc.makeGenericClientConstructor(echoService(), 'Echo');
  const creds = grpc.credentials.createSsl(Buffer.from(certs.server.certPem), Buffer.from(certs.client.keyPem), Buffer.from(certs.client.certPem));
  const client = new Client(`127.0.0.1:${port}`, creds, { 'grpc.ssl_target_name_override': 'localhost' });
  const call = (name, data) => new Promise((resolve, reject) => client[name](data, (err, res) => (err ? reject(err) : resolve(res))));
  const request = Buffer.alloc(REQUEST_BYTES, 0x62);
  try {
    for (let i = 0; i < 20; i++) await call('Call', request); // connection and first-call costs
    const before = JSON.parse(String(await call('Stats', Buffer.from('x')))).cpuMs;
    const t0 = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLELISM }, async () => {
        while (next++ < CALLS) await call('Call', request);
      }),
    );
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpuMs = JSON.parse(String(await call('Stats', Buffer.from('x')))).cpuMs - before;
    return { startMs, wallMs, cpuMs };
  } finally {
    client.close();
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
  }
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist/protocol/h2-server.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-transport-bench-'));
  const certs = {
    server: createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] }),
    client: createSelfSignedCertificate({ commonName: 'terraform', dnsNames: ['localhost'] }),
  };
  fs.writeFileSync(path.join(certDir, 'server.key'), certs.server.keyPem);
  fs.writeFileSync(path.join(certDir, 'server.crt'), certs.server.certPem);
  fs.writeFileSync(path.join(certDir, 'client.crt'), certs.client.certPem);
  const results = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const v of VARIANTS) results[v].push(await measure(v, certs, certDir));
      process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
  } finally {
    fs.rmSync(certDir, { recursive: true, force: true });
  }
  console.log(
    `Node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${ROUNDS} rounds of ${CALLS} calls, parallelism ${PARALLELISM}`,
  );
  console.log('| Server | start to listening (ms) | wall for the calls (ms) | server CPU for the calls (ms) | CPU per call (µs) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const v of VARIANTS) {
    const m = (k) => median(results[v].map((x) => x[k]));
    console.log(`| ${v} | ${m('startMs').toFixed(0)} | ${m('wallMs').toFixed(0)} | ${m('cpuMs').toFixed(0)} | ${((m('cpuMs') / CALLS) * 1000).toFixed(0)} |`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
