// `proxyaccount tokens prune`: deletes leftover ephemeral tokens (a provider killed before it could
// close them), by label prefix and age: the pruneTokens use case (src/gitops/use-cases.ts), rendered.
import type { Command } from 'commander';
import type { PrunedToken } from '../gitops/use-cases';

interface PruneFlags {
  prefix?: string;
  olderThan: string;
  username: string[];
  dryRun?: boolean;
}

/** "90s", "15m", "2h", "1d" (or plain seconds) in milliseconds; throws on anything else. */
export function parseDuration(text: string): number {
  const m = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  if (m === null) throw new Error(`--older-than must be a duration such as 30m, 2h, 1d or plain seconds, got ${JSON.stringify(text)}`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** How a token is named in the command's output. */
function tokenPhrase(t: PrunedToken): string {
  const who = t.username === null ? 'parent account' : `sub-account '${t.username}'`;
  return `token ${t.id} '${t.label}' of the ${who}`;
}

/** Adds the `tokens` command (with `prune`) to the program. */
export function register(program: Command): void {
  const tokens = program.command('tokens').description('Bearer-token housekeeping');
  tokens
    .command('prune')
    .description('Delete leftover ephemeral tokens (label prefix, older than an age) of the parent and named sub-accounts')
    .option('--prefix <prefix>', "label prefix of the tokens to delete (default: the ephemeral resource's, tf-ephemeral:)")
    .option('--older-than <duration>', 'only tokens created longer ago than this (90s, 30m, 2h, 1d, or plain seconds)', '1h')
    .option('--username <name>', 'also prune this sub-account (repeatable; the API cannot list sub-accounts)', (v: string, prev: string[]) => [...prev, v], [])
    .option('--dry-run', 'list what would be deleted, delete nothing')
    .action(async (flags: PruneFlags) => {
      const { pruneTokens, PruneStoppedError } = await import('../gitops/use-cases');
      const dryRun = flags.dryRun === true;
      // The deletes sent whose outcome is not known yet: a hard exit names them.
      const inFlight = new Set<PrunedToken>();
      const stop = stopOnSignal(() => [...inFlight]);
      try {
        const pruned = await pruneTokens({
          ...(flags.prefix !== undefined ? { prefix: flags.prefix } : {}),
          olderThanMs: parseDuration(flags.olderThan),
          usernames: flags.username,
          dryRun,
          signal: stop.signal,
          onDeleting: (t) => inFlight.add(t),
          onToken: (t) => {
            inFlight.delete(t);
            process.stdout.write(`${dryRun ? 'would delete' : 'deleted'} ${tokenPhrase(t)} (created ${t.createdAt.toISOString()})\n`);
          },
        });
        process.stderr.write(`proxyaccount: ${pruned.length} token(s) ${dryRun ? 'would be ' : ''}deleted\n`);
      } catch (err) {
        if (!(err instanceof PruneStoppedError)) throw err;
        process.stderr.write(`proxyaccount: ${stop.received ?? 'stop'}: ${err.message}\n`);
        process.exitCode = 130;
      } finally {
        // The run has ended: a delete it did not report failed, and its error says so.
        inFlight.clear();
        stop.dispose();
      }
    });
}

/** Signals closer together than this are one interrupt (`npx` forwards the terminal's Ctrl-C, which reached us too). */
export const SAME_INTERRUPT_MS = 1000;

/** What {@link stopOnSignal} listens on, reads and calls: the process's, unless a test gives its own. */
export interface SignalSeams {
  readonly on: (signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void) => void;
  readonly off: (signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void) => void;
  readonly now: () => number;
  readonly write: (text: string) => void;
  readonly exit: (code: number) => void;
}

const PROCESS_SEAMS: SignalSeams = {
  on: (signal, listener) => process.on(signal, listener),
  off: (signal, listener) => process.off(signal, listener),
  now: () => Date.now(),
  write: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
};

/**
 * Ctrl-C and SIGTERM during a prune: the first stops it (a delete already sent finishes and is
 * reported, no new one starts); a second, once the first's window has passed, exits at once, after
 * naming each delete `inFlight` returns: sent, and abandoned with its outcome unknown.
 */
export function stopOnSignal(
  inFlight: () => readonly PrunedToken[],
  seams: SignalSeams = PROCESS_SEAMS,
): { readonly signal: AbortSignal; readonly received: NodeJS.Signals | undefined; dispose(): void } {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  let at = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received !== undefined) {
      if (seams.now() - at >= SAME_INTERRUPT_MS) hardExit(signal, inFlight(), seams);
      return;
    }
    received = signal;
    at = seams.now();
    seams.write(`proxyaccount: ${signal}: stopping; a delete already sent finishes first (interrupt again, a second or more later, to exit at once)\n`);
    controller.abort();
  };
  seams.on('SIGINT', onSignal);
  seams.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose: () => {
      seams.off('SIGINT', onSignal);
      seams.off('SIGTERM', onSignal);
    },
  };
}

/** Exits 130 at once; first names each delete sent whose outcome nobody will learn, and how to check it. */
function hardExit(signal: NodeJS.Signals, sent: readonly PrunedToken[], seams: SignalSeams): void {
  const lines = sent.map(
    (t) =>
      `proxyaccount: the delete of ${tokenPhrase(t)} was sent and its outcome is unknown: ` +
      "check with `proxyaccount tokens prune --dry-run` and the same options (it lists the token if it still exists) or in the account's token list\n",
  );
  seams.write(`proxyaccount: ${signal} again: exiting at once${sent.length === 0 ? '; no delete was in flight' : ''}\n${lines.join('')}`);
  seams.exit(130);
}
