// The emulator side of an end-to-end test file: one emulator process per file with one parent
// account, an SDK client on it for out-of-band changes, the PROXYACCOUNT_* settings that point
// Terraform at it, and snapshots of the whole account to prove a destroy left nothing behind.
import { request } from 'undici';
import { ProxyAccountClient } from '../../../src/sdk';
import { startEmulator, type RunningEmulator } from '../../helpers/emulator';
import { Workspace, type WorkspaceOptions } from './terraform';

/** The parent account every end-to-end test works in. */
export const PARENT = { username: 'e2e-parent', password: 'e2e-parent-password' } as const;

/** A running emulator with the handles an end-to-end test needs. */
export interface E2eAccount {
  /** The emulator process. */
  readonly em: RunningEmulator;
  /** SDK client authenticated as the parent account (for changes made outside Terraform). */
  readonly client: ProxyAccountClient;
  /** PROXYACCOUNT_* settings that configure the provider for the parent account. */
  readonly env: NodeJS.ProcessEnv;
  /** A new workspace configured for the parent account, already `terraform init`ed (main.tf holds required_providers). */
  workspace(opts?: WorkspaceOptions): Promise<Workspace>;
  /** The parent account as the emulator holds it (lists, sub-accounts, tokens), without clock fields. */
  snapshot(): Promise<unknown>;
  /** Empties the emulator (accounts file reloaded, ids, bans and faults cleared). */
  reset(): Promise<void>;
  /** Stops the emulator and closes the client. */
  stop(): Promise<void>;
}

/** Options of {@link startAccount}. */
export interface StartAccountOptions {
  /** The parent's plan. @default 'plan50' */
  readonly plan?: string;
  /** Overrides the plan's sub-account limit. @default the plan's */
  readonly subAccountLimit?: number;
}

/** Starts an emulator with the {@link PARENT} account; call `stop()` in afterAll. */
export async function startAccount(opts: StartAccountOptions = {}): Promise<E2eAccount> {
  const parent: Record<string, unknown> = { ...PARENT, plan: opts.plan ?? 'plan50' };
  if (opts.subAccountLimit !== undefined) parent.subAccountLimit = opts.subAccountLimit;
  const em = await startEmulator({ accounts: { accounts: [parent] } });
  const client = new ProxyAccountClient({ baseUrl: em.url, auth: { ...PARENT }, dispatcher: em.dispatcher, maxRetries: 0 });
  const env: NodeJS.ProcessEnv = {
    PROXYACCOUNT_BASE_URL: em.url,
    PROXYACCOUNT_USERNAME: PARENT.username,
    PROXYACCOUNT_PASSWORD: PARENT.password,
    PROXYACCOUNT_CA_CERT_FILE: em.caFile,
  };
  const workspaces = new Set<Workspace>();
  return {
    em,
    client,
    env,
    async workspace(wsOpts: WorkspaceOptions = {}) {
      const ws = new Workspace({ ...wsOpts, env: { ...env, ...wsOpts.env } });
      workspaces.add(ws);
      // init selects providers from the configuration: it needs required_providers to exist.
      ws.config();
      await ws.init();
      return ws;
    },
    snapshot: () => accountSnapshot(em),
    reset: () => em.control.reset(),
    async stop() {
      for (const ws of workspaces) ws.dispose();
      await em.stop();
    },
  };
}

/** GET /_emulator/state, reduced to the parent account (no clock, bans or faults). */
export async function accountSnapshot(em: RunningEmulator): Promise<unknown> {
  const res = await request(`${em.url}/_emulator/state`, {
    dispatcher: em.dispatcher,
    headers: { authorization: `Bearer ${em.adminToken}` },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET /_emulator/state failed with ${res.statusCode}: ${text}`);
  const state = JSON.parse(text) as { accounts: Array<{ username: string }> };
  const account = state.accounts.find((a) => a.username === PARENT.username);
  if (account === undefined) throw new Error(`the emulator has no account ${PARENT.username}`);
  return account;
}

/**
 * Collects the emulator's request log (`METHOD PATH STATUS ms`) while `fn` runs. The log is
 * written after each answer, so a request made afterwards is awaited until its own line shows:
 * from then on every earlier line is in.
 */
export async function requestLogOf<T>(account: E2eAccount, fn: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const stopListening = account.em.onStderrLine((line) => lines.push(line));
  try {
    const result = await fn();
    await waitForLogLine(account, lines);
    return { result, lines: lines.filter((l) => /^[A-Z]+ \/api\//.test(l)) };
  } finally {
    stopListening();
  }
}

async function waitForLogLine(account: E2eAccount, lines: string[]): Promise<void> {
  // A path no route has: answered 404 before authentication, so never an auth failure.
  const marker = '/api/e2e-log-marker/';
  const seen = lines.length;
  const res = await request(`${account.em.url}${marker}`, { dispatcher: account.em.dispatcher });
  await res.body.dump();
  for (let i = 0; i < 200; i++) {
    const idx = lines.findIndex((l, n) => n >= seen && l.startsWith(`GET ${marker} `));
    if (idx !== -1) {
      lines.splice(idx, 1);
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the emulator did not log the marker request within 2 s');
}

/**
 * The account of one test file: started before its tests and stopped after them (jest's
 * `beforeAll` / `afterAll`), and emptied before each test unless `resetEach` is false. The object
 * it returns reads the started account, so tests use it as they would the account itself.
 */
export function useAccount(opts: StartAccountOptions & { readonly resetEach?: boolean } = {}): E2eAccount {
  let started: E2eAccount | undefined;
  const get = (): E2eAccount => {
    if (started === undefined) throw new Error('the test account is started in beforeAll: use it inside a test or a hook');
    return started;
  };
  beforeAll(async () => {
    started = await startAccount(opts);
  });
  afterAll(async () => {
    await started?.stop();
  });
  if (opts.resetEach !== false) {
    beforeEach(async () => {
      await get().reset();
    });
  }
  return {
    get em() {
      return get().em;
    },
    get client() {
      return get().client;
    },
    get env() {
      return get().env;
    },
    workspace: (wsOpts) => get().workspace(wsOpts),
    snapshot: () => get().snapshot(),
    reset: () => get().reset(),
    stop: () => get().stop(),
  };
}
