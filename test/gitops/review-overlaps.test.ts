// What review must say when Terraform itself removes objects the plan still declares: a
// sub-account deleted or replaced takes its IPs, hostnames and tokens with it (while resources
// of the plan, unchanged, still claim them), and a list resource removes what an entry resource
// of the same account declares (never combine both). And what it must not say: the migration
// guide's steps (an entry forgotten, a list declaring its key) leave nothing unmanaged. The
// plans are in the shape of `terraform show -json` (Terraform 1.11), as the reviewer's were.
import { failsOn } from '../../src/gitops/review';
import { reviewMarkdown } from '../../src/gitops/review-render';
import { change, review } from './plan-changes';

const sub = (username: string) => ({ id: username, username, active: true, monthly_limit: 50, total_limit: 0 });
const ip = (username: string | null, addr: string, label: string | null = null) => ({
  id: username === null ? addr : `${username}/${addr}`,
  ip: addr,
  label,
  username,
});
const same = (type: string, name: string, values: unknown) => change(type, name, ['no-op'], values, values);

describe('a sub-account deleted while resources of the plan still declare its objects', () => {
  const plan = () =>
    review(
      change('proxyaccount_sub_account', 'bob', ['delete'], sub('bob'), null),
      same('proxyaccount_authorized_ip', 'bob_ip', ip('bob', '198.51.100.12', 'bob-laptop')),
      same('proxyaccount_authorized_hostname', 'bob_host', { id: 'bob/bob.example.org', domain: 'bob.example.org', username: 'bob' }),
      same('proxyaccount_bearer_token', 'bob_token', { id: 'bob/3', token_id: 3, label: 'bob-ci', username: 'bob', active: true, expires_at: null }),
      // Deleted with it, and another account's: neither is named.
      change('proxyaccount_authorized_ip', 'bob_old', ['delete'], ip('bob', '198.51.100.30'), null),
      same('proxyaccount_authorized_ip', 'alice_ip', ip('alice', '198.51.100.11')),
      same('proxyaccount_sub_account', 'alice', sub('alice')),
    );

  it('says its IPs, hostnames and tokens are deleted with it, as the replace case does', () => {
    const deleted = plan().attention.find((a) => a.kind === 'sub_account_deleted');
    expect(deleted?.message).toBe(
      "sub-account 'bob' is deleted: its usage history and credentials are lost for good, and its authorized IPs, hostnames and tokens are deleted with it",
    );
  });

  it('names each resource that still declares an object of it, and what the next apply does', () => {
    const r = plan();
    expect(r.attention.filter((a) => a.kind === 'deleted_with_account').map((a) => a.address)).toEqual([
      'proxyaccount_authorized_ip.bob_ip',
      'proxyaccount_authorized_hostname.bob_host',
      'proxyaccount_bearer_token.bob_token',
    ]);
    expect(r.attention.find((a) => a.address === 'proxyaccount_authorized_ip.bob_ip')?.message).toBe(
      "declares IP 198.51.100.12 of sub-account 'bob', which this plan deletes (proxyaccount_sub_account.bob) with its IPs, hostnames and tokens: " +
        "the apply removes what this resource claims, and the state keeps it; the next plan creates it again, and its apply fails: no sub-account 'bob' is left. " +
        'Remove it from the code with the sub-account',
    );
    expect(r.attention.find((a) => a.address === 'proxyaccount_bearer_token.bob_token')?.message).toMatch(/^declares token 3 of sub-account 'bob'/);
    expect(reviewMarkdown(r)).toContain('- **deleted_with_account** `proxyaccount_authorized_hostname.bob_host`: declares hostname bob.example.org');
  });

  it('a rename names them too, and says how to make them follow it', () => {
    const r = review(
      change('proxyaccount_sub_account', 'carol', ['delete', 'create'], sub('carol'), sub('carol2'), { after_unknown: { id: true } }),
      same('proxyaccount_authorized_ip', 'carol_ip', ip('carol', '198.51.100.13')),
      // A child whose username refers to the sub-account is replaced along with it: not named.
      change('proxyaccount_authorized_ip', 'carol_ref', ['delete', 'create'], ip('carol', '198.51.100.23'), { ...ip('carol2', '198.51.100.23'), id: null }),
    );
    expect(r.attention.filter((a) => a.kind === 'deleted_with_account')).toEqual([
      {
        kind: 'deleted_with_account',
        address: 'proxyaccount_authorized_ip.carol_ip',
        message: expect.stringContaining(
          "which this plan replaces (proxyaccount_sub_account.carol) with its IPs, hostnames and tokens: the apply removes what this resource claims, and the state keeps it; the next plan creates it again, and its apply fails: no sub-account 'carol' is left. Remove it from the code with the sub-account, or set its username to proxyaccount_sub_account.carol.username so that it follows the rename",
        ),
      },
    ]);
  });

  it('nothing more when the plan deletes its objects with it', () => {
    const r = review(
      change('proxyaccount_sub_account', 'bob', ['delete'], sub('bob'), null),
      change('proxyaccount_authorized_ip', 'bob_ip', ['delete'], ip('bob', '198.51.100.12'), null),
      change('proxyaccount_authorized_ip', 'bob_kept', ['forget'], ip('bob', '198.51.100.13'), null),
    );
    expect(r.attention.map((a) => a.kind)).not.toContain('deleted_with_account');
  });
});

