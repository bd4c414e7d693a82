'use strict';
// What the Terraform benchmarks share: an emulator in this process, the built provider in a
// filesystem mirror of a temporary directory, and the environment that points terraform at both.

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** Exits with a message unless every build output in `files` exists. */
function requireBuild(name, files) {
  for (const f of files) {
    if (!fs.existsSync(path.join(ROOT, f))) {
      console.error(`bench/${name}: ${f} is missing; run \`npm run build\` first`);
      process.exit(1);
    }
  }
}

/**
 * Starts the emulator, installs `provider` (default: the bundled one) into a mirror under a new
 * temporary directory, and returns the directory, the emulator, the terraform environment and a
 * cleanup function. `log` receives the emulator's request log lines.
 */
async function startBench({ prefix, provider, log = () => undefined }) {
  const { startEmulator } = require(path.join(ROOT, 'dist/emulator/index.js'));
  const { installProvider, mirrorCliConfig } = require(path.join(ROOT, 'dist/cli/provider.js'));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const emu = await startEmulator({ port: 0, httpPort: 0, adminToken: crypto.randomBytes(16).toString('hex'), log });
  const mirror = path.join(root, 'mirror');
  if (provider === undefined) installProvider(mirror);
  else installProvider(mirror, provider);
  fs.writeFileSync(path.join(root, 'terraform.rc'), mirrorCliConfig(mirror));
  const env = {
    ...process.env,
    TF_CLI_CONFIG_FILE: path.join(root, 'terraform.rc'),
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    PROXYACCOUNT_BASE_URL: emu.url,
    PROXYACCOUNT_USERNAME: 'demo',
    PROXYACCOUNT_PASSWORD: 'demo-password',
    PROXYACCOUNT_CA_CERT_FILE: emu.caFile,
    PROXYACCOUNT_AUTH_FAILURE_CACHE: 'off',
  };
  return {
    root,
    emu,
    env,
    async stop() {
      await emu.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** An integer command-line argument within [min, max], or `fallback` when absent; exits 2 otherwise. */
function boundedArg(bench, text, fallback, min, max, name) {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`bench/${bench}: ${name} must be an integer from ${min} to ${max}`);
    process.exit(2);
  }
  return value;
}

/** The `p`th percentile of ascending `sorted`. */
function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Starts `proxyaccount emulator --host 127.0.0.1 --port 0 --http-port 0 ...args` as a process;
 * resolves with its ready line (`info`), the child, and its log: the line count and the lines
 * `isError` picks.
 */
function spawnEmulator(args, isError) {
  const { spawn } = require('node:child_process');
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/proxyaccount.js'), 'emulator', '--host', '127.0.0.1', '--port', '0', '--http-port', '0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const log = { lines: 0, errors: [] };
  let partial = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    log.lines += lines.length;
    for (const line of lines) if (isError(line)) log.errors.push(line);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`emulator exited early (code ${code})`)));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (nl !== -1) resolve({ child, log, info: JSON.parse(out.slice(0, nl)) });
    });
  });
}

module.exports = { ROOT, boundedArg, percentile, requireBuild, spawnEmulator, startBench };
