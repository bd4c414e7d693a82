#!/usr/bin/env node
'use strict';
// Provider start-up benchmark: time from spawn to the go-plugin handshake line on stdout, for a
// tiny provider (a ProviderServer with an empty schema), next to `node -e 0` measured in the same
// run. Terraform starts the provider 3 times per plan and 4 per apply, so this is paid on every
// command. Variants are interleaved so that machine noise hits them alike.
//
//   npx tsc -p tsconfig.json && node bench/startup.js [N]      (N spawns per variant, default 30)

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const esbuild = require('esbuild');
const { removePluginSocket } = require('./lib');

const ROOT = path.resolve(__dirname, '..');
const N = Number(process.argv[2] || 30);
const DIST_SERVER = path.join(ROOT, 'dist/protocol/server.js');

if (!fs.existsSync(DIST_SERVER)) {
  console.error('bench/startup: dist/protocol/server.js is missing; run `npx tsc -p tsconfig.json` first');
  process.exit(1);
}

const TINY_PROVIDER = `
const provider = {
  getProviderSchema: async () => ({ provider: { version: 0, block: { attributes: [] } }, resourceSchemas: {}, dataSourceSchemas: {}, diagnostics: [] }),
  validateProviderConfig: async () => ({ diagnostics: [] }),
  validateResourceConfig: async () => ({ diagnostics: [] }),
  validateDataResourceConfig: async () => ({ diagnostics: [] }),
  upgradeResourceState: async () => ({ diagnostics: [] }),
  configureProvider: async () => ({ diagnostics: [] }),
  readResource: async () => ({ diagnostics: [] }),
  planResourceChange: async () => ({ requiresReplace: [], diagnostics: [] }),
  applyResourceChange: async () => ({ diagnostics: [] }),
  importResourceState: async () => ({ importedResources: [], diagnostics: [] }),
  readDataSource: async () => ({ diagnostics: [] }),
  stopProvider: async () => ({}),
};
`;

function prepare(dir) {
  // Unbundled: the tsc output in dist/, module by module, as `node dist/...` would load it.
  const unbundled = path.join(dir, 'tiny-unbundled.js');
  fs.writeFileSync(unbundled, `${TINY_PROVIDER}\nrequire(${JSON.stringify(DIST_SERVER)}).serve(provider);\n`);
  // Bundled: one file made by esbuild, the way scripts/bundle-provider.js ships the provider.
  const bundle = (file, extra) => {
    const outfile = path.join(dir, file);
    esbuild.buildSync({
      stdin: {
        contents: `import { serve } from './protocol/server';\n${TINY_PROVIDER}\nvoid serve(provider);\n`,
        resolveDir: path.join(ROOT, 'src'),
        loader: 'ts',
      },
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      logLevel: 'error',
      ...extra,
    });
    return outfile;
  };
  const bundled = bundle('tiny-bundled.js', {});
  // grpc-js only requires @grpc/proto-loader (and with it protobufjs, ~400 KiB) for its channelz
  // admin service, which a provider never serves: leaving it out shrinks what V8 must parse.
  const lean = bundle('tiny-lean.js', { external: ['@grpc/proto-loader'], minify: true });
  // The floor without a gRPC library: our certificate, a node:http2 TLS server on a loopback port
  // and the handshake line. Not a working provider; it shows what grpc-js itself costs.
  const floor = path.join(dir, 'floor-http2.js');
  fs.writeFileSync(
    floor,
    `const { createSelfSignedCertificate } = require(${JSON.stringify(path.join(ROOT, 'dist/util/x509.js'))});
const c = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
const s = require('node:http2').createSecureServer({ key: c.keyPem, cert: c.certPem, ca: [process.env.PLUGIN_CLIENT_CERT], requestCert: true });
s.listen(0, '127.0.0.1', () => process.stdout.write('1|6|tcp|127.0.0.1:' + s.address().port + '|grpc|' + c.certDer.toString('base64').replace(/=+$/, '') + '\\n'));
`,
  );
  return { unbundled, bundled, lean, floor };
}

/** Milliseconds from spawn until `done(stdoutSoFar)` says so, or until exit when there is no `done`. */
function timeOne(args, env, done, cwd = ROOT) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(Number(process.hrtime.bigint() - start) / 1e6);
      if (child.exitCode === null) {
        child.once('exit', () => removePluginSocket(out));
        child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', (d) => {
      out += d;
      if (done?.(out)) finish();
    });
    child.on('exit', (code) => {
      if (!done && code === 0) finish();
      else if (!settled) reject(new Error(`${args.join(' ')} exited with ${code} before the handshake`));
    });
  });
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const pick = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { median: pick(0.5), p90: pick(0.9), min: s[0] };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-bench-'));
  try {
    const { unbundled, bundled, lean, floor } = prepare(dir);
    const { createSelfSignedCertificate } = require(path.join(ROOT, 'dist/util/x509.js'));
    const client = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
    const pluginEnv = {
      PATH: process.env.PATH,
      TF_PLUGIN_MAGIC_COOKIE: 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2',
      PLUGIN_CLIENT_CERT: client.certPem,
      PLUGIN_PROTOCOL_VERSIONS: '6',
    };
    // The provider listens on a Unix socket (the floor on a loopback port).
    const handshake = (out) => /^1\|6\|(?:tcp\|127\.0\.0\.1:\d+|unix\|[^|\n]+)\|grpc\|[A-Za-z0-9+/]+\n/.test(out);
    const variants = [
      { name: '`node -e 0`', args: ['-e', '0'], env: { PATH: process.env.PATH } },
      {
        name: '`require("@grpc/grpc-js")` alone',
        args: ['-e', 'require("@grpc/grpc-js")'],
        env: { PATH: process.env.PATH },
      },
      { name: 'tiny provider, tsc output (unbundled)', args: [unbundled], env: pluginEnv, done: handshake },
      { name: 'tiny provider, esbuild bundle (as scripts/bundle-provider.js makes it)', args: [bundled], env: pluginEnv, done: handshake },
      {
        name: 'tiny provider, esbuild bundle, minified, `@grpc/proto-loader` external',
        args: [lean],
        env: pluginEnv,
        done: handshake,
      },
      { name: 'floor: certificate + `node:http2` TLS listener + handshake line, no gRPC library', args: [floor], env: pluginEnv, done: handshake },
    ];
    const samples = variants.map(() => []);
    // one warm-up round (disk cache), then N interleaved rounds
    for (let round = -1; round < N; round++) {
      for (let i = 0; i < variants.length; i++) {
        const v = variants[i];
        const ms = await timeOne(v.args, v.env, v.done);
        if (round >= 0) samples[i].push(ms);
      }
    }
    const base = stats(samples[0]).median;
    const cpu = os.cpus()[0];
    console.log(`Node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} × ${cpu ? cpu.model : '?'}; N = ${N} per variant\n`);
    console.log('| Variant (spawn → handshake line, or → exit) | median ms | p90 ms | min ms | median / `node -e 0` |');
    console.log('|---|---:|---:|---:|---:|');
    variants.forEach((v, i) => {
      const s = stats(samples[i]);
      console.log(`| ${v.name} | ${s.median.toFixed(1)} | ${s.p90.toFixed(1)} | ${s.min.toFixed(1)} | ${(s.median / base).toFixed(2)} |`);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