describe('a list resource and entry resources of one account (never combine both)', () => {
  // The reviewer's p6: a new parent list over the parent's per-entry IPs.
  const plan = () =>
    review(
      same('proxyaccount_authorized_ip', 'self_ip_1', ip(null, '203.0.113.1', 'office-hq')),
      same('proxyaccount_authorized_ip', 'self_ip_2', ip(null, '203.0.113.2')),
      change(
        'proxyaccount_authorized_ips',
        'parent',
        ['create'],
        null,
        { username: null, entries: [{ ip: '203.0.113.1', label: 'office-hq' }], removed_entries: ['203.0.113.2'] },
        { after_unknown: { id: true } },
      ),
      // Another account's entry, and another collection of the same account: not overlaps.
      same('proxyaccount_authorized_ip', 'alice_ip', ip('alice', '203.0.113.2')),
      same('proxyaccount_authorized_hostname', 'self_host', { id: 'ci.example.com', domain: 'ci.example.com', username: null }),
    );

  it('flags the entry the list removes: each apply undoes the other', () => {
    const item = plan().attention.find((a) => a.address === 'proxyaccount_authorized_ip.self_ip_2');
    expect(item).toEqual({
      kind: 'managed_twice',
      address: 'proxyaccount_authorized_ip.self_ip_2',
      message:
        'IP 203.0.113.2 is declared by this resource but not by proxyaccount_authorized_ips.parent, which manages the whole IP list of the parent account: ' +
        'the list removes it and this resource adds it back, at every apply. Never combine both for one account: declare it in the list, ' +
        'and stop managing this resource (a removed block with destroy = false)',
    });
  });

  it('flags a key both declare', () => {
    const r = plan();
    expect(r.attention.filter((a) => a.kind === 'managed_twice').map((a) => a.address)).toEqual([
      'proxyaccount_authorized_ip.self_ip_1',
      'proxyaccount_authorized_ip.self_ip_2',
    ]);
    expect(r.attention.find((a) => a.address === 'proxyaccount_authorized_ip.self_ip_1')?.message).toMatch(
      /^IP 203\.0\.113\.1 is declared both by this resource and by proxyaccount_authorized_ips\.parent, .*never combine both for one account/,
    );
  });

  it('matches a proxy by its form, as the provider does', () => {
    const r = review(
      same('proxyaccount_authorized_proxy', 'ny', { id: 'us-ny.proxy.example.net:8080', proxy: 'us-ny', domain: 'us-ny.proxy.example.net:8080' }),
      same('proxyaccount_authorized_proxy', 'fra', { id: 'de-fra.proxy.example.net:1080', proxy: 'de-fra', domain: 'de-fra.proxy.example.net:1080' }),
      change(
        'proxyaccount_authorized_proxies',
        'all',
        ['create'],
        null,
        { proxies: ['us-ny'], removed_entries: ['de-fra.proxy.example.net:1080'] },
        { after_unknown: { id: true } },
      ),
    );
    const overlaps = r.attention.filter((a) => a.kind === 'managed_twice');
    expect(overlaps.map((a) => [a.address, a.message.includes('declared both')])).toEqual([
      ['proxyaccount_authorized_proxy.ny', true],
      ['proxyaccount_authorized_proxy.fra', false],
    ]);
  });

  it('says nothing when the list of the account its entries are in is not known', () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'self_ip_2', ip(null, '203.0.113.2')),
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
    expect(r.attention.map((a) => a.kind)).not.toContain('managed_twice');
  });
});

