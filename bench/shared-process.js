#!/usr/bin/env node
'use strict';
// An experiment, not a design in use: what a plan would cost if the provider processes Terraform
// starts (3 per plan) were sessions of one Node process. Writes two provider executables into DIR,
// both shell scripts that run each start as a session of a shared process:
//
// - DIR/per-command: the process lives as long as the Terraform command that started it (it watches
//   the command's pid) and is started by the command's first provider start. What it saves is the
//   later starts (and what the validation session warmed up).
// - DIR/persistent: the process outlives the command and serves the next ones until it has been idle
//   for 120 s, with V8's optimised code from the earlier plans. It keeps the environment of the start
//   that launched it for every later session (its provider reads process.env), so a command with
//   another environment gets the wrong settings: the network model of latency.js, whose plans set
//   PROXYACCOUNT_BASE_URL, is not valid with it, and a real design would need the provider to take
//   its environment per session.
//
// Each start: `mkfifo` a pipe named after its pid, write the pid into the shared process's control
// pipe, `exec cat` the pipe. The shared process opens that pipe (once cat has it open, after the
// exec, so /proc/PID/environ is the start's), reads the start's environment (PLUGIN_CLIENT_CERT, the
// magic cookie), runs src/protocol/server.ts's serve() for it with a provider of its own (AutoMTLS
// as usual), writes the handshake line into the pipe and closes it when Terraform shuts the session
// down: cat then ends, and Terraform sees its plugin process exit. Left out, as an experiment may:
// provider logs (dropped), concurrent sessions (aliased providers would share one thread), a start
// finding the process busy, platforms without /proc. Linux only.
//
//   npm run build && node bench/shared-process.js DIR
//   node bench/profile-provider.js compare dist/provider/terraform-provider-proxyaccount DIR/per-command 9
//   PROXYACCOUNT_BENCH_PROVIDER=DIR/per-command node bench/latency.js 7 150
//
// GNU time does not count the shared process's CPU (it is not a child of terraform once its first
// start has ended), nor its memory: the peak RSS and CPU `compare` prints for these builds are the
// `cat`'s. The shared process appends its own to DIR/shared.log at its exit (per-command) or after
// each session (both): `sessions`, its CPU in ms, VmHWM.

const fs = require('node:fs');
const path = require('node:path');
const { ROOT, requireBuild } = require('./lib');

requireBuild('shared-process', ['dist/protocol/server.js', 'dist/main-provider.js']);

