// A list and entry resources handing objects over with `removed { lifecycle { destroy = false } }`
// (the migration guide's steps, and the slips a reviewer must see in them), in the shape of
// `terraform show -json` (Terraform 1.11), as the reviewer's "moves" scenario planned them: a
// forgotten list stays in the account, so an entry resource that creates one of its entries
// instead of importing it fails; a list whose entries are taken over only in part leaves the rest
// unmanaged, and review names which.
import { failsOn } from '../../src/gitops/review';
import { change, review } from './plan-changes';

const ip = (username: string | null, addr: string, label: string | null = null) => ({
  id: username === null ? addr : `${username}/${addr}`,
  ip: addr,
  label,
  username,
});
const imported = (name: string, values: { readonly id: string } & Record<string, unknown>, type = 'proxyaccount_authorized_ip') =>
  change(type, name, ['no-op'], values, values, { importing: { id: values.id } });
const created = (type: string, name: string, values: Record<string, unknown>, unknown: Record<string, true> = {}) =>
  change(type, name, ['create'], null, { ...values, id: null }, { after_unknown: { id: true, ...unknown } });
const forgottenList = (type: string, name: string, values: Record<string, unknown>) => change(type, name, ['forget'], values, null);
const runners = [
  { ip: '198.51.100.1', label: 'runner1' },
  { ip: '198.51.100.2', label: 'runner2' },
];
const line = (r: ReturnType<typeof review>, address: string) => r.accounts.flatMap((a) => a.changes).find((c) => c.address === address)?.description;

describe('a list forgotten while an entry resource creates one of its entries instead of importing it', () => {
  // The reviewer's s20: the import block for x2 forgotten.
  const plan = () =>
    review(
      forgottenList('proxyaccount_authorized_ips', 'this', { id: 'team-c', username: 'team-c', entries: runners, removed_entries: [] }),
      imported('r1', ip('team-c', '198.51.100.1', 'runner1')),
      created('proxyaccount_authorized_ip', 'x2', ip('team-c', '198.51.100.2', 'runner2')),
    );

  it('needs attention on the entry resource: its create fails on what the list leaves in the account, so import it', () => {
    const r = plan();
    expect(r.attention.filter((a) => a.kind === 'created_while_present')).toEqual([
      {
        kind: 'created_while_present',
        address: 'proxyaccount_authorized_ip.x2',
        message:
          "creates IP 198.51.100.2 of sub-account 'team-c', which the forgotten proxyaccount_authorized_ips.this leaves in the account (a removed block does not delete what it forgets): " +
          'the create fails, the account holding each IP once, so the apply ends in an error and the IP stays with nothing managing it. ' +
          'Import it into this resource instead of creating it (an import block with id = "team-c/198.51.100.2")',
      },
    ]);
    expect(failsOn(r, 'attention')).toBe(true);
  });

  it('does not call that entry handed over', () => {
    const description = line(plan(), 'proxyaccount_authorized_ips.this');
    expect(description).not.toMatch(/declared by [^;]*proxyaccount_authorized_ip\.x2/);
    expect(description).toContain('198.51.100.2 (runner2) stays authorized, unmanaged');
  });

  it("in the parent, the import ID is the IP alone; with no entry imported, the list's forget keeps its own item", () => {
    const r = review(
      forgottenList('proxyaccount_authorized_ips', 'parent', {
        id: '_self',
        username: null,
        entries: [{ ip: '203.0.113.9', label: null }],
        removed_entries: [],
      }),
      created('proxyaccount_authorized_ip', 'lab', ip(null, '203.0.113.9')),
    );
    expect(line(r, 'proxyaccount_authorized_ips.parent')).toBe('IP list no longer managed (it stays in the account)');
    // Whether the IP opens the parent is another question (below).
    const items = r.attention.filter((a) => a.kind !== 'parent_access_opened');
    expect(items.map((a) => [a.kind, a.address])).toEqual([
      ['no_longer_managed', 'proxyaccount_authorized_ips.parent'],
      ['created_while_present', 'proxyaccount_authorized_ip.lab'],
    ]);
    expect(items[1]!.message).toMatch(/^creates IP 203\.0\.113\.9 of the parent account, .*\(an import block with id = "203\.0\.113\.9"\)$/);
  });

  it("a hostname's create fails too (in another case, the API may keep the two spellings apart); a proxy's add succeeds", () => {
    const host = (domain: string) => ({ domain, username: 'team-c' });
    const r = review(
      forgottenList('proxyaccount_authorized_hostnames', 'hosts', {
        id: 'team-c',
        username: 'team-c',
        domains: ['ci.example.com', 'build.example.com'],
        removed_entries: [],
      }),
      created('proxyaccount_authorized_hostname', 'ci', host('ci.example.com')),
      created('proxyaccount_authorized_hostname', 'build', host('Build.example.com')),
    );
    expect(r.attention.filter((a) => a.kind === 'created_while_present').map((a) => [a.address, a.message])).toEqual([
      [
        'proxyaccount_authorized_hostname.ci',
        "creates hostname ci.example.com of sub-account 'team-c', which the forgotten proxyaccount_authorized_hostnames.hosts leaves in the account (a removed block does not delete what it forgets): " +
          'the create fails, the account holding each hostname once, so the apply ends in an error and the hostname stays with nothing managing it. ' +
          'Import it into this resource instead of creating it (an import block with id = "team-c/ci.example.com")',
      ],
      [
        'proxyaccount_authorized_hostname.build',
        "creates hostname Build.example.com of sub-account 'team-c', which the forgotten proxyaccount_authorized_hostnames.hosts leaves in the account as build.example.com (a removed block does not delete what it forgets): " +
          'the create fails where the API takes the two spellings for one hostname, or else adds Build.example.com beside it, and build.example.com stays authorized with nothing managing it. ' +
          'Import it into this resource instead of creating it (an import block with id = "team-c/Build.example.com")',
      ],
    ]);
    // A proxy's add succeeds, the API accepting a proxy already authorized: handed over.
    const proxies = review(
      forgottenList('proxyaccount_authorized_proxies', 'all', { id: '_self', proxies: ['us-ny.proxy.example.net:8080'], removed_entries: [] }),
      created('proxyaccount_authorized_proxy', 'ny', { proxy: 'us-ny' }, { domain: true }),
    );
    expect(proxies.attention.map((a) => a.kind)).toEqual(['no_longer_managed']);
    expect(proxies.attention[0]!.message).toMatch(/^the proxy list is forgotten as the state last recorded it/);
    expect(line(proxies, 'proxyaccount_authorized_proxies.all')).toBe(
      'proxy list no longer managed (it stays in the account), declared by proxyaccount_authorized_proxy.ny from now on',
    );
  });
});

