// What a review must never file quietly: objects a `removed` block forgets, a move to the parent
// account, an owner the plan hides or does not know yet, and lists whose removals the plan cannot
// show. The plans are written in the shape of `terraform show -json` (Terraform 1.11): `after`
// is null for a forget, unknown values are null in `after` and true in `after_unknown`, and
// sensitive values are in clear with `after_sensitive` marking them.
import { parsePlanJson } from '../../src/gitops/plan-json';
import { failsOn, hasChanges } from '../../src/gitops/review';
import { reviewMarkdown } from '../../src/gitops/review-render';
import { describeChanges } from '../../src/gitops/plan-summary';
import { change, review } from './plan-changes';

describe('a forgotten object (removed { lifecycle { destroy = false } })', () => {
  const plan = () =>
    review(
      change('proxyaccount_sub_account', 'member', ['forget'], { id: 'gina3', username: 'gina3', active: true, monthly_limit: 0, total_limit: 0 }, null),
      change('proxyaccount_authorized_ip', 'member_ip', ['forget'], { id: 'gina3/192.0.2.20', ip: '192.0.2.20', label: null, username: 'gina3' }, null),
      change('proxyaccount_authorized_ips', 'parent', ['forget'], { id: '_self', username: null, entries: [{ ip: '198.51.100.1', label: 'vpn' }] }, null),
    );

  it('is a change: counted, listed under its account, and not "No changes"', () => {
    const r = plan();
    expect(r.summary.forget).toBe(3);
    expect(hasChanges(r)).toBe(true);
    expect(r.accounts.map((a) => a.account)).toEqual(['(parent)', 'gina3']);
    const gina = r.accounts.find((a) => a.account === 'gina3')!.changes.map((c) => c.description);
    expect(gina).toEqual(['sub-account no longer managed (it stays in the account)', 'IP 192.0.2.20 no longer managed (it stays in the account)']);
    const md = reviewMarkdown(r);
    expect(md).not.toContain('No changes.');
    expect(md).toContain('3 no longer managed');
  });

  it('needs attention: a forgotten sub-account leaves every later drift scan', () => {
    const r = plan();
    expect(failsOn(r, 'attention')).toBe(true);
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['no_longer_managed', 'proxyaccount_sub_account.member'],
      ['no_longer_managed', 'proxyaccount_authorized_ip.member_ip'],
      ['no_longer_managed', 'proxyaccount_authorized_ips.parent'],
    ]);
    expect(r.attention[0]!.message).toMatch(/sub-account 'gina3' .*drift runs no longer scan it/);
    expect(r.attention[2]!.message).toMatch(/the IP list of the parent account/);
  });

  it('shows in the demo summary too', () => {
    const lines = describeChanges(
      parsePlanJson({ resource_changes: [change('proxyaccount_authorized_ip', 'x', ['forget'], { ip: '192.0.2.20', username: 'gina3' }, null)] }),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/gina3\s+192\.0\.2\.20 \(no longer managed: it stays in the account\)$/);
  });
});

