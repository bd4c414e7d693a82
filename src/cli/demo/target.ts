// The account the demo works on: the embedded emulator (started in this process, so it cannot
// outlive the demo), or a real account named by the PROXYACCOUNT_* environment variables.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { AccountStore, clientOptions, type ConnectionSettings, connectionFromEnv } from '../../account';
import { ProxyAccountClient } from '../../sdk';

/** Where the demo's Terraform and account-store calls go. */
export interface DemoTarget {
  /** `emulator`: throwaway, every step runs. `account`: real, destructive steps need consent. */
  readonly kind: 'emulator' | 'account';
  /** One line for the progress output, without secrets. */
  readonly description: string;
  /** The PROXYACCOUNT_* settings terraform's provider gets. */
  readonly providerEnv: Readonly<Record<string, string>>;
  /**
   * An account store on the same account, for the read-back, the out-of-band change and the drift
   * scan: each call starts with an empty cache, bound to `signal` (Ctrl-C).
   */
  openStore(signal: AbortSignal): AccountStore;
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
    openStore: (signal) => new AccountStore(client, { signal }),
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
 * The account named by PROXYACCOUNT_BASE_URL and the other PROXYACCOUNT_* variables, read by the
 * provider's own rules (src/account/connection-settings.ts) and passed to it unchanged.
 */
export function accountTargetFromEnv(env: NodeJS.ProcessEnv): DemoTarget {
  let connection: ConnectionSettings;
  try {
    connection = connectionFromEnv(env);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n(or unset PROXYACCOUNT_BASE_URL to run on the embedded emulator)`);
  }
  const client = new ProxyAccountClient(clientOptions(connection));
  const providerEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('PROXYACCOUNT_') && value !== undefined) providerEnv[key] = value;
  }
  const basicAuth = 'username' in connection.auth;
  const who = 'username' in connection.auth ? `parent account ${connection.auth.username}` : 'a bearer token';
  return {
    kind: 'account',
    description: `the account at ${displayUrl(connection.baseUrl)} (${who}, from PROXYACCOUNT_*)`,
    providerEnv,
    openStore: (signal) => new AccountStore(client, { signal }),
    basicAuth,
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