describe('a list forgotten while entry resources take over only some of its entries', () => {
  // The reviewer's s3: a resource and an import written for runner1 only.
  const plan = () =>
    review(
      forgottenList('proxyaccount_authorized_ips', 'this', { id: 'team-b', username: 'team-b', entries: runners, removed_entries: [] }),
      imported('runner1', ip('team-b', '198.51.100.1', 'runner1')),
    );

  it('names the entries taken over, with what declares them, and the ones left unmanaged', () => {
    expect(line(plan(), 'proxyaccount_authorized_ips.this')).toBe(
      'IP list no longer managed (it stays in the account), 198.51.100.1 (runner1) declared by proxyaccount_authorized_ip.runner1 from now on; ' +
        '198.51.100.2 (runner2) stays authorized, unmanaged',
    );
  });

  it('needs attention for the entries left only: drift runs report those as unmanaged, and no other', () => {
    expect(plan().attention).toEqual([
      {
        kind: 'no_longer_managed',
        address: 'proxyaccount_authorized_ips.this',
        message:
          "the IP list of sub-account 'team-b' is no longer managed by Terraform but stays in the account, and no resource of the plan takes over IP 198.51.100.2 (runner2): " +
          "it stays authorized with nothing managing it, and drift runs report it as unmanaged (the list's other entries are declared by entry resources from now on, as its change line says). " +
          'The list is forgotten as the state last recorded it: an IP added to the account since stays too, and drift reports it as well',
      },
    ]);
  });

  it('names every entry left, in the plural', () => {
    const r = review(
      forgottenList('proxyaccount_authorized_hostnames', 'hosts', {
        id: '_self',
        username: null,
        domains: ['a.example.com', 'B.example.com', 'c.example.com'],
        removed_entries: [],
      }),
      imported('c', { id: 'c.example.com', domain: 'c.example.com', username: null }, 'proxyaccount_authorized_hostname'),
    );
    expect(line(r, 'proxyaccount_authorized_hostnames.hosts')).toBe(
      'hostname list no longer managed (it stays in the account), c.example.com declared by proxyaccount_authorized_hostname.c from now on; ' +
        'a.example.com, B.example.com stay authorized, unmanaged',
    );
    expect(r.attention.map((a) => a.message)).toEqual([
      'the hostname list of the parent account is no longer managed by Terraform but stays in the account, and no resource of the plan takes over hostnames a.example.com, B.example.com: ' +
        "they stay authorized with nothing managing them, and drift runs report them as unmanaged (the list's other entries are declared by entry resources from now on, as its change line says). " +
        'The list is forgotten as the state last recorded it: a hostname added to the account since stays too, and drift reports it as well',
    ]);
  });

  it("not in a sub-account the plan deletes: the API deletes the list's entries with it", () => {
    const r = review(
      change('proxyaccount_sub_account', 'team_b', ['delete'], { id: 'team-b', username: 'team-b', active: true, monthly_limit: 0, total_limit: 0 }, null),
      forgottenList('proxyaccount_authorized_ips', 'this', { id: 'team-b', username: 'team-b', entries: runners, removed_entries: [] }),
      imported('runner1', ip('team-b', '198.51.100.1', 'runner1')),
    );
    expect(line(r, 'proxyaccount_authorized_ips.this')).toBe('IP list no longer managed (deleted with its sub-account, which this plan deletes)');
    expect(r.attention.find((a) => a.address === 'proxyaccount_authorized_ips.this')?.message).toMatch(
      /^the IP list of sub-account 'team-b' is no longer managed by Terraform, and does not stay in the account: /,
    );
  });
});