describe('the account of a change', () => {
  it('a move from a sub-account to the parent is filed under the parent, and opens it', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ip',
        'office',
        ['delete', 'create'],
        { id: 'ivy2/203.0.113.7', ip: '203.0.113.7', label: 'office', username: 'ivy2' },
        { ip: '203.0.113.7', label: 'office', username: null },
        { after_unknown: { id: true } },
      ),
    );
    expect(r.accounts).toEqual([
      { account: '(parent)', changes: [expect.objectContaining({ description: "IP 203.0.113.7 (office) replaced, moved from sub-account 'ivy2'" })] },
      // The account it leaves loses it: its section says so.
      {
        account: 'ivy2',
        changes: [expect.objectContaining({ description: 'IP 203.0.113.7 (office) deleted: replaced by IP 203.0.113.7 (office) in the parent account' })],
      },
    ]);
    expect(r.attention.map((a) => a.kind)).toEqual(['parent_access_opened']);
  });

  it('a list replaced onto another account shows what it removes there', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ips',
        'jack',
        ['delete', 'create'],
        { id: 'kate2', username: 'kate2', entries: [{ ip: '198.51.100.1', label: null }], removed_entries: [] },
        { username: 'jack2', entries: [{ ip: '198.51.100.1', label: null }], removed_entries: ['198.51.100.50 (jack-home)'] },
        { after_unknown: { id: true } },
      ),
    );
    expect(r.accounts[0]!.account).toBe('jack2');
    expect(r.attention).toEqual([
      // The destroy of the old list removes its entries from the account it leaves.
      expect.objectContaining({
        kind: 'list_removes_entries',
        message: "the list of sub-account 'kate2' is replaced by one in sub-account 'jack2': it removes 1 IP (198.51.100.1) from sub-account 'kate2'",
      }),
      expect.objectContaining({ kind: 'list_removes_entries', message: "the list of sub-account 'jack2' removes 1 IP (198.51.100.50 (jack-home))" }),
    ]);
  });

  it('an owner the plan marks sensitive is never taken for the parent, and needs attention', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ip',
        'member',
        ['create'],
        null,
        { ip: '203.0.113.200', label: null, username: 'hank' },
        {
          after_unknown: { id: true },
          after_sensitive: { username: true },
        },
      ),
    );
    expect(r.accounts.map((a) => a.account)).toEqual(['(account not shown: sensitive)']);
    expect(JSON.stringify(r)).not.toContain('hank');
    expect(r.attention.map((a) => a.kind)).toEqual(['account_not_shown']);
  });

  it('a sub-account whose own username is sensitive is never said to be maybe the parent', () => {
    const r = review(
      change('proxyaccount_sub_account', 'm', ['delete'], { id: 'x', username: 'x', active: true }, null, { before_sensitive: { username: true, id: true } }),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(['sub_account_deleted']);
    expect(JSON.stringify(r)).not.toMatch(/may be the parent/);
  });

  it('an owner known only after apply says so', () => {
    const r = review(
      change(
        'proxyaccount_authorized_hostname',
        'h',
        ['create'],
        null,
        { domain: 'ci.example.com', username: null },
        { after_unknown: { id: true, username: true } },
      ),
    );
    expect(r.accounts.map((a) => a.account)).toEqual(['(account known after apply)']);
    expect(r.attention[0]).toEqual(
      expect.objectContaining({ kind: 'account_not_shown', message: expect.stringMatching(/known only after apply\): it may be the parent account/) }),
    );
  });
});

describe('a list whose effect the plan cannot show', () => {
  it('entries known only after apply: any entry may go, and the parent may be opened', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ips',
        'parent',
        ['create'],
        null,
        { username: null, entries: null, removed_entries: null },
        {
          after_unknown: { id: true, entries: true, removed_entries: true },
        },
      ),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(['list_removes_entries', 'parent_access_opened']);
    expect(r.attention[0]!.message).toMatch(/known only after apply: applying it may remove any IP the account has/);
  });

  it('one entry unknown (its IP from another resource): removals unknown too', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ips',
        'parent',
        ['update'],
        { id: '_self', username: null, entries: [{ ip: '192.0.2.1', label: 'hq-office' }], removed_entries: [] },
        { id: '_self', username: null, entries: [{ ip: null, label: null }], removed_entries: null },
        { after_unknown: { entries: [{ ip: true }], removed_entries: true } },
      ),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(expect.arrayContaining(['list_removes_entries', 'parent_access_opened']));
  });

  it('a known list with its removals planned raises nothing more than they say', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ips',
        'alice',
        ['update'],
        { id: 'alice', username: 'alice', entries: [{ ip: '192.0.2.1', label: null }], removed_entries: [] },
        { id: 'alice', username: 'alice', entries: [{ ip: '192.0.2.2', label: null }], removed_entries: ['192.0.2.1'] },
      ),
    );
    expect(r.attention).toEqual([
      expect.objectContaining({ kind: 'list_removes_entries', message: "the list of sub-account 'alice' removes 1 IP (192.0.2.1)" }),
    ]);
  });
});

