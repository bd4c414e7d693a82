// `proxyaccount tokens prune`: deletes leftover ephemeral tokens (a provider killed before it could
// close them), by label prefix and age: the pruneTokens use case (src/gitops/use-cases.ts), rendered.
import type { Command } from 'commander';

interface PruneFlags {
  prefix?: string;
  olderThan: string;
  username: string[];
  dryRun?: boolean;
}

/** "90s", "15m", "2h", "1d" (or plain seconds) in milliseconds; throws on anything else. */
export function parseDuration(text: string): number {
  const m = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  if (m === null) throw new Error(`--older-than must be a duration such as 30m, 2h or 1d, got ${JSON.stringify(text)}`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** Adds the `tokens` command (with `prune`) to the program. */
export function register(program: Command): void {
  const tokens = program.command('tokens').description('Bearer-token housekeeping');
  tokens
    .command('prune')
    .description('Delete leftover ephemeral tokens (label prefix, older than an age) of the parent and named sub-accounts')
    .option('--prefix <prefix>', "label prefix of the tokens to delete (default: the ephemeral resource's, tf-ephemeral:)")
    .option('--older-than <duration>', 'only tokens created longer ago than this (30m, 2h, 1d)', '1h')
    .option('--username <name>', 'also prune this sub-account (repeatable; the API cannot list sub-accounts)', (v: string, prev: string[]) => [...prev, v], [])
    .option('--dry-run', 'list what would be deleted, delete nothing')
    .action(async (flags: PruneFlags) => {
      const { pruneTokens, PruneStoppedError } = await import('../gitops/use-cases');
      const dryRun = flags.dryRun === true;
      const stop = stopOnSignal();
      try {
        const pruned = await pruneTokens({
          ...(flags.prefix !== undefined ? { prefix: flags.prefix } : {}),
          olderThanMs: parseDuration(flags.olderThan),
          usernames: flags.username,
          dryRun,
          signal: stop.signal,
          onToken: (t) => {
            const who = t.username === null ? 'parent account' : `sub-account '${t.username}'`;
            process.stdout.write(`${dryRun ? 'would delete' : 'deleted'} token ${t.id} '${t.label}' of the ${who} (created ${t.createdAt.toISOString()})\n`);
          },
        });
        process.stderr.write(`proxyaccount: ${pruned.length} token(s) ${dryRun ? 'would be ' : ''}deleted\n`);
      } catch (err) {
        if (!(err instanceof PruneStoppedError)) throw err;
        process.stderr.write(`proxyaccount: ${stop.received ?? 'stop'}: ${err.message}\n`);
        process.exitCode = 130;
      } finally {
        stop.dispose();
      }
    });
}

/** Signals closer together than this are one interrupt (`npx` forwards the terminal's Ctrl-C, which reached us too). */
const SAME_INTERRUPT_MS = 1000;

/**
 * Ctrl-C and SIGTERM during a prune: the first stops it (a delete already sent finishes and is
 * reported, no new one starts); a second exits at once.
 */
function stopOnSignal(): { readonly signal: AbortSignal; readonly received: NodeJS.Signals | undefined; dispose(): void } {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  let at = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received !== undefined) {
      if (Date.now() - at >= SAME_INTERRUPT_MS) process.exit(130);
      return;
    }
    received = signal;
    at = Date.now();
    process.stderr.write(`proxyaccount: ${signal}: stopping; a delete already sent finishes first (interrupt again to exit at once)\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