describe("the parent's entries handed over to a list the plan creates", () => {
  // The reviewer's s17: proxyaccount_authorized_ip.office (for_each) forgotten, a new list declaring its IPs.
  const office = (key: string, addr: string) => change('proxyaccount_authorized_ip', `office["${key}"]`, ['forget'], ip(null, addr, key), null);
  const parentList = (entries: Array<{ ip: string; label: string | null }>) =>
    change('proxyaccount_authorized_ips', 'parent', ['create'], null, { username: null, entries, removed_entries: [] }, { after_unknown: { id: true } });
  const hq = { ip: '203.0.113.7', label: 'hq' };
  const branch = { ip: '203.0.113.8', label: 'branch' };

  it('does not say the list opens the parent to IPs that had its access already', () => {
    const r = review(office('branch', '203.0.113.8'), office('hq', '203.0.113.7'), parentList([hq, branch]));
    expect(r.attention).toEqual([]);
    expect(failsOn(r, 'attention')).toBe(false);
    expect(line(r, 'proxyaccount_authorized_ip.office["hq"]')).toBe(
      'IP 203.0.113.7 (hq) no longer managed (it stays in the account), declared by proxyaccount_authorized_ips.parent from now on',
    );
  });

  it('names the IPs the list does add to the parent, and only those', () => {
    const r = review(office('hq', '203.0.113.7'), parentList([hq, branch, { ip: '203.0.113.9', label: 'lab' }]));
    expect(r.attention.map((a) => [a.kind, a.address, a.message])).toEqual([
      [
        'parent_access_opened',
        'proxyaccount_authorized_ips.parent',
        "2 IPs (203.0.113.8 (branch), 203.0.113.9 (lab)) may use the parent account's proxies without credentials",
      ],
    ]);
    // An entry forgotten in a sub-account is another account's IP: the parent gets its access new.
    const other = review(change('proxyaccount_authorized_ip', 'alice_hq', ['forget'], ip('alice', '203.0.113.7'), null), parentList([hq]));
    expect(other.attention.filter((a) => a.kind === 'parent_access_opened').map((a) => a.message)).toEqual([
      "1 IP (203.0.113.7 (hq)) may use the parent account's proxies without credentials",
    ]);
  });

  it('nor an entry resource created for an IP a forgotten list of the parent holds', () => {
    const r = review(
      forgottenList('proxyaccount_authorized_ips', 'parent', {
        id: '_self',
        username: null,
        entries: [{ ip: '203.0.113.9', label: null }],
        removed_entries: [],
      }),
      created('proxyaccount_authorized_ip', 'lab', ip(null, '203.0.113.9')),
    );
    expect(r.attention.map((a) => a.kind)).toEqual(['no_longer_managed', 'created_while_present']);
  });
});

describe('an entry resource forgotten while another entry resource declares its key (a rename with removed and import)', () => {
  const forgotten = change('proxyaccount_authorized_ip', 'old', ['forget'], ip('team-c', '198.51.100.7', 'office'), null);

  it('imported: handed over, nothing left unmanaged', () => {
    const r = review(forgotten, imported('new', ip('team-c', '198.51.100.7', 'office')));
    expect(line(r, 'proxyaccount_authorized_ip.old')).toMatch(/, declared by proxyaccount_authorized_ip\.new from now on$/);
    expect(r.attention).toEqual([]);
  });

  it('created: its create fails on what the removed block leaves in the account, so import it', () => {
    const r = review(forgotten, created('proxyaccount_authorized_ip', 'new', ip('team-c', '198.51.100.7', 'office')));
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['no_longer_managed', 'proxyaccount_authorized_ip.old'],
      ['created_while_present', 'proxyaccount_authorized_ip.new'],
    ]);
    expect(r.attention[1]!.message).toMatch(
      /^creates IP 198\.51\.100\.7 of sub-account 'team-c', which the forgotten proxyaccount_authorized_ip\.old leaves in the account .*id = "team-c\/198\.51\.100\.7"\)$/,
    );
  });
});
