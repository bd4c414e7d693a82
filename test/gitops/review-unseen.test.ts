// What the plan does not show is read the worst way, never taken for no change: a list whose
// entries the plan marks sensitive (one sensitive label is enough: Terraform then marks the whole
// list), and an `active` flag known only after apply or marked sensitive. The plans are written in
// the shape of `terraform show -json` (Terraform 1.11), as the real plans of the review that found
// these: `after_sensitive: { entries: true }` with the entries in clear, `removed_entries` not
// sensitive; an unknown value absent from `after` and true in `after_unknown`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { failsOn, reviewPlan } from '../../src/gitops/review';
import { reviewJson, reviewMarkdown } from '../../src/gitops/review-render';
import { change, review } from './plan-changes';

/** The three authoritative lists: their entries attribute, an entry that stays hidden, and one the account holds. */
const LISTS = [
  {
    type: 'proxyaccount_authorized_ips',
    attr: 'entries',
    noun: 'IP',
    owner: null,
    hidden: { ip: '0.0.0.0', label: 'vendor-secret-label' },
    kept: { ip: '203.0.113.7', label: 'office' },
    shown: '203.0.113.7 (office)',
    opensParent: true,
  },
  {
    type: 'proxyaccount_authorized_hostnames',
    attr: 'domains',
    noun: 'hostname',
    owner: 'alice',
    hidden: 'secret-host.example.com',
    kept: 'ci.example.com',
    shown: 'ci.example.com',
    opensParent: false,
  },
  {
    type: 'proxyaccount_authorized_proxies',
    attr: 'proxies',
    noun: 'proxy',
    owner: null,
    hidden: 'secret-proxy.example.com:8080',
    kept: 'proxy.example.com:3128',
    shown: 'proxy.example.com:3128',
    opensParent: false,
  },
] as const;

describe.each(LISTS)('a $type list whose entries the plan marks sensitive', (list) => {
  const phrase = list.owner === null ? 'the parent account' : `sub-account '${list.owner}'`;
  const who = { username: list.owner };
  const secretText = typeof list.hidden === 'string' ? list.hidden : list.hidden.label;
  const worst = list.opensParent ? ['list_removes_entries', 'parent_access_opened'] : ['list_removes_entries'];

  it('on update: read the worst way (any entry may go; the parent may be opened), never "changed" with nothing to see', () => {
    const r = review(
      change(
        list.type,
        'l',
        ['update'],
        { id: list.owner ?? '_self', ...who, [list.attr]: [list.kept], removed_entries: [] },
        { id: list.owner ?? '_self', ...who, [list.attr]: [list.hidden, list.kept], removed_entries: [] },
        { before_sensitive: { [list.attr]: [{}], removed_entries: [] }, after_sensitive: { [list.attr]: true, removed_entries: [] }, after_unknown: {} },
      ),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(worst);
    expect(r.attention[0]!.message).toBe(
      `the list of ${phrase} has entries the plan marks sensitive, which this review does not show: applying it may remove any ${list.noun} the account has`,
    );
    expect(r.accounts[0]!.changes[0]!.description).toBe(`${list.noun} list changed (its entries are marked sensitive: not shown)`);
    expect(failsOn(r, 'attention')).toBe(true);
    for (const out of [reviewJson(r), reviewMarkdown(r)]) expect(out).not.toContain(secretText);
  });

  it('on create: what the provider plans to remove is named (it is not sensitive), and the worst reading still holds', () => {
    const r = review(
      change(
        list.type,
        'l',
        ['create'],
        null,
        { id: list.owner ?? '_self', ...who, [list.attr]: [list.hidden], removed_entries: [list.shown] },
        { before_sensitive: false, after_sensitive: { [list.attr]: true, removed_entries: [false] }, after_unknown: {} },
      ),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(['list_removes_entries', ...worst]);
    expect(r.attention[0]!.message).toBe(`the list of ${phrase} removes 1 ${list.noun} (${list.shown})`);
    expect(r.accounts[0]!.changes[0]!.description).toBe(
      `${list.noun} list created (its entries are marked sensitive: not shown), −1 ${list.noun} (${list.shown})`,
    );
    for (const out of [reviewJson(r), reviewMarkdown(r)]) expect(out).not.toContain(secretText);
  });

  it('only marked sensitive, its entries unchanged (Terraform: "The value is unchanged"): no change to read, as for `active`', () => {
    // An update whose entries do not change keeps the removed_entries of the list's last change.
    const values = { id: list.owner ?? '_self', ...who, [list.attr]: [list.hidden, list.kept], removed_entries: ['192.0.2.77 (old)'] };
    const marks = { before_sensitive: { [list.attr]: [{}, {}], removed_entries: [false] }, after_sensitive: { [list.attr]: true, removed_entries: [false] } };
    const r = review(change(list.type, 'l', ['update'], values, values, { ...marks, after_unknown: {} }));
    expect(r.attention).toEqual([]);
    expect(r.accounts[0]!.changes[0]!.description).toBe(
      `${list.noun} list changed (only whether its entries are marked sensitive: they are unchanged, and not shown)`,
    );
    for (const out of [reviewJson(r), reviewMarkdown(r)]) expect(out).not.toContain(secretText);
    // Marked and changed, it is read the worst way again.
    const changed = review(change(list.type, 'l', ['update'], values, { ...values, [list.attr]: [list.hidden] }, { ...marks, after_unknown: {} }));
    expect(changed.attention.map((a) => a.kind)).toEqual(['list_removes_entries', ...worst]);
  });

  it('destroyed: it removes every entry, whatever the plan hides', () => {
    const r = review(
      change(list.type, 'l', ['delete'], { id: list.owner ?? '_self', ...who, [list.attr]: [list.hidden], removed_entries: [] }, null, {
        before_sensitive: { [list.attr]: true },
      }),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(['list_removes_entries']);
    expect(r.attention[0]!.message).toMatch(/is destroyed: it removes every .* it holds, which the plan marks sensitive/);
  });
});

it('a real plan that only marks list entries sensitive raises nothing (terraform 1.11.4: "The value is unchanged")', () => {
  // `entries = [{ ip = "198.51.100.30", label = sensitive("ci runner") }]` for sub-account ci-runners, and
  // `domains = [sensitive("office.example.com"), "vpn-1.example.com"]` for the parent, both as they were.
  const json = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'marked-sensitive.plan.json'), 'utf8')) as unknown;
  const r = reviewPlan(parsePlanJson(json));
  expect(r.summary).toEqual(expect.objectContaining({ add: 0, change: 2, destroy: 0 }));
  expect(r.attention).toEqual([]);
  expect(failsOn(r, 'attention')).toBe(false);
  expect(r.accounts.flatMap((a) => a.changes.map((c) => c.description))).toEqual([
    'hostname list changed (only whether its entries are marked sensitive: they are unchanged, and not shown)',
    'IP list changed (only whether its entries are marked sensitive: they are unchanged, and not shown)',
  ]);
  for (const out of [reviewJson(r), reviewMarkdown(r)]) expect(out).not.toMatch(/ci runner|office\.example\.com/);
});

