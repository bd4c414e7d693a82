// Reads the roster's sub-accounts back through the SDK, independently of Terraform, and prints
// them as a short table: limits, activity, IP and hostname counts, tokens (never their values).
import { isProxyAccountError, type ProxyAccountClient, type SubAccount } from '../../sdk';

/** What the API says about one sub-account of the roster. */
export interface SubAccountReport {
  readonly username: string;
  /** False when the account does not exist (yet): a plan-only run on a real account. */
  readonly exists: boolean;
  readonly active?: boolean;
  readonly monthlyLimit?: number;
  readonly totalLimit?: number;
  readonly ips?: number;
  readonly hostnames?: number;
  /** Undefined when the client cannot list tokens (bearer authentication). */
  readonly tokens?: ReadonlyArray<{ readonly label: string; readonly active: boolean; readonly expiresAt: Date | null }>;
}

/** Reads each sub-account with its lists; a 404 means the account does not exist. */
export async function readBack(
  client: ProxyAccountClient,
  usernames: readonly string[],
  opts: { readonly listTokens: boolean; readonly signal?: AbortSignal },
): Promise<SubAccountReport[]> {
  const call = { signal: opts.signal };
  return Promise.all(
    usernames.map(async (username): Promise<SubAccountReport> => {
      let sub: SubAccount;
      try {
        sub = await client.subAccounts.get(username, call);
      } catch (err) {
        if (isProxyAccountError(err, 'ERR_NOT_FOUND')) return { username, exists: false };
        throw err;
      }
      const [ips, hostnames, tokens] = await Promise.all([
        client.ips.list({ username }, call),
        client.hostnames.list({ username }, call),
        opts.listTokens ? client.tokens.list({ username }, call) : Promise.resolve(undefined),
      ]);
      return {
        username,
        exists: true,
        active: sub.active,
        monthlyLimit: sub.monthlyBandwidthLimit,
        totalLimit: sub.totalBandwidthLimit,
        ips: ips.length,
        hostnames: hostnames.length,
        tokens: tokens?.map((t) => ({ label: t.label, active: t.isActive, expiresAt: t.expiresAt })),
      };
    }),
  );
}

/** The reports as aligned table rows, header first. */
export function formatReadBack(reports: readonly SubAccountReport[]): string[] {
  const rows = [['sub-account', 'status', 'monthly', 'total', 'IPs', 'hostnames', 'tokens']];
  for (const r of reports) {
    if (!r.exists) {
      rows.push([r.username, 'absent', '-', '-', '-', '-', '-']);
      continue;
    }
    rows.push([
      r.username,
      r.active ? 'active' : 'inactive',
      gb(r.monthlyLimit),
      gb(r.totalLimit),
      String(r.ips),
      String(r.hostnames),
      r.tokens === undefined ? '(not listed: needs username and password)' : describeTokens(r.tokens),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]) : cell))
      .join('  ')
      .trimEnd(),
  );
}

function gb(limit: number | undefined): string {
  return limit === undefined || limit === 0 ? 'unlimited' : `${limit} GB`;
}

function describeTokens(tokens: NonNullable<SubAccountReport['tokens']>): string {
  if (tokens.length === 0) return 'none';
  return tokens
    .map((t) => {
      const state = [t.active ? 'active' : 'inactive'];
      if (t.expiresAt !== null) state.push(`expires ${t.expiresAt.toISOString().slice(0, 10)}`);
      return `${t.label || '(no label)'} (${state.join(', ')})`;
    })
    .join(', ');
}