describe('a sub-account replaced', () => {
  const sub = (username: string) => ({ id: username, username, active: true, monthly_limit: 0, total_limit: 0 });
  const ip = { id: 'rev1/203.0.113.9', ip: '203.0.113.9', label: null, username: 'rev1' };

  it('under the same name: its entries go with it, and those the configuration manages (shown unchanged) come back only on the next apply', () => {
    const r = review(
      change(
        'proxyaccount_sub_account',
        's',
        ['delete', 'create'],
        { ...sub('rev1'), password: 'Rev-Pass-1' },
        { ...sub('rev1'), password: null },
        {
          after_unknown: { id: true },
          before_sensitive: { password: true },
          after_sensitive: { password: true },
        },
      ),
      change('proxyaccount_authorized_ip', 'ip', ['no-op'], ip, ip),
    );
    expect(r.attention).toEqual([
      {
        kind: 'sub_account_replaced',
        address: 'proxyaccount_sub_account.s',
        message:
          "sub-account 'rev1' is replaced: deleted and created again, losing its usage history and credentials; its authorized IPs, hostnames and tokens are deleted with it, and those this configuration manages come back only on the next apply (this plan shows them unchanged)",
      },
      {
        kind: 'deleted_with_account',
        address: 'proxyaccount_authorized_ip.ip',
        message:
          "declares IP 203.0.113.9 of sub-account 'rev1', which this plan replaces (proxyaccount_sub_account.s) with its IPs, hostnames and tokens: the apply removes what this resource claims, and the state keeps it; the next apply creates it again in the new sub-account",
      },
    ]);
    expect(reviewMarkdown(r)).not.toContain('Rev-Pass-1');
  });

  it("says a removed password forced it, and names what forced a replacement on the change's line, never a value", () => {
    const r = review(
      change(
        'proxyaccount_sub_account',
        's',
        ['delete', 'create'],
        { ...sub('rev1'), password: 'Rev-Pass-2' },
        { ...sub('rev1'), password: null },
        {
          after_unknown: { id: true },
          before_sensitive: { password: true },
          after_sensitive: { password: true },
          replace_paths: [['password']],
          action_reason: 'replace_because_cannot_update',
        },
      ),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      "sub-account 'rev1' is replaced because its password is removed from the configuration (the API cannot clear a password): deleted and created again, losing its usage history and credentials; its authorized IPs, hostnames and tokens are deleted with it, and those this configuration manages come back only on the next apply (this plan shows them unchanged)",
    ]);
    const text = reviewMarkdown(r);
    expect(text).toContain('sub-account replaced (deleted and created again), forced by a change of password');
    expect(text).not.toContain('Rev-Pass-2');
  });

  it('under a new name: its entries are deleted with it', () => {
    const r = review(change('proxyaccount_sub_account', 's', ['delete', 'create'], sub('rev1'), sub('rev2'), { after_unknown: { id: true } }));
    expect(r.attention.map((a) => a.message)).toEqual([
      "sub-account 'rev1' is replaced by 'rev2': deleted and created again, losing its usage history and credentials; its authorized IPs, hostnames and tokens are deleted with it",
    ]);
  });
});

describe('a pending bearer token create replaced', () => {
  it('says that nobody holds the value of the token it deletes, and where the plan names it', () => {
    const token = (id: string | null) => ({ id, token_id: null, label: 'ci', username: null, expires_at: null, active: true, created_at: null });
    const r = review(
      change('proxyaccount_bearer_token', 't', ['delete', 'create'], token('pending:2026-11-27T05:20:14.001Z/2026-11-27T05:20:17.001Z'), token(null), {
        after_unknown: { id: true, token_id: true, created_at: true },
      }),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      "token 'ci' of the parent account: the token a lost create may have made (its value was never received) is deleted and a new one created; the plan's warnings name the token the apply deletes",
    ]);
  });
});

describe('a list whose entries only change form or label (finding: a migration read as removals)', () => {
  it('matches proxies in any form: only what the account loses is a removal', () => {
    const listed = ['us-ny.proxy.example.net:8080', 'de-fra.proxy.example.net:1080', 'gb-lon.proxy.example.net:1080'];
    const r = review(
      change(
        'proxyaccount_authorized_proxies',
        'parent',
        ['update'],
        { id: '_self', proxies: listed, removed_entries: [] },
        { id: '_self', proxies: ['us-ny', 'de-fra'], removed_entries: ['gb-lon.proxy.example.net:1080'] },
      ),
    );
    expect(r.accounts[0]!.changes.map((c) => c.description)).toEqual(['−1 proxy (gb-lon.proxy.example.net:1080)']);
    expect(r.attention.map((a) => [a.kind, a.message])).toEqual([
      ['list_removes_entries', 'the list of the parent account removes 1 proxy (gb-lon.proxy.example.net:1080)'],
    ]);
  });

  it("takes an IP of the parent's list whose label changed for a change, not an IP opened to the parent's proxies", () => {
    const r = review(
      change(
        'proxyaccount_authorized_ips',
        'parent',
        ['update'],
        {
          id: '_self',
          username: null,
          entries: [
            { ip: '203.0.113.8', label: 'old' },
            { ip: '203.0.113.9', label: null },
          ],
        },
        {
          id: '_self',
          username: null,
          entries: [
            { ip: '203.0.113.8', label: 'backup' },
            { ip: '203.0.113.9', label: null },
            { ip: '203.0.113.10', label: 'new' },
          ],
        },
      ),
    );
    expect(r.accounts[0]!.changes.map((c) => c.description)).toEqual(['+1 IP (203.0.113.10 (new)), ~1 IP (203.0.113.8 (backup))']);
    expect(r.attention.map((a) => [a.kind, a.message])).toEqual([
      ['parent_access_opened', "1 IP (203.0.113.10 (new)) may use the parent account's proxies without credentials"],
    ]);
  });
});