describe('an `active` flag the plan does not show', () => {
  const sub = (active?: boolean) => ({ id: 'carol', username: 'carol', monthly_limit: 0, total_limit: 0, ...(active === undefined ? {} : { active }) });
  const token = (active?: boolean) => ({ id: '2', token_id: 2, label: 't', username: null, expires_at: null, ...(active === undefined ? {} : { active }) });

  it('known only after apply on an active sub-account: not "activated", and it may be deactivated', () => {
    const r = review(change('proxyaccount_sub_account', 'carol', ['update'], sub(true), sub(), { after_unknown: { active: true } }));
    expect(r.accounts[0]!.changes[0]!.description).toBe('active known only after apply');
    expect(r.attention).toEqual([
      expect.objectContaining({
        kind: 'deactivation',
        message: "sub-account 'carol' may be deactivated (its active flag is known only after apply): its proxy requests get 402",
      }),
    ]);
  });

  it('known only after apply on a deactivated token: not "changed", and it may be activated (access gained)', () => {
    const r = review(change('proxyaccount_bearer_token', 't', ['update'], token(false), token(), { after_unknown: { active: true } }));
    expect(r.accounts[0]!.changes[0]!.description).toBe("token 't': active known only after apply");
    expect(r.attention).toEqual([
      expect.objectContaining({
        kind: 'activation',
        message: "token 't' of the parent account may be activated (its active flag is known only after apply): clients holding it can use the proxies again",
      }),
    ]);
  });

  it('marked sensitive (`active = !var.on`): "active hidden", and both directions need attention', () => {
    const marks = { before_sensitive: {}, after_sensitive: { active: true } };
    const r = review(
      change('proxyaccount_sub_account', 'carol', ['update'], sub(false), sub(true), marks),
      change('proxyaccount_bearer_token', 't', ['update'], token(false), token(true), marks),
    );
    expect(r.accounts.flatMap((a) => a.changes.map((c) => c.description))).toEqual([
      "token 't': active hidden (marked sensitive)",
      'active hidden (marked sensitive)',
    ]);
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['deactivation', 'proxyaccount_sub_account.carol'],
      ['activation', 'proxyaccount_sub_account.carol'],
      ['deactivation', 'proxyaccount_bearer_token.t'],
      ['activation', 'proxyaccount_bearer_token.t'],
    ]);
    expect(r.attention[1]!.message).toMatch(/may be activated \(its active flag is marked sensitive, and changes\)/);
  });

  it('marked sensitive and unchanged is no change of `active`', () => {
    const r = review(
      change(
        'proxyaccount_sub_account',
        'carol',
        ['update'],
        { ...sub(true), monthly_limit: 10 },
        { ...sub(true), monthly_limit: 20 },
        { after_sensitive: { active: true } },
      ),
    );
    expect(r.accounts[0]!.changes[0]!.description).toBe('monthly limit 10 GB → 20 GB');
    expect(r.attention).toEqual([]);
  });

  it('a sub-account created with `active` unknown says so instead of passing for active', () => {
    const r = review(change('proxyaccount_sub_account', 'carol', ['create'], null, sub(), { after_unknown: { id: true, active: true } }));
    expect(r.accounts[0]!.changes[0]!.description).toBe('sub-account created (monthly limit unlimited, total limit unlimited, active known only after apply)');
  });

  it('a known activation gains access as a deactivation loses it: both need attention', () => {
    const r = review(
      change('proxyaccount_sub_account', 'carol', ['update'], sub(false), sub(true)),
      change('proxyaccount_bearer_token', 't', ['update'], token(true), token(false)),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      "sub-account 'carol' is activated: its credentials work again",
      "token 't' of the parent account is deactivated: clients using it stop working",
    ]);
    expect(r.accounts.flatMap((a) => a.changes.map((c) => c.description))).toEqual(["token 't' deactivated", 'activated']);
  });
});
