'use strict';
// What the Terraform benchmarks share: an emulator in this process, the built provider in a
// filesystem mirror of a temporary directory, and the environment that points terraform at both.

const { execFile } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');

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
 * cleanup function. `log` receives the emulator's request log lines. With `goAnchor`, the Go
 * anchor (bench/go-anchor) is installed into the same mirror.
 */
async function startBench({ prefix, provider, goAnchor = false, log = () => undefined }) {
  const { startEmulator } = require(path.join(ROOT, 'dist/emulator/index.js'));
  const { installProvider, mirrorCliConfig } = require(path.join(ROOT, 'dist/cli/provider.js'));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const emu = await startEmulator({ port: 0, httpPort: 0, adminToken: crypto.randomBytes(16).toString('hex'), log });
  const mirror = path.join(root, 'mirror');
  const { platform } = provider === undefined ? installProvider(mirror) : installProvider(mirror, provider);
  let rc = mirrorCliConfig(mirror);
  if (goAnchor) {
    const { GO_ANCHOR_SOURCE, installGoAnchor } = require('./go-anchor');
    installGoAnchor(mirror, platform);
    // The mirror serves both providers; neither may be looked up on the network.
    rc = rc.replaceAll(/(include|exclude) = \[(.*)\]/g, `$1 = [$2, "${GO_ANCHOR_SOURCE}"]`);
  }
  fs.writeFileSync(path.join(root, 'terraform.rc'), rc);
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

/** One call to the emulator's control API (`/_emulator/...`, with its admin token). */
function emulatorControl(emu, method, urlPath, body) {
  const https = require('node:https');
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(urlPath, emu.url),
      { method, ca: fs.readFileSync(emu.caFile), headers: { authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${method} ${urlPath}: ${res.statusCode} ${text}`))));
      },
    );
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
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

const REQUIRED = 'terraform {\n  required_providers {\n    proxyaccount = { source = "proxyaccount/proxyaccount" }\n  }\n}\nprovider "proxyaccount" {}\n';

/** 2 sub-accounts × `children` (99: 200 resources) authorized IPs that reference them. */
function proxyaccountConfig(prefix = 'plan-bench', children = 99) {
  const out = [REQUIRED];
  for (let a = 0; a < 2; a++) {
    out.push(`resource "proxyaccount_sub_account" "a${a}" {\n  username = "${prefix}${a}"\n}\n`);
    out.push(
      `resource "proxyaccount_authorized_ip" "a${a}" {\n  count    = ${children}\n  username = proxyaccount_sub_account.a${a}.username\n  ip       = "10.${a}.0.\${count.index + 1}"\n}\n`,
    );
  }
  return out.join('\n');
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The ratio a[i] / b[i] of two series measured in the same rounds, taken round by round: both runs
 * of a round are seconds apart, so a drift in the machine's speed during the run moves it less
 * than the ratio of the two medians. "median (lowest–highest)", each with `unit` after it.
 */
function roundByRound(a, b, unit = '×') {
  const xs = a.map((x, i) => x / b[i]);
  return `${median(xs).toFixed(2)}${unit} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
}

/** CPU time (ms) of process `pid`'s own threads, from /proc/PID/stat (utime + stime), or undefined once it is gone. */
function ownCpu(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100; // USER_HZ on Linux

/**
 * `tf(dir, args, extraEnv, ok)` runs terraform in `dir`; `timed(...)` does the same under GNU time
 * and returns the wall time and the CPU time (user + system) of terraform and every provider
 * process it ran (GNU time counts the waited-for descendants): CPU time hardly moves with the
 * machine's load. Also `terraform`: the CPU of terraform's own threads, without any provider
 * process, read from /proc while it runs (the last reading, every 2 ms, so up to 2 ms of CPU late;
 * in steps of 10 ms). Exit codes in `ok` are accepted.
 */
function terraformRunner(root, env) {
  if (!fs.existsSync('/usr/bin/time')) throw new Error('the benchmarks need GNU time at /usr/bin/time (Debian package `time`)');
  // `wrapper`: the command line that runs terraform (GNU time), or none. `onSpawn` gets the child.
  const run = (wrapper, dir, terraformArgs, extraEnv, ok, onSpawn = () => undefined) => {
    const [file, ...pre] = [...wrapper, 'terraform'];
    const done = promisify(execFile)(file, [...pre, `-chdir=${dir}`, ...terraformArgs, '-no-color', '-input=false'], {
      env: { ...env, ...extraEnv },
      maxBuffer: 256 << 20,
    });
    onSpawn(done.child);
    return done.catch((err) => {
      if (ok.includes(err.code)) return err;
      throw new Error(`terraform ${terraformArgs.join(' ')} failed (exit ${err.code}):\n${err.stderr}`);
    });
  };
  const cpuFile = path.join(root, 'cpu.txt');
  return {
    tf: (dir, args, extraEnv = {}, ok = [0]) => run([], dir, args, extraEnv, ok),
    async timed(dir, args, extraEnv = {}, ok = [0]) {
      let terraform = 0;
      let poll;
      const t0 = process.hrtime.bigint();
      await run(['/usr/bin/time', '-q', '-f', '%U %S', '-o', cpuFile], dir, args, extraEnv, ok, (timeProcess) => {
        // terraform is GNU time's only child.
        let pid;
        poll = setInterval(() => {
          if (pid === undefined) {
            try {
              pid = Number(fs.readFileSync(`/proc/${timeProcess.pid}/task/${timeProcess.pid}/children`, 'utf8').trim().split(' ')[0]) || undefined;
            } catch {
              return;
            }
          }
          const cpu = pid === undefined ? undefined : ownCpu(pid);
          if (cpu !== undefined) terraform = cpu;
        }, 2);
      }).finally(() => clearInterval(poll));
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      const [user, sys] = fs.readFileSync(cpuFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      return { wall, cpu: (user + sys) * 1000, terraform };
    },
  };
}

/**
 * Removes what a provider killed right after its handshake leaves behind: go-plugin servers (the
 * Go anchor) remove their Unix socket only when they exit cleanly, and ours keeps its socket in a
 * private `proxyaccount-plugin-*` directory that an exit handler removes, which SIGKILL skips.
 * `handshake` is the line the provider printed; call this once the child has exited.
 */
function removePluginSocket(handshake) {
  const socket = /^\d+\|\d+\|unix\|([^|]+)\|/.exec(String(handshake))?.[1];
  if (socket === undefined) return;
  fs.rmSync(socket, { force: true });
  const dir = path.dirname(socket);
  if (path.basename(dir).startsWith('proxyaccount-plugin-')) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * The environment Terraform gives a provider it starts (go-plugin's magic cookie, a fresh client
 * certificate for AutoMTLS, protocol 6) on top of `base`: for timing a provider's handshake alone.
 */
function pluginEnv(base = {}) {
  const { createSelfSignedCertificate } = require(path.join(ROOT, 'dist/util/x509.js'));
  const cert = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
  return {
    ...base,
    TF_PLUGIN_MAGIC_COOKIE: 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2',
    PLUGIN_CLIENT_CERT: cert.certPem,
    PLUGIN_PROTOCOL_VERSIONS: '6',
  };
}

/**
 * A TCP relay on 127.0.0.1 in front of 127.0.0.1:`targetPort` that makes the link behave like a
 * network with a round trip of `rttMs`: every chunk either way arrives `rttMs / 2` after it was
 * sent (in order), and what the client sends first waits one round trip more, the TCP handshake
 * that loopback completes at once. TLS passes through untouched, so a new HTTPS connection pays
 * three round trips before its first answer (TCP, TLS 1.3, the request) and a reused one pays one,
 * as against a distant API. Resolves with `{ port, connections(), close() }`; `connections()`
 * counts the connections made since the last call.
 */
async function startLatencyRelay(targetPort, rttMs) {
  const net = require('node:net');
  const half = rttMs / 2;
  const sockets = new Set();
  let connections = 0;
  /** Delivers `write(item)` for each queued item at its due time, in order (one timer per direction). */
  const delayedPipe = () => {
    const queue = [];
    let timer;
    const run = (write) => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && queue[0].due <= now) write(queue.shift().item);
      if (queue.length > 0) timer = setTimeout(() => run(write), queue[0].due - now);
    };
    return {
      push(due, item, write) {
        queue.push({ due: Math.max(due, queue.length > 0 ? queue[queue.length - 1].due : 0), item });
        if (timer === undefined) timer = setTimeout(() => run(write), Math.max(0, queue[0].due - performance.now()));
      },
      stop: () => clearTimeout(timer),
    };
  };
  const server = net.createServer((client) => {
    connections += 1;
    const established = performance.now() + rttMs;
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
    }
    const pipes = [];
    const relay = (from, to, notBefore) => {
      const pipe = delayedPipe();
      pipes.push(pipe);
      const write = (chunk) => (chunk === null ? to.end() : to.write(chunk));
      from.on('data', (chunk) => pipe.push(Math.max(performance.now(), notBefore) + half, chunk, write));
      from.on('end', () => pipe.push(Math.max(performance.now(), notBefore) + half, null, write));
    };
    relay(client, upstream, established);
    relay(upstream, client, 0);
    const destroy = () => {
      for (const p of pipes) p.stop();
      for (const s of [client, upstream]) {
        s.destroy();
        sockets.delete(s);
      }
    };
    client.once('error', destroy).once('close', () => setTimeout(destroy, rttMs));
    upstream.once('error', destroy).once('close', () => setTimeout(destroy, rttMs));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    connections() {
      const n = connections;
      connections = 0;
      return n;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The configuration of the plan the provider benchmarks profile: 200 resources in state (2
 * sub-accounts of 99 authorized IPs each), about 800 unary calls to the serving provider process.
 */
function planOf200Config(username) {
  const out = ['terraform {\n  required_providers {\n    proxyaccount = { source = "proxyaccount/proxyaccount" }\n  }\n}\nprovider "proxyaccount" {}\n'];
  for (let a = 0; a < 2; a++) {
    out.push(`resource "proxyaccount_sub_account" "a${a}" {\n  username = "${username}${a}"\n}\n`);
    out.push(
      `resource "proxyaccount_authorized_ip" "a${a}" {\n  count    = 99\n  username = proxyaccount_sub_account.a${a}.username\n  ip       = "10.${a}.0.\${count.index + 1}"\n}\n`,
    );
  }
  return out.join('\n');
}

module.exports = {
  ROOT,
  boundedArg,
  emulatorControl,
  median,
  percentile,
  planOf200Config,
  pluginEnv,
  removePluginSocket,
  proxyaccountConfig,
  requireBuild,
  roundByRound,
  spawnEmulator,
  startBench,
  startLatencyRelay,
  terraformRunner,
};