describe('a list update that removes what its entries do not show (finding: removed_entries read only on create)', () => {
  it('a proxy written at another port than the account lists it: the removal the provider plans is shown, with attention', () => {
    const r = review(
      change(
        'proxyaccount_authorized_proxies',
        'all',
        ['update'],
        { id: '_self', proxies: ['US-NY.proxy.example.net:8080', 'gb-lon'], removed_entries: [] },
        { id: '_self', proxies: ['US-NY.proxy.example.net:8080', 'gb-lon.proxy.example.net:8080'], removed_entries: ['gb-lon.proxy.example.net:1080'] },
      ),
    );
    expect(r.accounts[0]!.changes.map((c) => c.description)).toEqual(['−1 proxy (gb-lon.proxy.example.net:1080)']);
    expect(r.attention.map((a) => [a.kind, a.message])).toEqual([
      ['list_removes_entries', 'the list of the parent account removes 1 proxy (gb-lon.proxy.example.net:1080)'],
    ]);
  });

  it("an IP added outside Terraform, named once beside what the entries drop; the prior change's removals (in `before`) are not this one's", () => {
    const ips = (...entries: Array<[string, string | null]>) => entries.map(([ip, label]) => ({ ip, label }));
    const r = review(
      change(
        'proxyaccount_authorized_ips',
        'team',
        ['update'],
        { id: 'team', username: 'team', entries: ips(['192.0.2.1', 'office'], ['192.0.2.2', null]), removed_entries: ['192.0.2.50 (old)'] },
        {
          id: 'team',
          username: 'team',
          entries: ips(['192.0.2.1', 'office'], ['192.0.2.3', null]),
          removed_entries: ['192.0.2.2', '192.0.2.9 (oob)'],
        },
      ),
    );
    expect(r.accounts[0]!.changes.map((c) => c.description)).toEqual(['+1 IP (192.0.2.3), −2 IPs (192.0.2.2, 192.0.2.9 (oob))']);
    expect(r.attention.map((a) => [a.kind, a.message])).toEqual([
      ['list_removes_entries', "the list of sub-account 'team' removes 2 IPs (192.0.2.2, 192.0.2.9 (oob))"],
    ]);
  });
});

describe("the parent's access opened", () => {
  it('by a hostname, entry or list: clients at any address it resolves to may use the proxies without credentials', () => {
    const entry = review(
      change('proxyaccount_authorized_hostname', 'ci', ['create'], null, { id: 'ci.example.com', domain: 'ci.example.com', username: null }),
      change('proxyaccount_authorized_hostname', 'sub', ['create'], null, { id: 'alice/d.example.com', domain: 'd.example.com', username: 'alice' }),
    );
    const list = review(
      change(
        'proxyaccount_authorized_hostnames',
        'parent',
        ['update'],
        { id: '_self', username: null, domains: ['a.example.com'] },
        { id: '_self', username: null, domains: ['a.example.com', 'b.example.com', 'c.example.com'] },
      ),
    );
    expect([...entry.attention, ...list.attention].map((a) => [a.kind, a.address, a.message])).toEqual([
      [
        'parent_access_opened',
        'proxyaccount_authorized_hostname.ci',
        "hostname ci.example.com: clients at any address it resolves to may use the parent account's proxies without credentials, and whoever controls its DNS decides which addresses those are",
      ],
      [
        'parent_access_opened',
        'proxyaccount_authorized_hostnames.parent',
        "2 hostnames (b.example.com, c.example.com): clients at any address they resolve to may use the parent account's proxies without credentials, and whoever controls their DNS decides which addresses those are",
      ],
    ]);
  });

  it("not by an IP of the parent's replaced for a new label, which had that access already", () => {
    const ip = (label: string) => ({ id: '203.0.113.7', ip: '203.0.113.7', label, username: null });
    const relabelled = review(change('proxyaccount_authorized_ip', 'office', ['delete', 'create'], ip('old'), ip('new')));
    expect(relabelled.attention).toEqual([]);
    // A replacement that brings the address from a sub-account, or another address, opens it.
    const moved = review(
      change(
        'proxyaccount_authorized_ip',
        'office',
        ['delete', 'create'],
        { id: 'alice/203.0.113.7', ip: '203.0.113.7', label: null, username: 'alice' },
        ip('x'),
      ),
      change(
        'proxyaccount_authorized_ip',
        'other',
        ['delete', 'create'],
        { ...ip('x'), id: '203.0.113.6', ip: '203.0.113.6' },
        { ...ip('x'), id: '203.0.113.8', ip: '203.0.113.8' },
      ),
    );
    expect(moved.attention.map((a) => [a.kind, a.address])).toEqual([
      ['parent_access_opened', 'proxyaccount_authorized_ip.office'],
      ['parent_access_opened', 'proxyaccount_authorized_ip.other'],
    ]);
  });
});

