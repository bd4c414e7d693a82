// The line a change gets under its account says what the plan does and why, as Terraform's plan
// says it: a replacement names its cause even when no attribute forces it (`action_reason`), a
// token replaced under another label names both, and a sub-account renamed is deleted under its
// old name and created under its new one. The plans are in the shape of `terraform show -json`
// (Terraform 1.11): `action_reason` beside `change`, token values in clear with their marks.
import { reviewMarkdown } from '../../src/gitops/review-render';
import { change, review } from './plan-changes';

const TOKEN_VALUE = 'pxa_Secret-Token-Value-0001';
const token = (label: string, id: number | null) => ({
  id: id === null ? null : `team-a/${id}`,
  token_id: id,
  label,
  username: 'team-a',
  expires_at: null,
  active: true,
  created_at: id === null ? null : '2026-11-27T23:12:48Z',
  token: id === null ? null : TOKEN_VALUE,
});
const REPLACED = {
  after_unknown: { id: true, token_id: true, created_at: true, token: true },
  before_sensitive: { token: true },
  after_sensitive: { token: true },
};

/** A token replacement with Terraform's `action_reason` (a sibling of `change`, not inside it). */
const replacedToken = (reason: string, extra: Record<string, unknown> = {}) => ({
  ...(change('proxyaccount_bearer_token', 'ci', ['delete', 'create'], token('ci', 1), token('ci', null), { ...REPLACED, ...extra }) as object),
  action_reason: reason,
});

const lines = (r: ReturnType<typeof review>) => r.accounts.flatMap((a) => a.changes.map((c) => `${a.account}: ${c.description}`));

describe('a replacement no attribute forces (finding: a token rotated for no visible reason)', () => {
  it('by replace_triggered_by: says so, in the JSON and the Markdown, never the token', () => {
    const r = review(replacedToken('replace_by_triggers'));
    expect(lines(r)).toEqual(["team-a: token 'ci' replaced, forced by a change of what its replace_triggered_by names"]);
    const md = reviewMarkdown(r);
    expect(md).toContain("token 'ci' replaced, forced by a change of what its replace\\_triggered\\_by names");
    expect(md + JSON.stringify(r)).not.toContain(TOKEN_VALUE);
  });

  it('by -replace, or a taint: says so', () => {
    expect(lines(review(replacedToken('replace_by_request')))).toEqual(["team-a: token 'ci' replaced, requested with -replace"]);
    expect(lines(review(replacedToken('replace_because_tainted')))).toEqual([
      "team-a: token 'ci' replaced, because it is tainted (an earlier apply did not finish it, or terraform taint marked it)",
    ]);
  });

  it('beside an attribute that forces it too: names both; an attribute alone is named as before', () => {
    expect(lines(review(replacedToken('replace_by_request', { replace_paths: [['label']] })))).toEqual([
      "team-a: token 'ci' replaced, requested with -replace, and forced by a change of label",
    ]);
    expect(lines(review(replacedToken('replace_because_cannot_update', { replace_paths: [['label']] })))).toEqual([
      "team-a: token 'ci' replaced, forced by a change of label",
    ]);
  });
});

describe('a token replaced under another label (finding: a count shift read as the new token replaced)', () => {
  it("names the token it deletes beside the new one, as an IP's old address is", () => {
    const r = review(
      change('proxyaccount_bearer_token', 't[1]', ['delete', 'create'], token('ci', 2), token('backup', null), { ...REPLACED, replace_paths: [['label']] }),
      change('proxyaccount_bearer_token', 't[2]', ['delete'], token('backup', 3), null, { before_sensitive: { token: true } }),
    );
    expect(lines(r)).toEqual(["team-a: token 'ci' → 'backup' replaced, forced by a change of label", "team-a: token 'backup' deleted"]);
    expect(JSON.stringify(r)).not.toContain(TOKEN_VALUE);
  });

  it('under the same label, or a label the plan does not show: named once', () => {
    expect(lines(review(change('proxyaccount_bearer_token', 'ci', ['delete', 'create'], token('ci', 1), token('ci', null), REPLACED)))).toEqual([
      "team-a: token 'ci' replaced",
    ]);
    const hidden = { ...REPLACED, before_sensitive: { token: true, label: true }, after_sensitive: { token: true, label: true } };
    expect(lines(review(change('proxyaccount_bearer_token', 'ci', ['delete', 'create'], token('ci', 1), token('backup', null), hidden)))).toEqual([
      'team-a: token (label marked sensitive) replaced',
    ]);
  });
});

describe('a sub-account renamed (finding: the old one not listed as deleted, the new one "deleted and created again")', () => {
  const sub = (username: string) => ({ id: username, username, active: true, monthly_limit: 10, total_limit: 0, password: null });
  const renamed = (extra: Record<string, unknown>, to: string | null = 'team-b') =>
    change(
      'proxyaccount_sub_account',
      'team',
      ['delete', 'create'],
      sub('team-a'),
      { ...sub('team-b'), username: to },
      {
        after_unknown: { id: true },
        before_sensitive: { password: true },
        after_sensitive: { password: true },
        ...extra,
      },
    );

  it('lists the old one deleted under its name, and the new one created, replacing it, under the new name', () => {
    const r = review({ ...(renamed({ replace_paths: [['username']] }) as object), action_reason: 'replace_because_cannot_update' });
    expect(lines(r)).toEqual([
      "team-a: sub-account deleted: replaced by sub-account 'team-b'",
      "team-b: sub-account created (monthly limit 10 GB, total limit unlimited), replacing sub-account 'team-a', forced by a change of username",
    ]);
    expect(r.accounts.flatMap((a) => a.changes.map((c) => c.action))).toEqual(['replace', 'replace']);
    expect(r.summary).toEqual({ add: 1, change: 0, destroy: 1, replace: 1, import: 0, forget: 0 });
    expect(r.attention.map((a) => a.kind)).toEqual(['sub_account_replaced']);
  });

  it('to a username known only after apply: the old one is still listed as deleted', () => {
    const r = review(renamed({ after_unknown: { id: true, username: true } }, null));
    expect(lines(r)).toEqual([
      '(account known after apply): sub-account replaced (deleted and created again)',
      'team-a: sub-account deleted: replaced by a sub-account whose username is known only after apply',
    ]);
  });

  it('under its own name, or a username the plan marks sensitive: one line, deleted and created again', () => {
    const same = change('proxyaccount_sub_account', 'team', ['delete', 'create'], sub('team-a'), sub('team-a'), { after_unknown: { id: true } });
    expect(lines(review(same))).toEqual(['team-a: sub-account replaced (deleted and created again)']);
    const hidden = renamed({ before_sensitive: { password: true, username: true }, after_sensitive: { password: true, username: true } });
    expect(lines(review(hidden))).toEqual(['(account not shown: sensitive): sub-account replaced (deleted and created again)']);
  });
});
