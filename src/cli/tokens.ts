// `proxyaccount tokens prune`: deletes leftover ephemeral tokens (a provider killed before it could
// close them), by label prefix and age, through the account store. Credentials: PROXYACCOUNT_*.
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
      const [{ storeFromEnv }, { EPHEMERAL_TOKEN_PREFIX }] = await Promise.all([import('../gitops/credentials'), import('../account')]);
      const prefix = flags.prefix ?? EPHEMERAL_TOKEN_PREFIX;
      if (prefix === '') throw new Error('--prefix must not be empty: it would delete every token');
      const cutoff = Date.now() - parseDuration(flags.olderThan);
      const store = storeFromEnv();
      let count = 0;
      try {
        for (const username of [null, ...flags.username]) {
          const list = store.account(username).tokens;
          for (const t of await list.list()) {
            if (!t.label.startsWith(prefix) || t.createdAt.getTime() > cutoff) continue;
            const who = username === null ? 'parent account' : `sub-account '${username}'`;
            if (flags.dryRun !== true) await list.delete(t.id);
            process.stdout.write(
              `${flags.dryRun === true ? 'would delete' : 'deleted'} token ${t.id} '${t.label}' of the ${who} (created ${t.createdAt.toISOString()})\n`,
            );
            count++;
          }
        }
      } finally {
        await store.close();
      }
      process.stderr.write(`proxyaccount: ${count} token(s) ${flags.dryRun === true ? 'would be ' : ''}deleted\n`);
    });
}