describe('a password rotation (finding: the old password is refused at once, unflagged)', () => {
  const sub = (username: string) => ({ id: username, username, active: true, monthly_limit: 0, total_limit: 0, password_wo: null });
  const rotated = (message: string) => ({ kind: 'password_changed', address: expect.any(String), message });

  it('needs attention for a new password or a new password_wo_version, naming the sub-account and never the value', () => {
    const r = review(
      change(
        'proxyaccount_sub_account',
        'stored',
        ['update'],
        { ...sub('rot1'), password: 'Rot-Pass-1' },
        { ...sub('rot1'), password: 'Rot-Pass-2' },
        { before_sensitive: { password: true }, after_sensitive: { password: true } },
      ),
      change('proxyaccount_sub_account', 'write_only', ['update'], { ...sub('rot2'), password_wo_version: 1 }, { ...sub('rot2'), password_wo_version: 2 }),
    );
    expect(r.attention).toEqual([
      rotated("sub-account 'rot1' gets a new password: proxy clients and API callers still using the old one are refused once this is applied"),
      rotated("sub-account 'rot2' gets a new password: proxy clients and API callers still using the old one are refused once this is applied"),
    ]);
    expect(r.attention.map((a) => a.address)).toEqual(['proxyaccount_sub_account.stored', 'proxyaccount_sub_account.write_only']);
    expect(failsOn(r, 'attention')).toBe(true);
    const text = reviewMarkdown(r);
    expect(text).toContain('**password_changed**');
    expect(text).not.toMatch(/Rot-Pass/);
  });

  it('is not flagged for a create with a password, nor for an update that keeps the password', () => {
    const r = review(
      change(
        'proxyaccount_sub_account',
        'new',
        ['create'],
        null,
        { ...sub('rot3'), password: 'Rot-Pass-3', password_wo_version: null },
        {
          after_unknown: { id: true },
          after_sensitive: { password: true },
        },
      ),
      change(
        'proxyaccount_sub_account',
        'kept',
        ['update'],
        { ...sub('rot4'), password_wo_version: 3, monthly_limit: 5 },
        { ...sub('rot4'), password_wo_version: 3, monthly_limit: 6 },
      ),
      change(
        'proxyaccount_sub_account',
        'moved',
        ['update'],
        { ...sub('rot5'), password: 'Rot-Pass-5' },
        { ...sub('rot5'), password: null, password_wo_version: 1 },
        {
          before_sensitive: { password: true },
          after_sensitive: { password: true },
        },
      ),
    );
    // The move from password to password_wo changes the password in place: flagged, alone.
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([['password_changed', 'proxyaccount_sub_account.moved']]);
  });
});

describe('the deposed object of an unfinished create_before_destroy replacement', () => {
  it('is described and flagged as the old token, by its ID, never as the resource deleted', () => {
    const token = (id: number) => ({ id: `alice/${id}`, token_id: id, label: 'tok-cbd', username: 'alice', active: true, expires_at: null });
    const r = review({ ...(change('proxyaccount_bearer_token', 'cbd', ['delete'], token(8), null) as object), deposed: '5f2a1c0e' });
    expect(r.accounts).toEqual([
      {
        account: 'alice',
        changes: [
          expect.objectContaining({
            action: 'delete',
            description: expect.stringMatching(/^token 8 'tok-cbd' deleted: the old object of a create_before_destroy/),
          }),
        ],
      },
    ]);
    expect(r.attention.map((a) => [a.kind, a.message])).toEqual([
      [
        'token_deleted',
        "token 8 'tok-cbd' of sub-account 'alice', the old token of a create_before_destroy replacement an earlier apply did not finish, is deleted: clients still using it stop working and must be given the new one",
      ],
    ]);
  });
});

