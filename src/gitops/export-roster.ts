// `proxyaccount export --format roster`: the live account as a roster file for the AccountRoster
// construct. The import blocks it needs are in the file itself: `importExisting` on the parent and
// on each member (the construct imports the account and every listed entry, whose import IDs it
// derives), and `importId` on each token (token IDs cannot be derived). So a CDKTF app that reads
// the file plans only imports. Passwords and raw token values cannot be read back: comments say
// how to set them.
import { Document, isMap, isSeq } from 'yaml';
import type { BearerToken, LabeledIp } from '../sdk';
import type { ListStyle, LiveAccount } from './export';

/** The roster file, and the objects a roster cannot hold (told to the user, never dropped silently). */
export interface RosterExport {
  readonly 'roster.yaml': string;
  /** One line per live object left out of the roster, saying why. */
  readonly skipped: readonly string[];
}

interface RosterToken {
  label: string;
  expiresAt?: string;
  active?: boolean;
  importId: number;
}

/**
 * Roster tokens are named by their label, unique per account: a live token with no label, or with
 * a label another token of the account already has, cannot be written. Those are reported.
 */
function rosterTokens(owner: string, tokens: readonly BearerToken[], skipped: string[]): RosterToken[] {
  const out: RosterToken[] = [];
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.label === '') {
      skipped.push(`token ${t.id} of ${owner}: it has no label, and a roster names tokens by label`);
      continue;
    }
    if (seen.has(t.label)) {
      skipped.push(`token ${t.id} of ${owner}: its label '${t.label}' is already used by another token of the account`);
      continue;
    }
    seen.add(t.label);
    const token: RosterToken = { label: t.label, importId: t.id };
    if (t.expiresAt !== null) token.expiresAt = t.expiresAt.toISOString().slice(0, 10);
    if (!t.isActive) token.active = false;
    out.push(token);
  }
  return out;
}

function rosterIps(ips: readonly LabeledIp[]): Array<{ ip: string; label?: string }> {
  return ips.map((e) => (e.label === '' ? { ip: e.ip } : { ip: e.ip, label: e.label }));
}

/** Drops empty lists, so the file holds only what the account has. */
function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => !(Array.isArray(v) && v.length === 0) && v !== undefined)) as T;
}

const HEADER = [
  ' Written by `proxyaccount export --format roster` from the live account, for the AccountRoster',
  ' construct (constructs/README.md, "Roster file").',
  '',
  ' Adoption: `importExisting: true` makes the next apply import the account and every IP, hostname',
  ' and proxy listed with it, and each token is imported by its `importId`, so the first plan shows',
  ' only imports. They may stay after that apply (an import of an object already in state does',
  ' nothing); remove `importExisting` before adding entries that do not exist yet.',
  '',
  ' Secrets are not in here and cannot be read back: a sub-account keeps its current password unless',
  " AccountRoster's `passwords` (from a sensitive variable) sets one, and an imported token's value",
  ' stays unknown to Terraform (its `token` attribute is null).',
].join('\n');

/** The live account as a roster file (YAML) whose first plan adopts everything it lists. */
export function toRoster(live: LiveAccount, lists: ListStyle): RosterExport {
  const skipped: string[] = [];
  const parent = live.accounts.find((a) => a.username === null);
  const members = live.accounts.filter((a) => a.username !== null && a.details !== undefined);
  const data = {
    accessList: lists === 'authoritative' ? 'authoritative' : 'additive',
    parent: compact({
      importExisting: true,
      ips: rosterIps(parent?.ips ?? []),
      hostnames: [...(parent?.hostnames ?? [])],
      proxies: [...live.proxies],
      tokens: rosterTokens('the parent account', parent?.tokens ?? [], skipped),
    }),
    teams: [
      {
        name: 'exported',
        members: members.map((a) => {
          const d = a.details!;
          return compact({
            username: d.username,
            firstName: d.firstName,
            lastName: d.lastName,
            email: d.email,
            monthlyLimitGb: d.monthlyBandwidthLimit,
            totalLimitGb: d.totalBandwidthLimit,
            active: d.active ? undefined : false,
            importExisting: true,
            ips: rosterIps(a.ips),
            hostnames: [...a.hostnames],
            tokens: rosterTokens(d.username, a.tokens, skipped),
          });
        }),
      },
    ],
  };
  const doc = new Document(data);
  doc.commentBefore =
    skipped.length === 0
      ? HEADER
      : `${HEADER}\n\n Not adopted (a roster cannot hold them; manage them in HCL or fix them in the account):\n${skipped.map((s) => ` - ${s}`).join('\n')}`;
  const teams = doc.get('teams');
  const team = isSeq(teams) ? teams.items[0] : undefined;
  const memberNodes = isMap(team) ? team.get('members') : undefined;
  if (isSeq(memberNodes)) {
    for (const node of memberNodes.items) {
      if (isMap(node))
        node.commentBefore = " password: not readable from the API; set it with AccountRoster's `passwords` (never in this file), else the current one is kept";
    }
  }
  return { 'roster.yaml': doc.toString({ lineWidth: 0 }), skipped };
}