describe("the migration guide's steps", () => {
  it('an entry forgotten while the list of its account declares it: nothing left unmanaged, nothing to flag', () => {
    // The reviewer's p6 for alice: removed { destroy = false } of the entry, the list imported and declaring its IP.
    const r = review(
      change('proxyaccount_authorized_ip', 'alice_ip', ['forget'], ip('alice', '198.51.100.11', 'alice-laptop'), null),
      change(
        'proxyaccount_authorized_ips',
        'alice',
        ['update'],
        { id: 'alice', username: 'alice', entries: [{ ip: '198.51.100.11', label: 'alice-laptop' }], removed_entries: null },
        { id: 'alice', username: 'alice', entries: [{ ip: '198.51.100.11', label: 'alice-laptop' }], removed_entries: [] },
        { importing: { id: 'alice' } },
      ),
    );
    expect(r.attention).toEqual([]);
    expect(failsOn(r, 'attention')).toBe(false);
    expect(r.accounts[0]!.changes[0]!.description).toBe(
      'IP 198.51.100.11 (alice-laptop) no longer managed (it stays in the account), declared by proxyaccount_authorized_ips.alice from now on',
    );
  });

  it('an entry forgotten while the list leaves its key out still needs attention', () => {
    const r = review(
      change('proxyaccount_authorized_ip', 'alice_ip', ['forget'], ip('alice', '198.51.100.11'), null),
      change(
        'proxyaccount_authorized_ips',
        'other',
        ['create'],
        null,
        { username: 'alice', entries: [{ ip: '198.51.100.99', label: null }], removed_entries: [] },
        {
          after_unknown: { id: true },
        },
      ),
      // Another account's list declaring the key does not count.
      change(
        'proxyaccount_authorized_ips',
        'bob',
        ['create'],
        null,
        { username: 'bob', entries: [{ ip: '198.51.100.11', label: null }], removed_entries: [] },
        {
          after_unknown: { id: true },
        },
      ),
    );
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([['no_longer_managed', 'proxyaccount_authorized_ip.alice_ip']]);
  });

  it('and back: a list forgotten while entry resources declare each of its entries', () => {
    const entries = [
      { ip: '198.51.100.11', label: null },
      { ip: '198.51.100.12', label: null },
    ];
    const r = review(
      change('proxyaccount_authorized_ips', 'alice', ['forget'], { id: 'alice', username: 'alice', entries, removed_entries: [] }, null),
      change('proxyaccount_authorized_ip', 'a1', ['no-op'], ip('alice', '198.51.100.11'), ip('alice', '198.51.100.11'), {
        importing: { id: 'alice/198.51.100.11' },
      }),
      change('proxyaccount_authorized_ip', 'a2', ['no-op'], ip('alice', '198.51.100.12'), ip('alice', '198.51.100.12'), {
        importing: { id: 'alice/198.51.100.12' },
      }),
    );
    // Its entries are taken over; but what the list held is read from the state, which Terraform
    // does not refresh for a forget: an entry added since is in no plan (finding: the reverse
    // migration hid an IP added out of band).
    expect(r.attention).toEqual([
      {
        kind: 'no_longer_managed',
        address: 'proxyaccount_authorized_ips.alice',
        message:
          'the IP list is forgotten as the state last recorded it: Terraform does not read a resource a removed block forgets, so an IP added to the account since is in no plan, ' +
          'and stays authorized, unmanaged. Before this apply, run terraform apply -refresh-only and review what the list then holds (or proxyaccount drift); after it, drift lists any such IP',
      },
    ]);
    expect(r.accounts[0]!.changes.find((c) => c.address === 'proxyaccount_authorized_ips.alice')!.description).toContain('declared by');
    // One entry not declared: the list's forget still needs attention.
    const partial = review(
      change('proxyaccount_authorized_ips', 'alice', ['forget'], { id: 'alice', username: 'alice', entries, removed_entries: [] }, null),
      change('proxyaccount_authorized_ip', 'a1', ['no-op'], ip('alice', '198.51.100.11'), ip('alice', '198.51.100.11'), {
        importing: { id: 'alice/198.51.100.11' },
      }),
    );
    expect(partial.attention.map((a) => a.kind)).toEqual(['no_longer_managed']);
  });
});

describe('entry resources destroyed while a list of the plan declares their keys (per-entry blocks deleted, not forgotten)', () => {
  it('needs attention on each: the destroy removes the object, and the list does not add it back in this apply', () => {
    const entries = [
      { ip: '198.51.100.40', label: null },
      { ip: '198.51.100.41', label: null },
    ];
    const r = review(
      change('proxyaccount_authorized_ip', 'runner', ['delete'], ip('carol', '198.51.100.40'), null),
      change('proxyaccount_authorized_ip', 'other', ['delete'], ip('carol', '198.51.100.99'), null),
      change(
        'proxyaccount_authorized_ips',
        'ci',
        ['no-op'],
        { id: 'carol', username: 'carol', entries, removed_entries: [] },
        { id: 'carol', username: 'carol', entries, removed_entries: [] },
        {
          importing: { id: 'carol' },
        },
      ),
    );
    expect(r.attention.map((a) => [a.kind, a.address, a.message])).toEqual([
      [
        'managed_twice',
        'proxyaccount_authorized_ip.runner',
        "destroys IP 198.51.100.40 of sub-account 'carol', which proxyaccount_authorized_ips.ci declares: the destroy removes it from the account, and the list does not add it back in this apply, " +
          'so the account goes without it until the next apply. To hand it over to the list, forget this resource instead (a removed block with lifecycle { destroy = false })',
      ],
    ]);
  });
});

