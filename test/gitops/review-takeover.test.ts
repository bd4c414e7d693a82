// An import or a state surgery that gives a resource ANOTHER account's object, which its code then
// replaces (the reviewer's finding, Terraform 1.11.4): `terraform state rm` of team-b's IP, then an
// import block bringing team-a's 198.51.100.1 into it. Terraform plans `-/+ b_ip must be replaced
// (imported from "team-a/198.51.100.1")`: the apply deletes team-a's IP, which a_ip still declares,
// and creates team-b's. Review must show the deletion under team-a, flag that another resource
// declares what it deletes, and name the account of the token a replacement deletes.
import { failsOn } from '../../src/gitops/review';
import { reviewMarkdown } from '../../src/gitops/review-render';
import { change, review } from './plan-changes';

const ip = (username: string | null, addr: string, label: string | null = null) => ({
  id: username === null ? addr : `${username}/${addr}`,
  ip: addr,
  label,
  username,
});
const token = (username: string, id: number, label: string) => ({ id: `${username}/${id}`, token_id: id, label, username, active: true, expires_at: null });
const same = (type: string, name: string, values: unknown) => change(type, name, ['no-op'], values, values);
/** The replacement Terraform plans for an import whose object the code changes: `-/+ ... (imported from ID)`. */
const takenOver = (type: string, name: string, before: unknown, after: unknown, id: string, forced: string[], unknown: Record<string, true>) =>
  change(type, name, ['delete', 'create'], before, after, {
    importing: { id },
    after_unknown: unknown,
    replace_paths: forced.map((a) => [a]),
  });

