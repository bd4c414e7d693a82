#!/usr/bin/env node
'use strict';
// What the code cache is worth: spawn-to-handshake of the provider's single executable for this
// machine with V8's code cache (what `npm run build:sea` makes) and without it (what every
// cross-built platform gets, since a code cache only loads where it was made), interleaved.
//
//   npm run build && node bench/sea-code-cache.js [N]      (N spawns per variant, default 20)
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sea = require('../scripts/sea');

const { pluginEnv } = require('./lib');
const N = Number(process.argv[2] || 20);

function timeToHandshake(file, env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(file, [], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|\S+\n/.test(out)) {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        child.kill('SIGKILL');
        resolve(ms);
      }
    });
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`${file} exited with ${code ?? signal} before the handshake`));
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-bench-sea-'));
  try {
    const quiet = () => {};
    const [withCache] = sea.build({ outRoot: path.join(dir, 'with'), log: quiet });
    const [withoutCache] = sea.build({ outRoot: path.join(dir, 'without'), codeCache: false, log: quiet });
    const env = pluginEnv();
    const variants = [
      { name: 'single executable, with code cache (this platform)', file: withCache.file, ms: [] },
      { name: 'single executable, without code cache (as cross-built)', file: withoutCache.file, ms: [] },
    ];
    for (let round = -1; round < N; round++) {
      for (const v of variants) {
        const ms = await timeToHandshake(v.file, env);
        if (round >= 0) v.ms.push(ms);
      }
    }
    console.log(`Node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; N = ${N}\n`);
    console.log('| Variant (spawn → handshake line) | median ms | min ms |');
    console.log('|---|---:|---:|');
    for (const v of variants) console.log(`| ${v.name} | ${median(v.ms).toFixed(0)} | ${Math.min(...v.ms).toFixed(0)} |`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench/sea-code-cache: ${err.message}`);
  process.exit(1);
});