describe("a new or replaced proxy entry, whose domain is known only after apply (the reviewer's p3)", () => {
  const proxies = { id: '_self', proxies: ['us-ny'], removed_entries: ['de-fra.proxy.example.net:1080'] };
  const created = (name: string, proxy: string) =>
    change('proxyaccount_authorized_proxy', name, ['create'], null, { proxy }, { after_unknown: { domain: true, id: true } });
  const plan = () =>
    review(
      same('proxyaccount_authorized_proxies', 'all', proxies),
      created('gb', 'gb-lon'),
      created('fra', 'de-fra.proxy.example.net:1080'),
      // Replaced onto a form of a proxy the list declares.
      change(
        'proxyaccount_authorized_proxy',
        'ny',
        ['delete', 'create'],
        { id: 'gb-lon.proxy.example.net:8080', proxy: 'gb-lon', domain: 'gb-lon.proxy.example.net:8080' },
        { proxy: 'us-ny.proxy.example.net' },
        { after_unknown: { domain: true, id: true }, replace_paths: [['proxy']] },
      ),
      // Its configured form unknown too: which proxy it declares is not shown, so it is not said to overlap.
      change('proxyaccount_authorized_proxy', 'later', ['create'], null, {}, { after_unknown: { proxy: true, domain: true, id: true } }),
    );

  it('is matched by its configured form, as the provider does', () => {
    const overlaps = plan().attention.filter((a) => a.kind === 'managed_twice');
    expect(overlaps.map((a) => [a.address, a.message.includes('declared both')])).toEqual([
      ['proxyaccount_authorized_proxy.gb', false],
      ['proxyaccount_authorized_proxy.fra', false],
      ['proxyaccount_authorized_proxy.ny', true],
      // Its replacement deletes gb-lon, which gb creates in this apply.
      ['proxyaccount_authorized_proxy.ny', false],
    ]);
    expect(overlaps[0]!.message).toBe(
      'proxy gb-lon is declared by this resource but not by proxyaccount_authorized_proxies.all, which manages the whole proxy list of the parent account: ' +
        'the list removes it and this resource adds it back, at every apply. Never combine both for one account: declare it in the list, ' +
        'and stop managing this resource (a removed block with destroy = false)',
    );
    expect(failsOn(plan(), 'attention')).toBe(true);
  });
});