describe("an IP of team-a imported into team-b's resource, which replaces it", () => {
  const plan = () =>
    review(
      same('proxyaccount_authorized_ip', 'a_ip', ip('team-a', '198.51.100.1')),
      takenOver(
        'proxyaccount_authorized_ip',
        'b_ip',
        ip('team-a', '198.51.100.1'),
        { ip: '198.51.100.2', label: null, username: 'team-b' },
        'team-a/198.51.100.1',
        ['ip', 'username'],
        { id: true },
      ),
    );

  it('shows the deletion under team-a, and keeps the line under team-b', () => {
    expect(plan().accounts).toEqual([
      {
        account: 'team-a',
        changes: [
          {
            address: 'proxyaccount_authorized_ip.b_ip',
            type: 'proxyaccount_authorized_ip',
            action: 'replace',
            description: "IP 198.51.100.1 deleted: replaced by IP 198.51.100.2 in sub-account 'team-b'",
          },
        ],
      },
      {
        account: 'team-b',
        changes: [
          {
            address: 'proxyaccount_authorized_ip.b_ip',
            type: 'proxyaccount_authorized_ip',
            action: 'replace',
            description: "IP 198.51.100.1 → 198.51.100.2 replaced, forced by a change of ip and username, moved from sub-account 'team-a'",
          },
        ],
      },
    ]);
  });

  it('needs attention: it deletes an IP another resource of the plan still declares', () => {
    const r = plan();
    expect(r.attention).toEqual([
      {
        kind: 'managed_twice',
        address: 'proxyaccount_authorized_ip.b_ip',
        message:
          "replaces IP 198.51.100.1 of sub-account 'team-a', which proxyaccount_authorized_ip.a_ip declares too: this plan imports it into this resource, " +
          "and the replacement deletes it from the account to create IP 198.51.100.2 in sub-account 'team-b'; " +
          "proxyaccount_authorized_ip.a_ip's state keeps it, so the account goes without it until a later plan finds it gone and creates it again. " +
          'Check the import ID: it names an object another resource manages',
      },
    ]);
    expect(failsOn(r, 'attention')).toBe(true);
    expect(reviewMarkdown(r)).not.toContain('No change needs particular attention');
  });

  it('within one account too: the import ID names the IP a_ip declares', () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'a_ip', ip('team-a', '198.51.100.1')),
      takenOver(
        'proxyaccount_authorized_ip',
        'b_ip',
        ip('team-a', '198.51.100.1'),
        { ip: '198.51.100.2', label: null, username: 'team-a' },
        'team-a/198.51.100.1',
        ['ip'],
        { id: true },
      ),
    );
    expect(r.accounts.map((a) => a.account)).toEqual(['team-a']);
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([['managed_twice', 'proxyaccount_authorized_ip.b_ip']]);
    expect(r.attention[0]!.message).toMatch(/^replaces IP 198\.51\.100\.1 of sub-account 'team-a', which proxyaccount_authorized_ip\.a_ip declares too/);
  });

  it('compares keys as the provider does: a hostname ignoring case, a proxy by its forms', () => {
    const host = (username: string, domain: string) => ({ id: `${username}/${domain}`, domain, username });
    const r = review(
      same('proxyaccount_authorized_hostname', 'a_host', host('team-a', 'CI.Example.com')),
      takenOver(
        'proxyaccount_authorized_hostname',
        'b_host',
        host('team-a', 'ci.example.com'),
        { domain: 'b.example.com', username: 'team-b' },
        'team-a/ci.example.com',
        ['domain', 'username'],
        {
          id: true,
        },
      ),
      same('proxyaccount_authorized_proxy', 'ny', { id: 'us-ny.proxy.example.net:8080', proxy: 'us-ny', domain: 'us-ny.proxy.example.net:8080' }),
      change(
        'proxyaccount_authorized_proxy',
        'old_ny',
        ['delete'],
        { id: 'us-ny.proxy.example.net:8080', proxy: 'us-ny.proxy.example.net', domain: 'us-ny.proxy.example.net:8080' },
        null,
      ),
    );
    expect(r.attention.map((a) => [a.kind, a.address, a.message.split(',')[0]])).toEqual([
      ['managed_twice', 'proxyaccount_authorized_hostname.b_host', "replaces hostname ci.example.com of sub-account 'team-a'"],
      ['managed_twice', 'proxyaccount_authorized_proxy.old_ny', 'destroys proxy us-ny.proxy.example.net of the parent account'],
    ]);
    expect(r.attention[1]!.message).toBe(
      'destroys proxy us-ny.proxy.example.net of the parent account, which proxyaccount_authorized_proxy.ny declares too: the destroy removes it from the account; ' +
        "proxyaccount_authorized_proxy.ny's state keeps it, so the account goes without it until a later plan finds it gone and creates it again. " +
        'To stop managing it here only, forget this resource instead (a removed block with lifecycle { destroy = false })',
    );
  });

  it('only what another resource declares in that account, and not what the replacement declares again', () => {
    const r = review(
      same('proxyaccount_authorized_ip', 'a_ip', ip('team-a', '198.51.100.1')),
      same('proxyaccount_authorized_ip', 'b_ip', ip('team-b', '198.51.100.1')),
      // Another account's IP of that address: not the same object.
      change('proxyaccount_authorized_ip', 'c_ip', ['delete'], ip('team-c', '198.51.100.1'), null),
      // Replaced, and declared again by itself in the same account: the replacement creates it anew,
      // so its removal is not flagged; that it and a_ip both hold one object is.
      change(
        'proxyaccount_authorized_ip',
        'd_ip',
        ['delete', 'create'],
        ip('team-a', '198.51.100.1', 'x'),
        { ...ip('team-a', '198.51.100.1', 'x'), id: null },
        {
          after_unknown: { id: true },
        },
      ),
      // A resource renamed without a moved block: the new one's create and the old one's destroy are not ordered.
      change('proxyaccount_authorized_ip', 'e_new', ['create'], null, { ...ip('team-e', '198.51.100.5'), id: null }, { after_unknown: { id: true } }),
      change('proxyaccount_authorized_ip', 'e_old', ['delete'], ip('team-e', '198.51.100.5'), null),
    );
    expect(r.attention).toEqual([
      {
        kind: 'managed_twice',
        address: 'proxyaccount_authorized_ip.d_ip',
        message:
          "IP 198.51.100.1 of sub-account 'team-a' is declared both by this resource and by proxyaccount_authorized_ip.a_ip: " +
          'destroying either one removes it from the account while the other still declares it, and a difference between them (a label) flips at every apply. ' +
          'Keep one: forget the other (a removed block with lifecycle { destroy = false })',
      },
      {
        kind: 'managed_twice',
        address: 'proxyaccount_authorized_ip.e_old',
        message:
          "destroys IP 198.51.100.5 of sub-account 'team-e', which proxyaccount_authorized_ip.e_new declares too: the destroy removes it from the account; " +
          'Terraform does not order this and proxyaccount_authorized_ip.e_new\'s create: if that runs first, it fails ("already exists": the account holds each IP once) ' +
          'and the IP is absent from the account until a later apply creates it. ' +
          'If this is a rename, declare it with a moved block (moved { from = proxyaccount_authorized_ip.e_old to = proxyaccount_authorized_ip.e_new }): the object then stays, with no change',
      },
    ]);
  });
});