const dirArg = process.argv[2];
if (dirArg === undefined || process.argv.length > 3) {
  console.error('usage: node bench/shared-process.js DIR   (writes DIR/per-command and DIR/persistent)');
  process.exit(2);
}
const dir = path.resolve(dirArg);
// The launchers quote it for the shell.
if (dir.includes("'")) {
  console.error('shared-process: DIR must not contain a single quote');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
fs.chmodSync(dir, 0o700);

// The shared process. argv: its run directory (with the control pipe `ctl`), the pid whose end ends
// it (per-command) or `idle` (persistent).
const entry = `'use strict';
const fs = require('node:fs');
const net = require('node:net');
const { serve } = require(${JSON.stringify(path.join(ROOT, 'dist/protocol/server.js'))});
const { lazyProviderServer, servingFlags, PRELOAD_STEPS } = require(${JSON.stringify(path.join(ROOT, 'dist/main-provider.js'))});

const [run, owner] = process.argv.slice(2);
const logFile = ${JSON.stringify(path.join(dir, 'shared.log'))};
// The serving flags of main-provider.ts (Liftoff only for undici's parser, a young generation that
// does not grow), set once for every session.
servingFlags();

let sessions = 0;
// The pids of the starts whose sessions are open: one whose start is gone (killed without a
// Shutdown, as the spawn-to-handshake measure does) no longer counts.
const active = new Set();
let idleSince = Date.now();
const report = (what) => {
  const c = process.cpuUsage();
  const hwm = /VmHWM:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'latin1'))?.[1];
  fs.appendFileSync(logFile, \`\${process.pid} \${what} sessions \${sessions} cpu_ms \${Math.round((c.user + c.system) / 1000)} hwm_kib \${hwm}\\n\`);
};

function environ(pid) {
  const env = {};
  for (const kv of fs.readFileSync(\`/proc/\${pid}/environ\`, 'latin1').split('\\0')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

// The start's pipe opened for writing once its cat has it open for reading (ENXIO until then).
function openPipe(pid, deadline, done) {
  try {
    done(fs.openSync(\`\${run}/s.\${pid}\`, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch (err) {
    if (err.code === 'ENXIO' && Date.now() < deadline) setTimeout(openPipe, 1, pid, deadline, done);
  }
}

function session(pid) {
  openPipe(pid, Date.now() + 5000, (out) => {
    sessions++;
    active.add(pid);
    // The pipe's end is the session's: its start (cat) ends, so Terraform sees the plugin exit.
    const close = (what) => {
      fs.closeSync(out);
      active.delete(pid);
      idleSince = Date.now();
      report(what);
    };
    serve(lazyProviderServer(), {
      env: environ(pid),
      stdout: { write: (s) => fs.writeSync(out, s) },
      stderr: { write: () => true },
      exit: () => close('session-end'),
      handleSignals: false,
      logger: () => undefined,
    }).catch((err) => close(\`session-failed \${String(err).replace(/\\s+/g, ' ')}\`));
  });
}

const ctl = new net.Socket({ fd: fs.openSync(\`\${run}/ctl\`, fs.constants.O_RDWR | fs.constants.O_NONBLOCK), readable: true, writable: false });
let pending = '';
ctl.on('data', (chunk) => {
  pending += chunk.toString('latin1');
  for (let i = pending.indexOf('\\n'); i >= 0; i = pending.indexOf('\\n')) {
    const pid = pending.slice(0, i).trim();
    pending = pending.slice(i + 1);
    if (/^\\d+$/.test(pid)) session(pid);
  }
});
fs.writeFileSync(\`\${run}/ready\`, 'ready\\n');
setImmediate(() => { for (const step of PRELOAD_STEPS) step(); });

const end = () => {
  report('exit');
  fs.rmSync(run, { recursive: true, force: true });
  process.exit(0);
};
const alive = (pid) => {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
};
setInterval(() => {
  for (const pid of active) if (!alive(pid)) active.delete(pid);
  if (owner === 'idle' ? active.size === 0 && Date.now() - idleSince > 120_000 : !alive(owner)) end();
}, 100);
`;
fs.writeFileSync(path.join(dir, 'entry.js'), entry);
require(path.join(ROOT, 'node_modules/esbuild'))
  .build({
    entryPoints: [path.join(dir, 'entry.js')],
    outfile: path.join(dir, 'shared.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
  })
  .then(() => {
    // Compiled with a code cache as the provider's launcher does (written at the first exit).
    fs.writeFileSync(
      path.join(dir, 'load.js'),
      `'use strict';
const fs = require('node:fs');
const vm = require('node:vm');
const file = ${JSON.stringify(path.join(dir, 'shared.js'))};
const cacheFile = ${JSON.stringify(path.join(dir, 'shared.cache'))};
let cachedData;
try { cachedData = fs.readFileSync(cacheFile); } catch {}
const script = new vm.Script('(function (exports, require, module, __filename, __dirname) { ' + fs.readFileSync(file, 'latin1') + '\\n})', { filename: file, cachedData });
if (cachedData === undefined || script.cachedDataRejected) process.once('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()));
const mod = { exports: {} };
script.runInThisContext().call(mod.exports, mod.exports, require, mod, file, ${JSON.stringify(dir)});
`,
    );
    // The shell line's environment (scripts/bundle-provider.js) for the shared process: two malloc
    // arenas, Node's CA certificates deferred to the provider, one V8 helper thread.
    const launcher = (runDir, owner) => `#!/bin/sh
run=${runDir}
if mkdir -m 700 "$run" 2>/dev/null; then
  mkfifo "$run/ctl" "$run/ready"
  (
    MALLOC_ARENA_MAX=2; export MALLOC_ARENA_MAX
    if [ -n "\${NODE_EXTRA_CA_CERTS-}" ]; then PROXYACCOUNT_DEFERRED_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS; export PROXYACCOUNT_DEFERRED_NODE_EXTRA_CA_CERTS; unset NODE_EXTRA_CA_CERTS; fi
    PROXYACCOUNT_DEFERRED_NODE_ROOT_CERTS=1; SSL_CERT_FILE=/dev/null; SSL_CERT_DIR=/dev/null; export PROXYACCOUNT_DEFERRED_NODE_ROOT_CERTS SSL_CERT_FILE SSL_CERT_DIR
    exec setsid node --use-openssl-ca --v8-pool-size=1 '${path.join(dir, 'load.js')}' "$run" ${owner} </dev/null >/dev/null 2>&1
  ) &
  read ready < "$run/ready"
fi
mkfifo "$run/s.$$"
echo $$ > "$run/ctl"
exec cat "$run/s.$$"
`;
    fs.writeFileSync(path.join(dir, 'per-command'), launcher(`'${dir}/run-'$PPID`, '"$PPID"'), { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'persistent'), launcher(`'${dir}/run-persistent'`, 'idle'), { mode: 0o755 });
    console.log(`${path.join(dir, 'per-command')}\n${path.join(dir, 'persistent')}`);
  });