describe("two entry resources of one object, neither destroyed (an import or a state move gave one the other's object)", () => {
  it('flags the pair once, on the later, with the key as its code writes it', () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'office', ip('bob', '203.0.113.1', 'office')),
      same('proxyaccount_authorized_ip', 'hq', ip('bob', '203.0.113.1', 'hq')),
      // The same address in another account, and another address: not the same object.
      same('proxyaccount_authorized_ip', 'alice_office', ip('alice', '203.0.113.1', 'office')),
      same('proxyaccount_authorized_ip', 'other', ip('bob', '203.0.113.2')),
    );
    expect(r.attention).toEqual([
      {
        kind: 'managed_twice',
        address: 'proxyaccount_authorized_ip.hq',
        message:
          "IP 203.0.113.1 of sub-account 'bob' is declared both by this resource and by proxyaccount_authorized_ip.office: " +
          'destroying either one removes it from the account while the other still declares it, and a difference between them (a label) flips at every apply. ' +
          'Keep one: forget the other (a removed block with lifecycle { destroy = false })',
      },
    ]);
  });

  it('compares keys as the provider does: a proxy added again in another form, which the API accepts', () => {
    const r = review(
      same('proxyaccount_authorized_proxy', 'ny', { id: 'us-ny.proxy.example.net:8080', proxy: 'us-ny', domain: 'us-ny.proxy.example.net:8080' }),
      change(
        'proxyaccount_authorized_proxy',
        'ny_again',
        ['create'],
        null,
        { proxy: 'us-ny.proxy.example.net', domain: 'us-ny.proxy.example.net:8080' },
        { after_unknown: { id: true } },
      ),
    );
    expect(r.attention.filter((a) => a.kind === 'managed_twice').map((a) => [a.address, a.message.split(':')[0]])).toEqual([
      [
        'proxyaccount_authorized_proxy.ny_again',
        'proxy us-ny.proxy.example.net of the parent account is declared both by this resource and by proxyaccount_authorized_proxy.ny',
      ],
    ]);
  });

  it('hostnames in another case: one object unless the account lists both spellings, which the plan does not say', () => {
    const host = (domain: string) => ({ id: `bob/${domain}`, domain, username: 'bob' });
    const r = review(
      same('proxyaccount_authorized_hostname', 'h1', host('ci.example.com')),
      same('proxyaccount_authorized_hostname', 'h2', host('CI.example.com')),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      "hostname CI.example.com of sub-account 'bob' is declared both by this resource and by proxyaccount_authorized_hostname.h1, as ci.example.com in another case: " +
        'unless the account lists both spellings, they are one object, and destroying either one removes it from the account while the other still declares it. ' +
        'Keep one: forget the other (a removed block with lifecycle { destroy = false })',
    ]);
  });

  const created = (name: string, values: unknown) => change('proxyaccount_authorized_ip', name, ['create'], null, values, { after_unknown: { id: true } });

  it("one the plan creates (a copied for_each entry): an IP's create fails, and a moved block, not a second resource, gives it the IP", () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'e["office"]', ip('bob', '192.0.2.10', 'office')),
      created('e["office2"]', { ip: '192.0.2.10', label: 'office2', username: 'bob' }),
    );
    expect(r.attention).toEqual([
      {
        kind: 'managed_twice',
        address: 'proxyaccount_authorized_ip.e["office2"]',
        message:
          'IP 192.0.2.10 of sub-account \'bob\' is declared both by this resource and by proxyaccount_authorized_ip.e["office"]: ' +
          'this plan creates it for this resource, while proxyaccount_authorized_ip.e["office"] holds it already: ' +
          'the create fails ("already exists": the account holds each IP once), and the apply stops there. ' +
          'Declare it once: drop this resource from the code, or, to give the IP to it, replace proxyaccount_authorized_ip.e["office"] by a moved block ' +
          '(moved { from = proxyaccount_authorized_ip.e["office"] to = proxyaccount_authorized_ip.e["office2"] })',
      },
    ]);
  });

  it('a hostname as written, and an IP replaced onto the key: both fail; two creates: the second fails', () => {
    const host = (domain: string) => ({ id: `bob/${domain}`, domain, username: 'bob' });
    const r = review(
      same('proxyaccount_authorized_hostname', 'h1', host('ci.example.com')),
      change('proxyaccount_authorized_hostname', 'h2', ['create'], null, { domain: 'ci.example.com', username: 'bob' }, { after_unknown: { id: true } }),
      same('proxyaccount_authorized_ip', 'a', ip('bob', '192.0.2.20')),
      change(
        'proxyaccount_authorized_ip',
        'b',
        ['delete', 'create'],
        ip('bob', '192.0.2.21'),
        { ip: '192.0.2.20', label: null, username: 'bob' },
        {
          after_unknown: { id: true },
        },
      ),
      created('c', { ip: '192.0.2.30', label: null, username: 'bob' }),
      created('d', { ip: '192.0.2.30', label: null, username: 'bob' }),
    );
    const fates = r.attention.map((a) => [a.address, a.message.slice(a.message.indexOf(': ') + 2, a.message.indexOf(' Declare'))]);
    expect(fates).toEqual([
      [
        'proxyaccount_authorized_hostname.h2',
        'this plan creates it for this resource, while proxyaccount_authorized_hostname.h1 holds it already: ' +
          'the create fails ("already exists": the account holds each hostname once), and the apply stops there.',
      ],
      [
        'proxyaccount_authorized_ip.b',
        'this plan creates it for this resource, while proxyaccount_authorized_ip.a holds it already: the create fails ("already exists": the account holds each IP once), and the apply stops there.',
      ],
      [
        'proxyaccount_authorized_ip.d',
        'this plan creates it for both: the second create fails ("already exists": the account holds each IP once), and the apply stops there.',
      ],
    ]);
    expect(r.attention[2]!.message).toMatch(/ Declare it once: drop one of the two from the code$/);
  });

  it('a proxy the plan adds again: the add succeeds, and both then hold one object', () => {
    const r = review(
      same('proxyaccount_authorized_proxy', 'ny', { id: 'us-ny', proxy: 'us-ny', domain: 'us-ny.proxy.example.net:8080' }),
      change('proxyaccount_authorized_proxy', 'ny_again', ['create'], null, { proxy: 'us-ny' }, { after_unknown: { domain: true, id: true } }),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      'proxy us-ny of the parent account is declared both by this resource and by proxyaccount_authorized_proxy.ny: ' +
        'this plan creates it for this resource, while proxyaccount_authorized_proxy.ny holds it already: adding a proxy already authorized succeeds and changes nothing, ' +
        'so both then hold one object, and destroying either one removes it from the account while the other still declares it. ' +
        'Declare it once: drop this resource from the code, or, to give the proxy to it, replace proxyaccount_authorized_proxy.ny by a moved block ' +
        '(moved { from = proxyaccount_authorized_proxy.ny to = proxyaccount_authorized_proxy.ny_again })',
    ]);
  });

  it('a pair of instances left in place: forgotten with terraform state rm, since a removed block cannot name an instance', () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'e["a"]', ip('bob', '192.0.2.40')),
      same('proxyaccount_authorized_ip', 'e["b"]', ip('bob', '192.0.2.40')),
    );
    expect(r.attention.map((a) => a.message.slice(a.message.indexOf('Keep one')))).toEqual([
      `Keep one: forget the other (terraform state rm 'proxyaccount_authorized_ip.e["a"]' before the apply: a removed block cannot name one instance of a resource)`,
    ]);
  });

  it('in the parent: no parent_access_opened for a key a resource left as it is already gives that access', () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'r3', ip(null, '203.0.113.3', 'three')),
      created('r4', { ip: '203.0.113.3', label: 'dup', username: null }),
      // Another key: new access, flagged.
      created('r6', { ip: '203.0.113.6', label: null, username: null }),
    );
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['parent_access_opened', 'proxyaccount_authorized_ip.r6'],
      ['managed_twice', 'proxyaccount_authorized_ip.r4'],
    ]);
    // Nor for a key the parent's list, unchanged, declares (never combine both: managedTwice says so).
    const listed = review(
      same('proxyaccount_authorized_ips', 'parent', { id: '_self', username: null, entries: [{ ip: '203.0.113.5', label: null }], removed_entries: [] }),
      created('r5', { ip: '203.0.113.5', label: null, username: null }),
    );
    expect(listed.attention.map((a) => [a.kind, a.address])).toEqual([['managed_twice', 'proxyaccount_authorized_ip.r5']]);
  });

  it('but two new resources of one new parent key do open it', () => {
    const r = review(created('r7', { ip: '203.0.113.7', label: null, username: null }), created('r8', { ip: '203.0.113.7', label: null, username: null }));
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['parent_access_opened', 'proxyaccount_authorized_ip.r7'],
      ['parent_access_opened', 'proxyaccount_authorized_ip.r8'],
      ['managed_twice', 'proxyaccount_authorized_ip.r8'],
    ]);
  });

  it('says nothing when one of them is destroyed: deletedWhileDeclared names that', () => {
    const r = review(
      change('proxyaccount_authorized_ip', 'office', ['delete'], ip('bob', '203.0.113.1', 'office'), null),
      same('proxyaccount_authorized_ip', 'hq', ip('bob', '203.0.113.1', 'hq')),
    );
    expect(r.attention.filter((a) => a.kind === 'managed_twice').map((a) => a.address)).toEqual(['proxyaccount_authorized_ip.office']);
  });
});