describe('a replacement of an entry with create_before_destroy that keeps its key', () => {
  const ip = (addr: string, label: string | null) => ({ id: `alice/${addr}`, ip: addr, label, username: 'alice' });
  const proxy = (form: string, domain: string | null) => ({ id: form, proxy: form, domain });

  it('needs attention: an IP or hostname create fails on its own key, a proxy ends removed', () => {
    const r = review(
      change('proxyaccount_authorized_ip', 'relabelled', ['create', 'delete'], ip('198.51.100.31', null), ip('198.51.100.31', 'relabel')),
      change(
        'proxyaccount_authorized_proxy',
        'reformed',
        ['create', 'delete'],
        // -replace of a proxy written one way (a form change of one proxy is an update in place).
        proxy('us-la', 'us-la.proxy.example.net'),
        proxy('us-la', null),
        {
          after_unknown: { domain: true },
        },
      ),
    );
    expect(r.attention.filter((a) => a.kind === 'create_before_destroy_conflict').map((a) => [a.address, a.message])).toEqual([
      [
        'proxyaccount_authorized_ip.relabelled',
        "replaced with create_before_destroy while keeping IP 198.51.100.31 of sub-account 'alice': the create comes first and fails, the old object holding the IP (the account holds each once), so the apply stops there. Remove create_before_destroy from this resource for this change (the destroy then comes first)",
      ],
      [
        'proxyaccount_authorized_proxy.reformed',
        "replaced with create_before_destroy while keeping proxy us-la of the parent account: adding a proxy already authorized changes nothing, and the old object's destroy, which comes after it, removes the proxy: the account ends without it while the state keeps it. Remove create_before_destroy from this resource for this change (the destroy then comes first)",
      ],
    ]);
  });

  it('says what may happen when the plan cannot tell: a proxy known only after apply, or a port against a form without one', () => {
    const r = review(
      change('proxyaccount_authorized_proxy', 'later', ['create', 'delete'], proxy('us-la', 'us-la.proxy.example.net'), proxy('', null), {
        after_unknown: { proxy: true, domain: true, id: true },
      }),
      change(
        'proxyaccount_authorized_proxy',
        'port',
        ['create', 'delete'],
        proxy('us-ny', 'us-ny.proxy.example.net'),
        proxy('us-ny.proxy.example.net:8080', null),
        {
          after_unknown: { domain: true },
        },
      ),
    );
    expect(r.attention.filter((a) => a.kind === 'create_before_destroy_conflict').map((a) => [a.address, a.message])).toEqual([
      [
        'proxyaccount_authorized_proxy.later',
        expect.stringMatching(
          /^replaced with create_before_destroy by a proxy known only after apply, which may be proxy us-la of the parent account again: then adding a proxy/,
        ),
      ],
      [
        'proxyaccount_authorized_proxy.port',
        expect.stringMatching(
          /^replaced with create_before_destroy by a proxy whose port the plan cannot compare, which may be proxy us-ny of the parent account again/,
        ),
      ],
    ]);
  });

  it('not for a hostname in another case (the API keeps both), nor a proxy on another port (its add fails)', () => {
    const host = (domain: string) => ({ id: domain, domain, username: null });
    const r = review(
      change('proxyaccount_authorized_hostname', 'office', ['create', 'delete'], host('Office.Example.org'), host('office.example.org')),
      change(
        'proxyaccount_authorized_proxy',
        'port',
        ['create', 'delete'],
        proxy('us-ny.proxy.example.net:8080', 'us-ny.proxy.example.net'),
        proxy('us-ny.proxy.example.net:9090', null),
        { after_unknown: { domain: true } },
      ),
    );
    expect(r.attention.filter((a) => a.kind === 'create_before_destroy_conflict')).toEqual([]);
  });

  it('not when the destroy comes first, nor for another key, which the line names beside the new one', () => {
    const r = review(
      change('proxyaccount_authorized_ip', 'relabelled', ['delete', 'create'], ip('198.51.100.31', null), ip('198.51.100.31', 'relabel')),
      change('proxyaccount_authorized_ip', 'moved', ['create', 'delete'], ip('198.51.100.21', null), ip('198.51.100.41', null)),
    );
    expect(r.attention.filter((a) => a.kind === 'create_before_destroy_conflict')).toEqual([]);
    expect(r.accounts[0]!.changes.map((c) => c.description)).toEqual(['IP 198.51.100.31 (relabel) replaced', 'IP 198.51.100.21 → 198.51.100.41 replaced']);
  });
});

