// `proxyaccount emulator`: runs the account-API emulator until SIGTERM or SIGINT. When ready it
// prints exactly one JSON line on stdout ({url, httpUrl, caFile, adminToken, proxies, countryHeader,
// exitIpHeader}), or with --print-env shell `export` lines for the provider's variables (and the
// proxies' addresses and header names); logs go to stderr.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { isProxyDomain, PROXY_DOMAIN_RULE } from '../emulator/validation';

interface EmulatorFlags {
  host: string;
  port: number;
  httpPort: number;
  state?: string;
  accounts?: string;
  tlsCert?: string;
  tlsKey?: string;
  adminToken?: string;
  proxyDomain: string;
  tokenPrefix: string;
  caOut?: string;
  printEnv?: boolean;
  proxies: boolean;
  proxyPort: number;
  operator: string;
  bytesPerGb: number;
  proxyAllowAnyTarget?: boolean;
}

function parsePort(value: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError('must be an integer from 0 to 65535 (0 = any free port)');
  }
  return Number(value);
}

function parseProxyDomain(value: string): string {
  // The emulator's own hostname rule, so that no catalogue name is an IPv4 address in disguise.
  if (!isProxyDomain(value)) throw new InvalidArgumentError(PROXY_DOMAIN_RULE);
  return value.toLowerCase();
}

function parseTokenPrefix(value: string): string {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(value)) {
    throw new InvalidArgumentError('must be 1-32 URL-safe characters (letters, digits, _ and -)');
  }
  return value;
}

function parseOperator(value: string): string {
  if (!/^[A-Za-z0-9]{1,32}$/.test(value)) throw new InvalidArgumentError('must be 1-32 letters and digits');
  return value;
}

function parseBytesPerGb(value: string): number {
  const n = Number(value);
  if (!/^[0-9]{1,10}$/.test(value) || n < 1 || 1e9 % n !== 0) {
    throw new InvalidArgumentError('must be a whole divisor of 1000000000, e.g. 1000 (1 KB of traffic = 1 GB of usage)');
  }
  return n;
}

/** Checked in the action, not by an argParser: commander would quote the rejected secret. */
function checkAdminToken(value: string): string {
  if (!/^[\x21-\x7e]{8,256}$/.test(value)) {
    throw new Error('--admin-token must be 8-256 printable characters without spaces');
  }
  return value;
}