describe('managed_twice in the words of each kind, with the key as the code writes it', () => {
  it('a hostname: its own case, and no label', () => {
    const r = review(
      same('proxyaccount_authorized_hostname', 'host', { id: 'Carol2/Host-18.Example.com', domain: 'Host-18.Example.com', username: 'Carol2' }),
      same('proxyaccount_authorized_hostnames', 'carol', { id: 'Carol2', username: 'Carol2', domains: ['host-18.example.com'], removed_entries: [] }),
    );
    expect(r.attention).toEqual([
      {
        kind: 'managed_twice',
        address: 'proxyaccount_authorized_hostname.host',
        message:
          "hostname Host-18.Example.com is declared both by this resource and by proxyaccount_authorized_hostnames.carol, which manages the whole hostname list of sub-account 'Carol2': " +
          'never combine both for one account. Destroying either one removes it from the account while the other still declares it',
      },
    ]);
  });

  it('a proxy: its configured form, and no label', () => {
    const r = review(
      same('proxyaccount_authorized_proxy', 'fra', { id: 'de-fra.proxy.example.net:1080', proxy: 'de-fra', domain: 'de-fra.proxy.example.net:1080' }),
      same('proxyaccount_authorized_proxies', 'all', { id: '_self', proxies: ['de-fra.proxy.example.net'], removed_entries: [] }),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      'proxy de-fra is declared both by this resource and by proxyaccount_authorized_proxies.all, which manages the whole proxy list of the parent account: ' +
        'never combine both for one account. Destroying either one removes it from the account while the other still declares it',
    ]);
  });

  it('an IP: a label that differs flips at every apply', () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'office', ip(null, '203.0.113.1', 'office')),
      same('proxyaccount_authorized_ips', 'parent', { id: '_self', username: null, entries: [{ ip: '203.0.113.1', label: 'hq' }], removed_entries: [] }),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      'IP 203.0.113.1 is declared both by this resource and by proxyaccount_authorized_ips.parent, which manages the whole IP list of the parent account: ' +
        'never combine both for one account. Destroying either one removes it from the account while the other still declares it, ' +
        'and a difference between them (a label) flips at every apply',
    ]);
  });
});