describe("a replacement onto the key of its own address's deposed object (a change reverted after the old object's destroy failed)", () => {
  const ip = (addr: string) => ({ id: `dep-a/${addr}`, ip: addr, label: null, username: 'dep-a' });
  const deposed = (type: string, before: unknown) => ({ ...(change(type, 'p', ['delete'], before, null) as object), deposed: '2245f36c' });
  // As terraform show -json writes the reviewer's plan (deposed.sh): the replacement, then the deposed object's destroy.
  const plan = () =>
    review(
      change(
        'proxyaccount_authorized_ip',
        'p',
        ['create', 'delete'],
        ip('192.0.2.51'),
        { ip: '192.0.2.50', label: null, username: 'dep-a' },
        {
          after_unknown: { id: true },
          replace_paths: [['ip']],
        },
      ),
      deposed('proxyaccount_authorized_ip', ip('192.0.2.50')),
      change(
        'proxyaccount_authorized_proxy',
        'p',
        ['create', 'delete'],
        { id: 'de-fra', proxy: 'de-fra', domain: 'de-fra.proxy.example.net' },
        { proxy: 'us-ny' },
        { after_unknown: { domain: true, id: true }, replace_paths: [['proxy']] },
      ),
      deposed('proxyaccount_authorized_proxy', { id: 'us-ny', proxy: 'us-ny', domain: 'us-ny.proxy.example.net' }),
    );

  it('is flagged: the create comes before the deposed destroy, so an IP fails at every apply, and a proxy ends deleted', () => {
    const r = plan();
    const deposedObject = 'which its deposed object (the old object of a create_before_destroy replacement an earlier apply did not finish) still holds: ';
    const order = "Terraform destroys a deposed object only after the new object's create, with or without create_before_destroy in the code, so ";
    expect(r.attention.map((a) => [a.kind, a.address, a.message])).toEqual([
      [
        'create_before_destroy_conflict',
        'proxyaccount_authorized_ip.p',
        `is replaced by IP 192.0.2.50 of sub-account 'dep-a', ${deposedObject}${order}the create fails on the IP the deposed object holds (the account holds each once) ` +
          'and the apply stops there, as every later one will while the deposed object stays. ' +
          'First apply a plan that only destroys the deposed object (the code still declaring 192.0.2.51, as the current object does), then this change',
      ],
      [
        'create_before_destroy_conflict',
        'proxyaccount_authorized_proxy.p',
        `is replaced by proxy us-ny of the parent account, ${deposedObject}${order}adding a proxy already authorized changes nothing, ` +
          "and the deposed object's destroy, which comes after it, removes the proxy: the account ends without it while the state keeps it. " +
          'First apply a plan that only destroys the deposed object (the code still declaring de-fra, as the current object does), then this change',
      ],
    ]);
    expect(failsOn(r, 'attention')).toBe(true);
  });

  it('so is a replacement whose destroy comes first, and a create with no current object: Terraform still destroys the deposed object last', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ip',
        'p',
        ['delete', 'create'],
        ip('192.0.2.51'),
        { ip: '192.0.2.50', label: null, username: 'dep-a' },
        { after_unknown: { id: true } },
      ),
      deposed('proxyaccount_authorized_ip', ip('192.0.2.50')),
      change('proxyaccount_authorized_hostname', 'p', ['create'], null, { domain: 'ci.example.com', username: 'dep-a' }, { after_unknown: { id: true } }),
      deposed('proxyaccount_authorized_hostname', { id: 'dep-a/ci.example.com', domain: 'ci.example.com', username: 'dep-a' }),
    );
    expect(r.attention.map((a) => [a.kind, a.address, a.message.split(',')[0], a.message.slice(a.message.indexOf('First apply'))])).toEqual([
      [
        'create_before_destroy_conflict',
        'proxyaccount_authorized_ip.p',
        "is replaced by IP 192.0.2.50 of sub-account 'dep-a'",
        'First apply a plan that only destroys the deposed object (the code still declaring 192.0.2.51, as the current object does), then this change',
      ],
      [
        'create_before_destroy_conflict',
        'proxyaccount_authorized_hostname.p',
        "creates hostname ci.example.com of sub-account 'dep-a'",
        'First apply a plan that only destroys the deposed object (the code without this resource), then this change',
      ],
    ]);
    // The deposed lines do not say the apply removes them: the create before each fails (the rerun's finding 2).
    expect(r.accounts.flatMap((a) => a.changes.filter((c) => c.description.includes('(deposed)')).map((c) => c.description))).toEqual([
      expect.stringMatching(
        /\(deposed\), which applying this plan removes, unless the create at its address fails first, as it does or may here \(create_before_destroy_conflict\): then it stays$/,
      ),
      expect.stringMatching(/, unless the create at its address fails first, as it does or may here \(create_before_destroy_conflict\): then it stays$/),
    ]);
  });

  it('not for another key, nor for the same key in another account', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ip',
        'p',
        ['create', 'delete'],
        ip('192.0.2.51'),
        { ip: '192.0.2.52', label: null, username: 'dep-a' },
        { after_unknown: { id: true } },
      ),
      deposed('proxyaccount_authorized_ip', ip('192.0.2.50')),
      change(
        'proxyaccount_authorized_hostname',
        'p',
        ['create', 'delete'],
        { id: 'dep-a/a.example.com', domain: 'a.example.com', username: 'dep-a' },
        {
          domain: 'ci.example.com',
          username: 'dep-b',
        },
      ),
      deposed('proxyaccount_authorized_hostname', { id: 'dep-a/ci.example.com', domain: 'ci.example.com', username: 'dep-a' }),
    );
    expect(r.attention.filter((a) => a.kind === 'create_before_destroy_conflict')).toEqual([]);
  });

  it("names another resource that declares the deposed object's key: its destroy removes it, whatever the replacement declares", () => {
    const r = review(
      change(
        'proxyaccount_authorized_ip',
        'p',
        ['create', 'delete'],
        ip('192.0.2.51'),
        { ip: '192.0.2.50', label: null, username: 'dep-a' },
        { after_unknown: { id: true } },
      ),
      deposed('proxyaccount_authorized_ip', ip('192.0.2.50')),
      change('proxyaccount_authorized_ip', 'other', ['no-op'], ip('192.0.2.50'), ip('192.0.2.50')),
    );
    // (The replacement onto a key another resource declares is entriesTwice's item, on the other.)
    const removing = r.attention.filter((a) => a.kind === 'managed_twice' && a.address === 'proxyaccount_authorized_ip.p');
    expect(removing.map((a) => [a.address, a.message.split(':')[0]])).toEqual([
      [
        'proxyaccount_authorized_ip.p',
        "destroys the deposed object holding IP 192.0.2.50 of sub-account 'dep-a', which proxyaccount_authorized_ip.other declares too",
      ],
    ]);
  });
});