function readPem(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag} ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** Adds the `emulator` subcommand to the program. */
export function register(program: Command): void {
  program
    .command('emulator')
    .description('Run a local emulator of the account API; prints one JSON line when ready (see docs/emulator.md)')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .addOption(new Option('--port <port>', 'HTTPS port, 0 = any free port').default(8443).argParser(parsePort))
    .addOption(new Option('--http-port <port>', 'plain-HTTP port answering 302 to HTTPS, 0 = any free port').default(8080).argParser(parsePort))
    .option('--state <file>', 'SQLite file keeping state across restarts (default: in memory)')
    .option('--accounts <file>', 'accounts file (default: one account demo / demo-password on plan20)')
    .option('--tls-cert <file>', 'PEM certificate to serve (with --tls-key; default: fresh self-signed)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option('--admin-token <token>', 'secret of the /_emulator/ control API, 8-256 characters (default: random)')
    .addOption(new Option('--proxy-domain <domain>', 'domain of the proxy catalogue').default('proxy.example.net').argParser(parseProxyDomain))
    .addOption(new Option('--token-prefix <prefix>', 'prefix of raw bearer tokens').default('pxa_').argParser(parseTokenPrefix))
    .option('--ca-out <file>', 'write the certificate clients should trust to this stable path (kept across restarts with --state)')
    .option('--print-env', 'print shell export lines for PROXYACCOUNT_* instead of the JSON line')
    .option('--no-proxies', 'do not serve the emulated proxy servers')
    .addOption(
      new Option('--proxy-port <port>', 'port of the first catalogue proxy host, the others following in catalogue order; 0 = free ports')
        .default(0)
        .argParser(parsePort),
    )
    .addOption(
      new Option('--operator <name>', 'operator name in the proxy headers X-<name>-Country and X-<name>-IP').default('Emulator').argParser(parseOperator),
    )
    .addOption(new Option('--bytes-per-gb <bytes>', 'proxied bytes that count as 1 GB of usage (a divisor of 10^9)').default(1e9).argParser(parseBytesPerGb))
    .option(
      '--proxy-allow-any-target',
      'let the proxies forward to any address, not only loopback, and listen on --host, not only loopback (makes an open proxy of it)',
    )
    .action(async (flags: EmulatorFlags) => run(flags));
}

async function run(flags: EmulatorFlags): Promise<void> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new Error('--tls-cert and --tls-key must be given together');
  }
  const adminToken = flags.adminToken === undefined ? undefined : checkAdminToken(flags.adminToken);
  const tls =
    flags.tlsCert !== undefined && flags.tlsKey !== undefined
      ? { certPem: readPem(flags.tlsCert, '--tls-cert'), keyPem: readPem(flags.tlsKey, '--tls-key'), certFile: flags.tlsCert }
      : undefined;
  // Loaded here, not at the top, so that `proxyaccount --help` never loads SQLite.
  const { DEFAULT_ACCOUNTS, loadAccountsFile, PortInUseError, PROXY_CATALOGUE, startEmulator } = await import('../emulator');
  const lastProxyPort = flags.proxyPort + PROXY_CATALOGUE.length - 1;
  if (flags.proxies && flags.proxyPort !== 0 && lastProxyPort > 65535) {
    throw new Error(
      `option '--proxy-port <port>' argument '${flags.proxyPort}' is invalid. The ${PROXY_CATALOGUE.length} proxy hosts take ports ${flags.proxyPort}-${lastProxyPort}, past 65535: give at most ${65535 - PROXY_CATALOGUE.length + 1}, or 0 for free ports`,
    );
  }
  const { randomSecret } = await import('../emulator/secrets');
  const server = await startEmulator({
    host: flags.host,
    port: flags.port,
    httpPort: flags.httpPort,
    statePath: flags.state,
    accountsPath: flags.accounts,
    tls,
    adminToken: adminToken ?? randomSecret(),
    proxyDomain: flags.proxyDomain,
    tokenPrefix: flags.tokenPrefix,
    // Absolute, so that the path it prints (--print-env, caFile) still names the file after the
    // shell that sourced it changes directory.
    caOutPath: flags.caOut === undefined ? undefined : resolve(flags.caOut),
    proxies: flags.proxies
      ? { firstPort: flags.proxyPort, operator: flags.operator, bytesPerGb: flags.bytesPerGb, allowAnyTarget: flags.proxyAllowAnyTarget === true }
      : false,
  }).catch((err: unknown) => {
    if (err instanceof PortInUseError) {
      const flag = err.server === 'https' ? '--port' : err.server === 'http' ? '--http-port' : '--proxy-port';
      const what =
        err.server === 'proxy'
          ? `port ${err.port} (of proxy host ${err.host}, ${err.port - flags.proxyPort + 1} of ${PROXY_CATALOGUE.length} from --proxy-port ${flags.proxyPort})`
          : `port ${err.port}`;
      throw new Error(`emulator failed to start: ${what} is in use; pick another with ${flag}, or ${flag} 0 for any free port`);
    }
    throw new Error(`emulator failed to start: ${err instanceof Error ? err.message : String(err)}`);
  });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`emulator: ${signal} received, shutting down\n`);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`emulator: error during shutdown: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  process.stderr.write(`emulator: serving ${server.url} (redirect from ${server.httpUrl}); state ${flags.state ?? 'in memory'}\n`);
  if (flags.printEnv === true) {
    // The accounts file was read and checked by startEmulator; its first account is the one to use.
    // Its password is the one the emulator serves: with --state, startEmulator refuses to start
    // when the state holds the account with another one.
    const account = (flags.accounts === undefined ? DEFAULT_ACCOUNTS : loadAccountsFile(flags.accounts))[0]!;
    process.stdout.write(
      exportLines({
        PROXYACCOUNT_BASE_URL: server.url,
        PROXYACCOUNT_USERNAME: account.username,
        PROXYACCOUNT_PASSWORD: account.password,
        PROXYACCOUNT_CA_CERT_FILE: server.caFile,
        PROXYACCOUNT_EMULATOR_ADMIN_TOKEN: server.adminToken,
        // The process to stop: `npx` runs this one under a shell that does not pass a signal on.
        PROXYACCOUNT_EMULATOR_PID: String(process.pid),
        // The proxies are on free ports by default: a shell has no other way to find them.
        ...(flags.proxies
          ? {
              PROXYACCOUNT_EMULATOR_PROXIES: JSON.stringify(server.proxies),
              PROXYACCOUNT_EMULATOR_COUNTRY_HEADER: server.countryHeader,
              PROXYACCOUNT_EMULATOR_EXIT_IP_HEADER: server.exitIpHeader,
            }
          : {}),
      }),
    );
    return;
  }
  const ready = {
    url: server.url,
    httpUrl: server.httpUrl,
    caFile: server.caFile,
    adminToken: server.adminToken,
    pid: process.pid,
    proxies: server.proxies,
    countryHeader: server.countryHeader,
    exitIpHeader: server.exitIpHeader,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

/**
 * POSIX shell `export` lines, each value single-quoted (a `'` inside becomes `'\''`), so that no
 * character of a value is interpreted by `eval` or `.`. Ends with a marker line that scripts wait for.
 */
export function exportLines(vars: Readonly<Record<string, string>>): string {
  const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
  const lines = Object.entries(vars).map(([name, value]) => `export ${name}=${quote(value)}`);
  return `${lines.join('\n')}\n# proxyaccount emulator ready\n`;
}