describe("an object replaced or created in a sub-account the plan deletes (the reviewer's a.b)", () => {
  const relabelled = (username: string) =>
    change(
      'proxyaccount_authorized_ip',
      'a_b_ip',
      ['delete', 'create'],
      ip(username, '198.51.100.14', 'a.b-laptop'),
      { ...ip(username, '198.51.100.14', 'a.b-relabelled'), id: null },
      {
        after_unknown: { id: true },
        replace_paths: [['label']],
      },
    );

  it('is named like a resource left unchanged: its create fails, or the account takes it with it', () => {
    const r = review(
      change('proxyaccount_sub_account', 'a_b', ['delete'], sub('a.b'), null),
      relabelled('a.b'),
      change('proxyaccount_authorized_ip', 'ab_new', ['create'], null, { ...ip('a.b', '198.51.100.77'), id: null }, { after_unknown: { id: true } }),
    );
    const items = r.attention.filter((a) => a.kind === 'deleted_with_account');
    expect(items.map((a) => a.address)).toEqual(['proxyaccount_authorized_ip.a_b_ip', 'proxyaccount_authorized_ip.ab_new']);
    expect(items[0]!.message).toBe(
      "declares IP 198.51.100.14 of sub-account 'a.b', which this plan deletes (proxyaccount_sub_account.a_b) with its IPs, hostnames and tokens: " +
        "this apply creates it in a sub-account it deletes, so the create fails (no sub-account 'a.b' is left) or the object goes with the account while the state keeps it. " +
        'Remove it from the code with the sub-account',
    );
  });

  it('not when the sub-account is created again under its name: the replacement lands in the new one', () => {
    const r = review(
      change('proxyaccount_sub_account', 'a_b', ['delete', 'create'], sub('a.b'), sub('a.b'), { after_unknown: { id: true } }),
      relabelled('a.b'),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(['sub_account_replaced']);
  });
});

describe("objects forgotten (removed { destroy = false }) while the plan deletes their sub-account (the reviewer's p4)", () => {
  const plan = () =>
    review(
      change('proxyaccount_sub_account', 'x_y', ['delete'], sub('x+y'), null),
      change('proxyaccount_authorized_ip', 'x_y_ip', ['forget'], ip('x+y', '198.51.100.17', 'x+y-laptop'), null),
      change(
        'proxyaccount_bearer_token',
        'x_y_token',
        ['forget'],
        { id: 'x+y/9', token_id: 9, label: 'ci x', username: 'x+y', active: true, expires_at: null },
        null,
      ),
      change('proxyaccount_authorized_hostnames', 'x_y', ['forget'], { id: 'x+y', username: 'x+y', domains: ['x.example.com'], removed_entries: [] }, null),
    );

  it('says they are deleted with it, never that they stay in the account', () => {
    const r = plan();
    const forgotten = r.attention.filter((a) => a.kind === 'no_longer_managed');
    expect(forgotten.map((a) => a.address)).toEqual([
      'proxyaccount_authorized_ip.x_y_ip',
      'proxyaccount_bearer_token.x_y_token',
      'proxyaccount_authorized_hostnames.x_y',
    ]);
    expect(forgotten[0]!.message).toBe(
      "IP 198.51.100.17 (x+y-laptop) of sub-account 'x+y' is no longer managed by Terraform, and does not stay in the account: " +
        "this plan deletes sub-account 'x+y' (proxyaccount_sub_account.x_y), and the API deletes its IPs, hostnames and tokens with it, whatever the removed block says",
    );
    expect(forgotten[1]!.message).toMatch(/^token 'ci x' of sub-account 'x\+y' is no longer managed by Terraform, and does not stay in the account: /);
    expect(forgotten[2]!.message).toMatch(/^the hostname list of sub-account 'x\+y' is no longer managed by Terraform, and does not stay in the account: /);
    const text = reviewMarkdown(r);
    expect(text).not.toMatch(/stays in the account|stays? authorized|keep using the proxies/);
    expect(r.accounts.find((a) => a.account === 'x+y')?.changes.map((c) => c.description)).toEqual([
      'sub-account deleted',
      'IP 198.51.100.17 (x+y-laptop) no longer managed (deleted with its sub-account, which this plan deletes)',
      "token 'ci x' no longer managed (deleted with its sub-account, which this plan deletes)",
      'hostname list no longer managed (deleted with its sub-account, which this plan deletes)',
    ]);
  });

  it('a rename deletes them with the old sub-account too', () => {
    const r = review(
      change('proxyaccount_sub_account', 'carol', ['delete', 'create'], sub('Carol'), sub('Carol2'), { after_unknown: { id: true } }),
      change('proxyaccount_authorized_ip', 'carol_ip', ['forget'], ip('Carol', '198.51.100.18'), null),
    );
    expect(r.attention.find((a) => a.kind === 'no_longer_managed')?.message).toBe(
      "IP 198.51.100.18 of sub-account 'Carol' is no longer managed by Terraform, and does not stay in the account: " +
        "this plan replaces sub-account 'Carol' (proxyaccount_sub_account.carol), and the API deletes its IPs, hostnames and tokens with it, whatever the removed block says",
    );
  });
});

describe('a resource renamed without a moved block (a for_each key renamed, a count shifted): what the apply does, and advice Terraform accepts', () => {
  const host = (domain: string) => ({ id: `team-a/${domain}`, domain, username: 'team-a' });
  const ipOf = (addr: string, label: string) => ip('team-a', addr, label);
  const create = (type: string, name: string, after: unknown) => change(type, name, ['create'], null, after, { after_unknown: { id: true } });

  it("a hostname's new key created while the old one is destroyed: the create fails if it runs first, and a moved block is the fix", () => {
    const r = review(
      change('proxyaccount_authorized_hostname', 'h["ci"]', ['delete'], host('ci.example.com'), null),
      create('proxyaccount_authorized_hostname', 'h["ci2"]', { domain: 'ci.example.com', username: 'team-a' }),
    );
    expect(r.attention.map((a) => [a.address, a.message])).toEqual([
      [
        'proxyaccount_authorized_hostname.h["ci"]',
        'destroys hostname ci.example.com of sub-account \'team-a\', which proxyaccount_authorized_hostname.h["ci2"] declares too: the destroy removes it from the account; ' +
          'Terraform does not order this and proxyaccount_authorized_hostname.h["ci2"]\'s create: if that runs first, it fails ("already exists": the account holds each hostname once) ' +
          'and the hostname is absent from the account until a later apply creates it. ' +
          'If this is a rename, declare it with a moved block (moved { from = proxyaccount_authorized_hostname.h["ci"] to = proxyaccount_authorized_hostname.h["ci2"] }): ' +
          'the object then stays, with no change',
      ],
    ]);
  });

  it('a count shifted: keyed by value instead, never a removed block for an instance', () => {
    const r = review(
      change(
        'proxyaccount_authorized_ip',
        'c[1]',
        ['delete', 'create'],
        ipOf('198.51.100.2', 'runner-1'),
        { ...ipOf('198.51.100.3', 'runner-1'), id: null },
        {
          after_unknown: { id: true },
        },
      ),
      change('proxyaccount_authorized_ip', 'c[2]', ['delete'], ipOf('198.51.100.3', 'runner-2'), null),
    );
    expect(r.attention.map((a) => a.message.slice(a.message.indexOf('. ') + 2))).toEqual([
      'A count shifted: key proxyaccount_authorized_ip.c by value instead (for_each, with a moved block from each index to its key), so that removing one IP leaves the others in place',
    ]);
  });

  it('two entries swapping keys with create_before_destroy: both creates fail, at every apply', () => {
    const cbd = (name: string, from: string, to: string, label: string) =>
      change('proxyaccount_authorized_ip', name, ['create', 'delete'], ipOf(from, label), { ...ipOf(to, label), id: null }, { after_unknown: { id: true } });
    const r = review(cbd('e["r1"]', '203.0.113.1', '203.0.113.2', 'one'), cbd('e["r2"]', '203.0.113.2', '203.0.113.1', 'two'));
    expect(r.attention.map((a) => a.message.slice(a.message.indexOf('; ') + 2))).toEqual([
      'proxyaccount_authorized_ip.e["r2"]\'s create comes before its own destroy, as this one\'s does, so both fail ("already exists": the account holds each IP once) ' +
        'and the apply stops there, at every apply. Remove create_before_destroy from these resources for this change (each destroy then comes before its create)',
      'proxyaccount_authorized_ip.e["r1"]\'s create comes before its own destroy, as this one\'s does, so both fail ("already exists": the account holds each IP once) ' +
        'and the apply stops there, at every apply. Remove create_before_destroy from these resources for this change (each destroy then comes before its create)',
    ]);
  });

  it('a proxy: what is true for proxies (the add succeeds, and the destroy may remove it after)', () => {
    const r = review(
      change('proxyaccount_authorized_proxy', 'p["a"]', ['delete'], { id: 'us-ny', proxy: 'us-ny', domain: 'us-ny.proxy.example.net:8080' }, null),
      change('proxyaccount_authorized_proxy', 'p["b"]', ['create'], null, { proxy: 'us-ny' }, { after_unknown: { domain: true, id: true } }),
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      'destroys proxy us-ny of the parent account, which proxyaccount_authorized_proxy.p["b"] declares too: the destroy removes it from the account; ' +
        'Terraform does not order this and what proxyaccount_authorized_proxy.p["b"] creates: if that runs first, this removes what it made while its state keeps it. ' +
        'If this is a rename, declare it with a moved block (moved { from = proxyaccount_authorized_proxy.p["a"] to = proxyaccount_authorized_proxy.p["b"] }): the object then stays, with no change',
    ]);
  });

  it('an instance destroyed while a resource left in place declares its key: forgotten with terraform state rm', () => {
    const r = review(
      change('proxyaccount_authorized_ip', 'e["old"]', ['delete'], ipOf('198.51.100.9', 'x'), null),
      same('proxyaccount_authorized_ip', 'kept', ipOf('198.51.100.9', 'x')),
    );
    expect(r.attention.map((a) => a.message.slice(a.message.indexOf('To stop')))).toEqual([
      `To stop managing it here only, forget this resource instead (terraform state rm 'proxyaccount_authorized_ip.e["old"]' before the apply: a removed block cannot name one instance of a resource)`,
    ]);
  });
});

