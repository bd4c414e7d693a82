// Shared set-up of the SDK's integration tests: a real emulator process (see
// test/helpers/emulator.ts; needs `npx tsc -p tsconfig.json` first) with three parent accounts,
// and clients that are closed after each test.
import { ProxyAccountClient, type ClientAuth, type ProxyAccountClientOptions } from '../../src/sdk';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';

export const ACME = { username: 'acme', password: 'acme-Password-1' };
export const OTHER = { username: 'other', password: 'other-Password-1' };
export const TRIAL = { username: 'trialco', password: 'trial-Password-1' };

/** acme: plan20 with 3 sub-accounts; other: plan10; trialco: trial. */
export const ACCOUNTS = {
  accounts: [
    { ...ACME, plan: 'plan20', subAccountLimit: 3 },
    { ...OTHER, plan: 'plan10' },
    { ...TRIAL, plan: 'trial' },
  ],
};

/** A date `days` from now (UTC) as YYYY-MM-DD. */
export function dateInDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** One emulator per test file, reset before every test; clients closed after every test. */
export function useEmulator(opts: { stateFile?: string } = {}): {
  emu: () => RunningEmulator;
  client: (auth: ClientAuth, extra?: Partial<ProxyAccountClientOptions>) => ProxyAccountClient;
} {
  let emu: RunningEmulator | undefined;
  const clients: ProxyAccountClient[] = [];

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ACCOUNTS, stateFile: opts.stateFile });
  });
  afterAll(async () => {
    await emu?.stop();
  });
  beforeEach(async () => {
    await emu?.control.reset();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  const current = (): RunningEmulator => {
    if (emu === undefined) throw new Error('emulator not started');
    return emu;
  };
  return {
    emu: current,
    client: (auth, extra = {}) => {
      const c = new ProxyAccountClient({
        baseUrl: current().url,
        caCert: current().caPem,
        auth,
        retryBaseDelayMs: 1,
        // The user's real memory of rejected credentials stays untouched; tests of it pass a file.
        authFailureCache: false,
        ...extra,
      });
      clients.push(c);
      return c;
    },
  };
}