describe("a token of team-a imported into a token resource configured for team-b's", () => {
  const plan = () =>
    review(
      same('proxyaccount_bearer_token', 'a_tok', token('team-a', 8, 'a deploy')),
      takenOver(
        'proxyaccount_bearer_token',
        'b_tok',
        token('team-a', 8, 'a deploy'),
        { label: 'b deploy', username: 'team-b', active: true, expires_at: null },
        'team-a/8',
        ['label', 'username'],
        { id: true, token_id: true, token: true },
      ),
    );

  it('names the account of the token the replacement deletes, and the one of its new token', () => {
    const replaced = plan().attention.filter((a) => a.kind === 'token_replaced');
    expect(replaced.map((a) => a.message)).toEqual([
      "token 'a deploy' of sub-account 'team-a' is replaced by a new token in sub-account 'team-b': clients using it must be given the new one",
    ]);
    // Deleted, or replaced within its account, a token is named in its account, as before.
    const own = review(
      change('proxyaccount_bearer_token', 'gone', ['delete'], token('team-a', 9, 'old'), null),
      change(
        'proxyaccount_bearer_token',
        'relabel',
        ['delete', 'create'],
        token('team-a', 10, 'ci'),
        { label: 'ci-2', username: 'team-a', active: true, expires_at: null },
        {
          after_unknown: { id: true, token_id: true, token: true },
        },
      ),
    );
    expect(own.attention.map((a) => a.message)).toEqual([
      "token 'old' of sub-account 'team-a' is deleted: clients using it stop working",
      "token 'ci' of sub-account 'team-a' is replaced by a new token: clients using it must be given the new one",
    ]);
    expect(own.accounts.map((a) => a.account)).toEqual(['team-a']);
  });

  it('lists the deleted token, by its ID, under team-a, and flags that a_tok declares it', () => {
    const r = plan();
    expect(r.accounts.map((a) => [a.account, a.changes.map((c) => c.description)])).toEqual([
      ['team-a', ["token 8 'a deploy' deleted: replaced by token 'b deploy' in sub-account 'team-b'"]],
      ['team-b', ["token 'a deploy' → 'b deploy' replaced, forced by a change of label and username, moved from sub-account 'team-a'"]],
    ]);
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['token_replaced', 'proxyaccount_bearer_token.b_tok'],
      ['managed_twice', 'proxyaccount_bearer_token.b_tok'],
    ]);
    expect(r.attention[1]!.message).toMatch(
      /^replaces token 8 of sub-account 'team-a', which proxyaccount_bearer_token\.a_tok declares too: this plan imports it/,
    );
  });
});

describe('a list replaced onto another account', () => {
  const plan = () =>
    review(
      change(
        'proxyaccount_authorized_ips',
        'ci',
        ['delete', 'create'],
        { id: 'team-a', username: 'team-a', entries: [{ ip: '198.51.100.1', label: null }], removed_entries: [] },
        { username: 'team-b', entries: [{ ip: '198.51.100.1', label: null }], removed_entries: [] },
        { after_unknown: { id: true }, replace_paths: [['username']] },
      ),
      same('proxyaccount_authorized_ip', 'a_ip', ip('team-a', '198.51.100.1')),
    );

  it("removes the old account's entries, under that account, and its risk names that account", () => {
    const r = plan();
    expect(r.accounts.map((a) => [a.account, a.changes.map((c) => c.description)])).toEqual([
      ['team-a', ["IP list of 1 IP (198.51.100.1) deleted, its entries removed from the account: replaced by an IP list in sub-account 'team-b'"]],
      ['team-b', ["+1 IP (198.51.100.1), forced by a change of username, moved from sub-account 'team-a'"]],
    ]);
    expect(r.attention.map((a) => [a.kind, a.message.split(':')[0]])).toEqual([
      ['list_removes_entries', "the list of sub-account 'team-a' is replaced by one in sub-account 'team-b'"],
      [
        'managed_twice',
        "replaces the IP list of sub-account 'team-a' by one in sub-account 'team-b', removing IP 198.51.100.1, which proxyaccount_authorized_ip.a_ip declares too",
      ],
    ]);
  });
});