describe("a list replaced onto another account's list (the moves reviewer's s15 and s18): advice fitting the cause", () => {
  const teamC = { id: 'team-c', username: 'team-c', entries: [{ ip: '198.51.100.1', label: 'runner1' }], removed_entries: [] };
  const held = same('proxyaccount_authorized_ips', 'this', teamC);
  const replaced = (extra: Record<string, unknown>) =>
    change(
      'proxyaccount_authorized_ips',
      'parent',
      ['delete', 'create'],
      teamC,
      { username: null, entries: [{ ip: '203.0.113.7', label: 'hq' }], removed_entries: [] },
      {
        after_unknown: { id: true },
        replace_paths: [['username']],
        ...extra,
      },
    );
  const advice = (r: ReturnType<typeof review>) =>
    r.attention
      .filter((a) => a.kind === 'managed_twice' && a.address === 'proxyaccount_authorized_ips.parent')
      .map((a) => a.message.slice(a.message.lastIndexOf('. ') + 2));

  it('imported with a wrong ID: check the import ID', () => {
    expect(advice(review(held, replaced({ importing: { id: 'team-c' } })))).toEqual(['Check the import ID: it names a list another resource manages']);
  });

  it('given by a state move: two resources hold one list', () => {
    expect(advice(review(held, replaced({})))).toEqual([
      'Two resources hold one list: undo the state move that gave it to this resource (terraform state mv it back)',
    ]);
  });

  it("a list the plan creates beside it takes the IP over, so an unordered removal leaves the account without it (the rerun's finding 1)", () => {
    const created = change('proxyaccount_authorized_ips', 'this', ['create'], null, { ...teamC, id: null }, { after_unknown: { id: true } });
    const item = review(created, replaced({})).attention.find((a) => a.kind === 'managed_twice' && a.address === 'proxyaccount_authorized_ips.parent');
    expect(item?.message).toContain(
      'Terraform does not order this and what proxyaccount_authorized_ips.this creates: a list takes over the IP the account holds, so if that runs first, ' +
        "this removes it while the list's state keeps it",
    );
    expect(item?.message).not.toContain('already exists');
  });

  it('entry resources declaring its entries: the hand-over advice', () => {
    const entry = same('proxyaccount_authorized_ip', 'runner1', ip('team-c', '198.51.100.1', 'runner1'));
    expect(advice(review(entry, replaced({})))).toEqual([
      'To hand its entries over to entry resources, forget the list instead (a removed block with lifecycle { destroy = false })',
    ]);
  });
});
