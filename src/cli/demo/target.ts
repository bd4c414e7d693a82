// The account the demo works on: the embedded emulator (started in this process, so it cannot
// outlive the demo), or a real account named by the PROXYACCOUNT_* environment variables.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ProxyAccountClient } from '../../sdk';

/** Where the demo's Terraform and SDK calls go. */
export interface DemoTarget {
  /** `emulator`: throwaway, every step runs. `account`: real, destructive steps need consent. */
  readonly kind: 'emulator' | 'account';
  /** One line for the progress output, without secrets. */
  readonly description: string;
  /** The PROXYACCOUNT_* settings terraform's provider gets. */
  readonly providerEnv: Readonly<Record<string, string>>;
  /** SDK client on the same account, for the read-back and the out-of-band change. */
  readonly client: ProxyAccountClient;
  /** Whether the client authenticates with username and password (tokens can be listed). */
  readonly basicAuth: boolean;
  /** The last lines of the emulator's request log, for a failure message. @default none */
  logTail?(): string[];
  /** The embedded emulator's proxy servers and usage setter (emulator targets only). */
  readonly proxies?: EmulatedProxies;
  /** Closes the client and, for the emulator, stops it and removes its certificate file. */
  close(): Promise<void>;
}

/** What the demo needs of the embedded emulator's proxy servers. */
export interface EmulatedProxies {
  /** Catalogue host → loopback `host:port` of its proxy. */
  readonly addresses: Readonly<Record<string, string>>;
  /** The response header reporting the exit IP. */
  readonly exitIpHeader: string;
  /** Records usage (GB) on an account through the control API, as traffic would. */
  recordUsage(username: string, gb: number): Promise<void>;
}

/** The parent account the embedded emulator starts with. plan100 leaves room for larger rosters. */
const EMULATOR_ACCOUNT = { username: 'demo', plan: 'plan100' } as const;
const LOG_TAIL_LINES = 15;

/**
 * Starts the emulator in this process on ephemeral loopback ports, with one parent account whose
 * password is random and never printed. Its request log goes to `emulator.log` in `workDir`.
 */
export async function startEmulatorTarget(workDir: string): Promise<DemoTarget> {
  const password = randomBytes(18).toString('base64url');
  const accountsFile = path.join(workDir, 'emulator-accounts.json');
  writeFileSync(accountsFile, JSON.stringify({ accounts: [{ ...EMULATOR_ACCOUNT, password }] }), { mode: 0o600 });
  const logFile = path.join(workDir, 'emulator.log');
  const recent: string[] = [];
  const log = (line: string): void => {
    recent.push(line);
    if (recent.length > LOG_TAIL_LINES) recent.shift();
    try {
      appendFileSync(logFile, `${line}\n`);
    } catch {
      // The work dir is being removed at shutdown: the log no longer matters.
    }
  };
  // Loaded only here: SQLite is not needed against a real account.
  const { startEmulator } = await import('../../emulator');
  const server = await startEmulator({
    host: '127.0.0.1',
    port: 0,
    httpPort: 0,
    accountsPath: accountsFile,
    adminToken: randomBytes(24).toString('base64url'),
    log,
  });
  let client: ProxyAccountClient;
  try {
    client = new ProxyAccountClient({
      baseUrl: server.url,
      auth: { username: EMULATOR_ACCOUNT.username, password },
      caCert: readFileSync(server.caFile),
      maxRetries: 0,
    });
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    kind: 'emulator',
    description: `embedded emulator at ${server.url} (parent account ${EMULATOR_ACCOUNT.username} on ${EMULATOR_ACCOUNT.plan}, state in memory)`,
    providerEnv: {
      PROXYACCOUNT_BASE_URL: server.url,
      PROXYACCOUNT_USERNAME: EMULATOR_ACCOUNT.username,
      PROXYACCOUNT_PASSWORD: password,
      PROXYACCOUNT_CA_CERT_FILE: server.caFile,
    },
    client,
    basicAuth: true,
    logTail: () => [...recent],
    proxies: {
      addresses: server.proxies,
      exitIpHeader: server.exitIpHeader,
      recordUsage: async (username, gb) => {
        const { Agent, request } = await import('undici');
        const dispatcher = new Agent({ connect: { ca: readFileSync(server.caFile) } });
        try {
          const res = await request(`${server.url}/_emulator/usage`, {
            method: 'POST',
            headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ username, gb }),
            dispatcher,
          });
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`the emulator's usage setter answered ${res.statusCode}`);
        } finally {
          await dispatcher.close();
        }
      },
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Whether the environment names a real account (PROXYACCOUNT_BASE_URL is set). */
export function accountConfigured(env: NodeJS.ProcessEnv): boolean {
  return (env.PROXYACCOUNT_BASE_URL ?? '') !== '';
}

/**
 * The account named by PROXYACCOUNT_BASE_URL with PROXYACCOUNT_USERNAME and PROXYACCOUNT_PASSWORD
 * (or PROXYACCOUNT_TOKEN), PROXYACCOUNT_CA_CERT_FILE and PROXYACCOUNT_INSECURE: the variables the
 * provider reads, passed to it unchanged.
 */
export function accountTargetFromEnv(env: NodeJS.ProcessEnv): DemoTarget {
  const get = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const baseUrl = get('PROXYACCOUNT_BASE_URL');
  if (baseUrl === undefined) throw new Error('PROXYACCOUNT_BASE_URL is not set');
  const username = get('PROXYACCOUNT_USERNAME');
  const password = get('PROXYACCOUNT_PASSWORD');
  const token = get('PROXYACCOUNT_TOKEN');
  if (token === undefined && (username === undefined || password === undefined)) {
    throw new Error(
      'PROXYACCOUNT_BASE_URL is set but the credentials are not: set PROXYACCOUNT_USERNAME and PROXYACCOUNT_PASSWORD ' +
        '(or PROXYACCOUNT_TOKEN), or unset PROXYACCOUNT_BASE_URL to run on the embedded emulator',
    );
  }
  if (token !== undefined && (username !== undefined || password !== undefined)) {
    throw new Error('set either PROXYACCOUNT_TOKEN or PROXYACCOUNT_USERNAME and PROXYACCOUNT_PASSWORD, not both');
  }
  const caFile = get('PROXYACCOUNT_CA_CERT_FILE');
  let caCert: Buffer | undefined;
  if (caFile !== undefined) {
    try {
      caCert = readFileSync(caFile);
    } catch (err) {
      throw new Error(`PROXYACCOUNT_CA_CERT_FILE ${caFile}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  const insecure = /^(1|true)$/i.test(get('PROXYACCOUNT_INSECURE') ?? '');
  const client = new ProxyAccountClient({
    baseUrl,
    auth: token !== undefined ? { token } : { username: username ?? '', password: password ?? '' },
    ...(caCert !== undefined ? { caCert } : {}),
    ...(insecure ? { insecure } : {}),
  });
  const providerEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('PROXYACCOUNT_') && value !== undefined) providerEnv[key] = value;
  }
  const who = token !== undefined ? 'a bearer token' : `parent account ${username ?? ''}`;
  return {
    kind: 'account',
    description: `the account at ${displayUrl(baseUrl)} (${who}, from PROXYACCOUNT_*)`,
    providerEnv,
    client,
    basicAuth: token === undefined,
    close: () => client.close(),
  };
}

/** The base URL without anything that could be a secret (the SDK refuses userinfo anyway). */
function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(an invalid PROXYACCOUNT_BASE_URL)';
  }
}