describe('a parent IP renamed without a moved block', () => {
  it("is flagged for what may go wrong, not as opening the parent's access the address had already", () => {
    const ip = { ip: '198.51.100.11', label: 'office', username: null };
    const r = review(
      change('proxyaccount_authorized_ip', 'e2', ['delete'], { ...ip, id: '198.51.100.11' }, null),
      change('proxyaccount_authorized_ip', 'e3', ['create'], null, ip, { after_unknown: { id: true } }),
      change('proxyaccount_authorized_ip', 'new', ['create'], null, { ...ip, ip: '198.51.100.12' }, { after_unknown: { id: true } }),
    );
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['parent_access_opened', 'proxyaccount_authorized_ip.new'],
      ['managed_twice', 'proxyaccount_authorized_ip.e2'],
    ]);
  });
});

describe('a proxy written in another form of itself', () => {
  it('is an update that names both forms and sends nothing, with nothing needing attention', () => {
    const r = review(
      change(
        'proxyaccount_authorized_proxy',
        'la',
        ['update'],
        { id: 'us-la', proxy: 'us-la', domain: 'us-la.proxy.example.net' },
        { id: 'us-la.proxy.example.net:8080', proxy: 'us-la.proxy.example.net:8080', domain: 'us-la.proxy.example.net' },
      ),
    );
    expect(r.accounts[0]!.changes.map((c) => c.description)).toEqual([
      'proxy us-la → us-la.proxy.example.net:8080, written another way (the same proxy: nothing is sent)',
    ]);
    expect(r.attention).toEqual([]);
  });
});
