import * as fs from 'node:fs';
import * as path from 'node:path';
import { Fn, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import { parse as parseYaml } from 'yaml';
import { AccessListMode, AccountRoster, AccountRosterProps, RosterDefinition, SubAccount, l1 } from '../src';
import { AROUND_REFERENCE, aroundReference, bodies, synth, templateLiteral, templateValue, thrown, violationLines } from './helpers';

const fixture = (name: string): string => fs.readFileSync(path.join(__dirname, 'fixtures', name), 'utf8');
const yamlRoster = (): RosterDefinition => parseYaml(fixture('roster.yaml')) as RosterDefinition;
const jsonRoster = (): RosterDefinition => JSON.parse(fixture('roster.json')) as RosterDefinition;

describe('AccountRoster', () => {
  test('builds one SubAccount per member, id = username, with team defaults and member overrides', () => {
    let roster: AccountRoster | undefined;
    const out = synth((scope) => {
      roster = new AccountRoster(scope, 'Roster', { roster: yamlRoster(), source: 'roster.yaml' });
    });
    expect(roster?.subAccounts.map((s) => s.node.id)).toEqual(['alice.data', 'bob.data', 'crawler-1']);
    expect(roster?.teamNames).toEqual(['data', 'crawlers']);
    expect(roster?.teamMembers('data').map((s) => s.username)).toEqual(['alice.data', 'bob.data']);
    expect(roster?.subAccount('crawler-1')).toBeInstanceOf(SubAccount);
    expect(roster?.subAccount('nobody')).toBeUndefined();

    // alice overrides the monthly limit and inherits the total; bob inherits both.
    expect(out.raw).toHaveResourceWithProperties(l1.subAccount.SubAccount, {
      username: 'alice.data', first_name: 'Alice', email: 'alice@example.com', monthly_limit: 100, total_limit: 500,
    });
    expect(out.raw).toHaveResourceWithProperties(l1.subAccount.SubAccount, {
      username: 'bob.data', monthly_limit: 50, total_limit: 500, active: false,
    });
    const crawler = bodies(out, 'proxyaccount_sub_account').find((b) => b.username === 'crawler-1');
    expect(crawler).toEqual({ username: 'crawler-1' });
  });

  test('merges team and member access lists; a member entry for the same IP wins', () => {
    let roster: AccountRoster | undefined;
    synth((scope) => {
      roster = new AccountRoster(scope, 'Roster', { roster: yamlRoster() });
    });
    const [alice, bob, crawler] = roster?.subAccounts ?? [];
    expect(alice.ips).toEqual([{ ip: '203.0.113.7', label: 'office' }, { ip: '198.51.100.20', label: 'home' }]);
    expect(bob.ips).toEqual([{ ip: '203.0.113.7', label: 'office-desk' }]);
    expect(crawler.hostnames).toEqual(['crawl.example.com', 'extra.example.com']);
    expect(alice.accessListMode).toBe(AccessListMode.ADDITIVE);
    expect(crawler.accessListMode).toBe(AccessListMode.AUTHORITATIVE);
    expect(alice.tokenLabels).toEqual(['ci']);
    expect(crawler.tokenLabels).toEqual(['runner']);
  });

  test('the YAML and the JSON form of the same roster synthesize the same Terraform', () => {
    const fromYaml = synth((scope) => new AccountRoster(scope, 'Roster', { roster: yamlRoster() }));
    const fromJson = synth((scope) => new AccountRoster(scope, 'Roster', { roster: jsonRoster() }));
    expect(fromYaml.raw).toEqual(fromJson.raw);
    expect(bodies(fromJson, 'proxyaccount_authorized_ip')).toHaveLength(3);
    expect(bodies(fromJson, 'proxyaccount_authorized_hostnames')).toEqual([
      { username: expect.stringMatching(/^\$\{proxyaccount_sub_account\.Roster_crawler-1_[0-9A-F]{8}\.username\}$/),
        domains: ['crawl.example.com', 'extra.example.com'] },
    ]);
    expect(bodies(fromJson, 'proxyaccount_bearer_token').map((b) => b.label).sort()).toEqual(['ci', 'runner']);
  });

  test('moving a member to another team keeps every resource address', () => {
    const before = yamlRoster();
    const moved: RosterDefinition = {
      teams: [
        { ...before.teams[0], members: [before.teams[0].members[0]] },
        { ...before.teams[1], defaults: { ...before.teams[0].defaults }, members: [before.teams[0].members[1], ...before.teams[1].members] },
      ],
    };
    const addresses = (out: ReturnType<typeof synth>): string[] =>
      Object.keys(out.resource.proxyaccount_sub_account).sort();
    expect(addresses(synth((s) => new AccountRoster(s, 'Roster', { roster: moved }))))
      .toEqual(addresses(synth((s) => new AccountRoster(s, 'Roster', { roster: before }))));
  });

  test('passwords come from props, keyed by username, never from the file', () => {
    const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster: jsonRoster(), passwords: { 'bob.data': 's3cret-pass' } }));
    expect(out.raw).toHaveResourceWithProperties(l1.subAccount.SubAccount, { username: 'bob.data', password: 's3cret-pass' });
    expect(bodies(out, 'proxyaccount_sub_account').filter((b) => 'password' in b)).toHaveLength(1);
  });

  test('passwords are literal text, sent exactly as given, their length counted as given', () => {
    const passwords = { 'alice.data': 'S3cr%{et-Pass', 'bob.data': 'Pa$${ss-word1' };
    const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster: jsonRoster(), passwords }));
    const password = (username: string): string => bodies(out, 'proxyaccount_sub_account').find((b) => b.username === username)?.password as string;
    expect(templateLiteral(password('alice.data'))).toBe('S3cr%{et-Pass');
    expect(templateLiteral(password('bob.data'))).toBe('Pa$${ss-word1');
    // 128 characters as given pass (UTF-16 would count 256); 129 do not, and are never shown.
    synth((scope) => new AccountRoster(scope, 'Roster', { roster: jsonRoster(), passwords: { 'bob.data': '🔑'.repeat(128) } }));
    const err = thrown(() => Testing.synthScope((scope) => new AccountRoster(scope, 'Roster', { roster: jsonRoster(), passwords: { 'bob.data': `$\${${'s'.repeat(126)}` } })));
    expect(violationLines(err)).toEqual(['passwords["bob.data"]: must be at most 128 characters (got 129)']);
    expect(err.message).not.toContain('ssss');
  });

  test('passwords that are no object of passwords by username (plain JavaScript: null, a list, a string) are refused, never shown', () => {
    // Taken for "no passwords", `null` planned every member that had a password for replacement:
    // deleted with its usage history, IPs, hostnames and tokens.
    const stack = new TerraformStack(Testing.app(), 'stack');
    const roster = { teams: [{ name: 't', members: [{ username: 'carol' }] }] };
    const given: Array<[unknown, string]> = [[null, 'null'], [['Zq7-pw'], 'a list'], ['Zq7-pw', 'a string'], [7, 'a number'], [Token.asAny({ carol: 'Zq7-pw' }), 'a token']];
    given.forEach(([passwords, kind], i) => {
      const err = thrown(() => new AccountRoster(stack, `Roster${i}`, { roster, passwords } as unknown as AccountRosterProps));
      expect(err.message.split('\n')[0]).toBe(`AccountRoster 'stack/Roster${i}' (roster) is invalid (1 problem):`);
      expect(violationLines(err)).toEqual([`passwords: must be an object mapping usernames to passwords, or left out for none (got ${kind})`]);
      expect(err.message).not.toContain('Zq7');
    });
    expect(Testing.synth(stack)).not.toContain('proxyaccount_sub_account');
  });

  test('a password holding an expression is checked at synth as SubAccount\'s, naming the member, never shown', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const secret = new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true }).stringValue;
    const roster = { teams: [{ name: 't', members: [{ username: 'carol' }, { username: 'dave' }] }] };
    new AccountRoster(stack, 'Roster', { roster, passwords: { carol: Fn.join('', ['Zq7%%{', secret]), dave: `Pa%{${Fn.lower(secret)}` } });
    const err = thrown(() => Testing.synth(stack));
    expect(err.message).toContain("SubAccount 'stack/Roster/carol' is invalid (1 problem):\n");
    expect(violationLines(err)).toEqual([expect.stringMatching(/^password: a Terraform expression in it \(the arguments of an Fn\.\* call, say\) holds text with a backslash/)]);
    expect(err.message).not.toContain('Zq7');
  });

  test('a password with an optional value left out of a list in its expression is refused, naming the member, never shown', () => {
    // cdktf wrote `[undefined, secret]` as `[]`: the account would have got `Zq7-tail` alone.
    const stack = new TerraformStack(Testing.app(), 'stack');
    const secret = new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true }).stringValue;
    const unset: { prefix?: string } = {};
    const roster = { teams: [{ name: 't', members: [{ username: 'carol' }] }] };
    new AccountRoster(stack, 'Roster', { roster, passwords: { carol: Fn.join('-', Fn.concat([[unset.prefix, secret], ['Zq7-tail']])) } });
    const err = thrown(() => Testing.synth(stack));
    expect(err.message).toContain("SubAccount 'stack/Roster/carol' is invalid (1 problem):\n");
    expect(violationLines(err)).toEqual([expect.stringMatching(/^password: a Terraform expression in it holds undefined or null \(an optional setting left out, say\) as an item of a list/)]);
    expect(err.message).not.toContain('Zq7');
  });

  test('lists every violation with its path in the data, from YAML', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const err = thrown(() => new AccountRoster(stack, 'Roster', {
      roster: parseYaml(fixture('invalid-roster.yaml')) as RosterDefinition,
      passwords: { ghost: 'x' },
      source: 'invalid-roster.yaml',
    }));
    expect(err.message).toMatch(/^AccountRoster 'stack\/Roster' \(invalid-roster\.yaml\) is invalid \(12 problems\):/);
    expect(violationLines(err)).toEqual([
      "accessList: must be one of 'additive', 'authoritative' (got \"sometimes\")",
      expect.stringMatching(/^teams\[0\]\.defaults: unknown key "colour" \(allowed: monthlyLimitGb, /),
      expect.stringMatching(/^teams\[0\]\.defaults\.monthlyLimitGb: must be a whole number .*\(got -5\)$/),
      expect.stringMatching(/^teams\[0\]\.members\[0\]\.tokens\[0\]\.expiresAt: must be a calendar date .*"2027-13-01"/),
      'teams[0].members[1].username: "Alice.Data" is already a member at teams[0].members[0]',
      expect.stringMatching(/^teams\[0\]\.members\[1\]\.email: must be an e-mail address/),
      'teams[1].name: team "data" is already defined at teams[0]',
      expect.stringMatching(/^teams\[1\]\.members\[0\]\.username: is required/),
      'teams[1].members[0].ips[0]: must be an IP entry ({ ip, label }), an object (got "203.0.113.7")',
      'teams[2].name: is required: a non-empty string (got undefined)',
      'teams[2].members: must be a list (got "not-a-list")',
      'passwords["ghost"]: names no member of the roster',
    ]);
    expect(stack.node.findAll().some((c) => c instanceof SubAccount)).toBe(false);
  });

  test('validate() reports the same violations without building anything', () => {
    const data: unknown = parseYaml(fixture('invalid-roster.yaml'));
    const violations = AccountRoster.validate(data);
    expect(violations).toHaveLength(11);
    expect(violations[0]).toMatch(/^accessList: /);
    expect(AccountRoster.validate(parseYaml(fixture('roster.yaml')))).toEqual([]);
    expect(AccountRoster.validate(JSON.parse(fixture('roster.json')))).toEqual([]);
    expect(AccountRoster.validate(null)).toEqual(['must be the roster, an object (got null)']);
    expect(AccountRoster.validate({})).toEqual(['teams: must be a list (got nothing)']);
  });

  test('a YAML 1.1 parser turning expiresAt into a Date still gives the date as written', () => {
    const data = jsonRoster();
    const withDate = JSON.parse(JSON.stringify(data)) as { teams: { members: { tokens?: { expiresAt?: unknown }[] }[] }[] };
    const token = withDate.teams[0].members[0].tokens?.[0];
    if (token) token.expiresAt = new Date(Date.UTC(2027, 5, 30));
    const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster: withDate as unknown as RosterDefinition }));
    expect(out.raw).toHaveResourceWithProperties(l1.bearerToken.BearerToken, { label: 'ci', expires_at: '2027-06-30' });
  });

  describe('every string of the file is a literal, never a Terraform expression', () => {
    const EXPRESSION = '${file("/proc/self/environ")}';
    const TEMPLATE = '%{ if true }on%{ endif }';
    const written: RosterDefinition = {
      parent: { ips: [{ ip: '198.51.100.9', label: EXPRESSION }], tokens: [{ label: TEMPLATE }] },
      teams: [{
        name: 'ops',
        defaults: { ips: [{ ip: '203.0.113.10', label: `office ${TEMPLATE}` }] },
        members: [{
          username: 'ada',
          firstName: '${upper("x")}',
          lastName: '$${kept}',
          email: '${a}@example.com',
          tokens: [{ label: `ci ${EXPRESSION}` }],
        }],
      }],
    };

    test('`${` and `%{` are written as Terraform\'s escapes `$${` and `%%{`, so the live value is the text as written', () => {
      let roster: AccountRoster | undefined;
      const out = synth((scope) => {
        roster = new AccountRoster(scope, 'Roster', { roster: written });
      });
      expect(bodies(out, 'proxyaccount_sub_account')).toEqual([{
        username: 'ada', first_name: '$${upper("x")}', last_name: '$$${kept}', email: '$${a}@example.com',
      }]);
      expect(bodies(out, 'proxyaccount_authorized_ip').map((b) => b.label).sort()).toEqual([
        '$${file("/proc/self/environ")}', 'office %%{ if true }on%%{ endif }',
      ]);
      expect(bodies(out, 'proxyaccount_bearer_token').map((b) => b.label).sort()).toEqual([
        '%%{ if true }on%%{ endif }', 'ci $${file("/proc/self/environ")}',
      ]);
      // No string of the stack evaluates anything but the references the constructs make.
      const expressions = out.raw.match(/(?<![$%])[$%]\{[^}]*\}/g) ?? [];
      expect(expressions.every((e) => /^\$\{proxyaccount_sub_account\.Roster_ada_[0-9A-F]{8}\.username\}$/.test(e))).toBe(true);
      expect(roster?.subAccount('ada')?.tokenLabels).toEqual(['ci $${file("/proc/self/environ")}']);
    });

    test('lengths are counted as Terraform makes the literal: a 100-character label with `${` stays valid', () => {
      const label = `\${${'x'.repeat(97)}}`;
      expect(Array.from(label)).toHaveLength(100);
      const roster = { teams: [{ name: 't', members: [{ username: 'ada', ips: [{ ip: '203.0.113.7', label }], tokens: [{ label }] }] }] };
      expect(AccountRoster.validate(roster)).toEqual([]);
      const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster }));
      expect(bodies(out, 'proxyaccount_authorized_ip')[0]?.label).toBe(`$${label}`);
    });

    test('a 100-character label with `$` before a number reference stays valid once written with `${"$"}`', () => {
      // The SubAccount a member becomes checks the written label again, where `${"$"}` is the `$`.
      const out = synth((scope) => {
        const pin = `${new TerraformVariable(scope, 'pin', { type: 'number' }).numberValue}`;
        const label = `${'x'.repeat(99 - pin.length)}$${pin}`;
        expect(Array.from(label)).toHaveLength(100);
        const roster = { teams: [{ name: 't', members: [{ username: 'ada', ips: [{ ip: '203.0.113.7', label }] }] }] };
        new AccountRoster(scope, 'Roster', { roster, allowReferences: true });
      });
      const label = bodies(out, 'proxyaccount_authorized_ip')[0]?.label as string;
      expect(label).toMatch(/\$\{"\$"\}\$\{var\.pin\}$/);
      expect(templateValue(label, { 'var.pin': '4711' })).toMatch(/^x+\$4711$/);
    });

    test('with allowReferences, references that code put into the roster data stay references; the text around them is literal', () => {
      const out = synth((scope) => {
        const office = new TerraformVariable(scope, 'office', { type: 'string' });
        new AccountRoster(scope, 'Roster', {
          allowReferences: true,
          roster: { teams: [{ name: 't', members: [{ username: 'ada', firstName: office.stringValue, ips: [{ ip: '203.0.113.7', label: `\${x} ${office.stringValue}` }] }] }] },
        });
      });
      expect(bodies(out, 'proxyaccount_sub_account')).toEqual([{ username: 'ada', first_name: '${var.office}' }]);
      expect(templateValue(bodies(out, 'proxyaccount_authorized_ip')[0]?.label as string, { 'var.office': 'HQ' })).toBe('${x} HQ');
    });

    test('with allowReferences, a `$` or `%` just before a reference stays text, and the reference is still evaluated', () => {
      // `'x$' + reference` was written `x$${var.office}`, Terraform's escape: the account got the
      // text `x${var.office}`. And the synth reads the `${` of an escape `$${` as the start of an
      // expression, so a reference after one lost its braces: `a${` and a reference became `a${var.office`.
      const text = (i: number, office: string): string => aroundReference(AROUND_REFERENCE[i] ?? '', office);
      const out = synth((scope) => {
        const office = new TerraformVariable(scope, 'office', { type: 'string' }).stringValue;
        const members = AROUND_REFERENCE.map((_, i) => ({
          username: `m${i}`, firstName: text(i, office), lastName: text(i, office), email: text(i, office), ips: [{ ip: '203.0.113.7', label: text(i, office) }],
        }));
        const passwords = Object.fromEntries(AROUND_REFERENCE.map((_, i) => [`m${i}`, text(i, office)]));
        new AccountRoster(scope, 'Roster', { allowReferences: true, roster: { teams: [{ name: 't', members }] }, passwords });
      });
      const value = (json: unknown): string => templateValue(json as string, { 'var.office': 'HQ' });
      const accounts = bodies(out, 'proxyaccount_sub_account').map((b) => ({
        username: b.username, firstName: value(b.first_name), lastName: value(b.last_name), email: value(b.email), password: value(b.password),
      }));
      const expected = AROUND_REFERENCE.map((_, i) => ({ username: `m${i}`, firstName: text(i, 'HQ'), lastName: text(i, 'HQ'), email: text(i, 'HQ'), password: text(i, 'HQ') }));
      expect(accounts).toEqual(expect.arrayContaining(expected));
      expect(accounts).toHaveLength(expected.length);
      const labels = bodies(out, 'proxyaccount_authorized_ip').map((b) => value(b.label));
      expect(labels.sort()).toEqual(AROUND_REFERENCE.map((_, i) => text(i, 'HQ')).sort());
    });
  });

  describe('roster data holds no reference unless code allows it (allowReferences)', () => {
    const WHY = "which the synth would replace by another resource's value (a bearer token's, say): roster data is " +
      'literal, so references must come from code, with the AccountRoster prop allowReferences, or be declared in code';
    const LIST_TOKEN = 'is a list token (a list known only at apply), which a roster does not take: list the values (with ' +
      'allowReferences each may be a reference), or declare the account in code with a SubAccount or ParentAccess';

    /** A stack where ada has a bearer token, and the markers cdktf gives its value and two variables. */
    function stackWithSecrets(): { stack: TerraformStack; secret: string; limit: number; hosts: string[] } {
      const stack = new TerraformStack(Testing.app(), 'stack');
      new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
      const ada = new SubAccount(stack, 'Ada', { username: 'ada', tokens: [{ label: 'laptop' }] });
      const secret = ada.token('laptop')?.token ?? '';
      expect(secret).toMatch(/^\$\{TfToken\[TOKEN\.\d+\]\}$/);
      const limit = new TerraformVariable(stack, 'limit', { type: 'number' }).numberValue;
      const hosts = new TerraformVariable(stack, 'hosts', { type: 'list(string)' }).listValue;
      return { stack, secret, limit, hosts };
    }

    test('a file spelling token markers is refused by validate() and by the synth, naming each value', () => {
      const { stack, secret, limit, hosts } = stackWithSecrets();
      // The text of a roster file, as the example app reads it: every marker in it is plain text,
      // here the markers of ada's token value, a number and a list.
      const text = JSON.stringify({
        accessList: 'authoritative',
        parent: { tokens: [{ label: `ops ${secret}` }] },
        teams: [{ name: 't', members: [{
          username: 'eve',
          monthlyLimitGb: limit,
          ips: [{ ip: '203.0.113.9', label: secret }, { ip: secret }, { ip: '203.0.113.10', label: `office ${limit}` }],
          hostnames: hosts,
        }] }],
      });
      const data = JSON.parse(text) as unknown;
      const show = (value: unknown): string => JSON.stringify(value);
      const expected = [
        `parent.tokens[0].label: holds a token marker (got ${show(`ops ${secret}`)}), ${WHY}`,
        `teams[0].members[0].monthlyLimitGb: holds a token marker (got ${limit}), ${WHY}`,
        `teams[0].members[0].ips[0].label: holds a token marker (got ${show(secret)}), ${WHY}`,
        `teams[0].members[0].ips[1].ip: holds a token marker (got ${show(secret)}), ${WHY}`,
        `teams[0].members[0].ips[2].label: holds a token marker (got ${show(`office ${limit}`)}), ${WHY}`,
        `teams[0].members[0].hostnames[0]: holds a token marker (got ${show(hosts[0])}), ${WHY}`,
        // The checks of each value still run: a token label names a resource, and a list token is
        // refused as a list (judging its marker as a hostname would say nothing useful).
        'parent.tokens[0].label: must be a plain string: it names the token resource',
        `teams[0].members[0].hostnames: ${LIST_TOKEN}`,
      ];
      expect(AccountRoster.validate(data)).toEqual(expected);
      const err = thrown(() => new AccountRoster(stack, 'Roster', { roster: data as RosterDefinition, source: 'roster.json' }));
      expect(err.message).toMatch(/^AccountRoster 'stack\/Roster' \(roster\.json\) is invalid \(8 problems\):/);
      expect(violationLines(err)).toEqual(expected);
      expect(stack.node.findAll().filter((c) => c instanceof SubAccount).map((c) => c.node.path)).toEqual(['stack/Ada']);
    });

    test('a list token is refused as a list, even with allowReferences: its values cannot be merged or checked', () => {
      const { stack, hosts } = stackWithSecrets();
      const roster: RosterDefinition = { parent: { proxies: hosts }, teams: [{ name: 't', defaults: { hostnames: hosts }, members: [{ username: 'bob', hostnames: hosts }] }] };
      const expected = [`parent.proxies: ${LIST_TOKEN}`, `teams[0].defaults.hostnames: ${LIST_TOKEN}`, `teams[0].members[0].hostnames: ${LIST_TOKEN}`];
      expect(AccountRoster.validate(roster, { allowReferences: true })).toEqual(expected);
      expect(violationLines(thrown(() => new AccountRoster(stack, 'Roster', { roster, allowReferences: true })))).toEqual(expected);
    });

    test('references put in by code are refused too, unless allowReferences is set', () => {
      const { stack } = stackWithSecrets();
      const office = new TerraformVariable(stack, 'office', { type: 'string' }).stringValue;
      const roster: RosterDefinition = { teams: [{ name: 't', members: [{ username: 'bob', firstName: office }] }] };
      expect(AccountRoster.validate(roster)).toEqual([`teams[0].members[0].firstName: holds a token marker (got ${JSON.stringify(office)}), ${WHY}`]);
      expect(AccountRoster.validate(roster, { allowReferences: true })).toEqual([]);
      new AccountRoster(stack, 'Roster', { roster, allowReferences: true });
      const out = JSON.parse(Testing.synth(stack)) as { resource: Record<string, Record<string, Record<string, unknown>>> };
      expect(Object.values(out.resource.proxyaccount_sub_account).find((b) => b.username === 'bob')).toEqual({ username: 'bob', first_name: '${var.office}' });
    });

    test('text that only looks like a marker, or a large number, is no reference', () => {
      const roster = { teams: [{ name: 't', members: [{
        username: 'ada', firstName: '{TfToken[x]}', lastName: '$${TfToken}', monthlyLimitGb: 999_999_999_999_999,
        ips: [{ ip: '203.0.113.7', label: 'x 1e5 -2.5e+300' }],
      }] }] };
      expect(AccountRoster.validate(roster)).toEqual([]);
      const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster }));
      expect(bodies(out, 'proxyaccount_authorized_ip')[0]?.label).toBe('x 1e5 -2.5e+300');
      expect(bodies(out, 'proxyaccount_sub_account')[0]).toMatchObject({ first_name: '{TfToken[x]}', last_name: '$$${TfToken}' });
    });
  });

  describe("the parent's proxy list", () => {
    const proxyLists = (roster: RosterDefinition): unknown[] =>
      bodies(synth((scope) => new AccountRoster(scope, 'Roster', { roster })), 'proxyaccount_authorized_proxies');

    test('authoritative, `proxies` written (even empty): owned, so proxies authorized elsewhere are drift and removed; not written: left alone', () => {
      expect(proxyLists({ accessList: AccessListMode.AUTHORITATIVE, parent: { proxies: ['us-ny'] }, teams: [] })).toEqual([{ proxies: ['us-ny'] }]);
      // A roster that removes its last proxy but keeps the key keeps the list, now empty: the
      // same resource (no destroy), and a proxy added on the dashboard is still seen.
      expect(proxyLists({ accessList: AccessListMode.AUTHORITATIVE, parent: { proxies: [] }, teams: [] })).toEqual([{ proxies: [] }]);
      expect(proxyLists({ accessList: AccessListMode.AUTHORITATIVE, parent: { ips: [{ ip: '198.51.100.9' }] }, teams: [] })).toEqual([]);
      expect(proxyLists({ parent: { accessList: AccessListMode.AUTHORITATIVE, proxies: [] }, teams: [] })).toEqual([{ proxies: [] }]);
      expect(proxyLists({ accessList: AccessListMode.ADDITIVE, parent: { proxies: [] }, teams: [] })).toEqual([]);
    });

    test('the list keeps its address when its last proxy goes', () => {
      const address = (proxies: string[]): string[] => Object.keys(synth((scope) => new AccountRoster(scope, 'Roster', {
        roster: { accessList: AccessListMode.AUTHORITATIVE, parent: { proxies }, teams: [] },
      })).resource.proxyaccount_authorized_proxies ?? {});
      expect(address([])).toEqual(address(['us-ny']));
      expect(address([])).toHaveLength(1);
    });
  });

  test("limits above the provider's maximum are refused by validate() and the synth, naming it", () => {
    const data = { teams: [{ name: 't', defaults: { totalLimitGb: 1e15 }, members: [{ username: 'big', monthlyLimitGb: 1_000_000_000_000_000 }, { username: 'max', monthlyLimitGb: 999_999_999_999_999 }] }] };
    const expected = [
      'teams[0].defaults.totalLimitGb: must be a whole number of GB from 0 to 999999999999999, 0 meaning unlimited (got 1000000000000000)',
      'teams[0].members[0].monthlyLimitGb: must be a whole number of GB from 0 to 999999999999999, 0 meaning unlimited (got 1000000000000000)',
    ];
    expect(AccountRoster.validate(data)).toEqual(expected);
    const stack = new TerraformStack(Testing.app(), 'stack');
    expect(violationLines(thrown(() => new AccountRoster(stack, 'Roster', { roster: data as unknown as RosterDefinition })))).toEqual(expected);
  });

  describe('a huge value in a file', () => {
    // The check for written-out number tokens used cdktf's own pattern, which takes time quadratic
    // in a run of digits: 100 KB took 15 s, 1 MB tens of minutes, before any length rule ran.
    const MB = 1_000_000;
    const shown = (text: string): string => `${JSON.stringify(text).slice(0, 57)}...`;

    test('1 MB of digits in a name gets its length error at once', () => {
      const firstName = '1'.repeat(MB);
      expect(AccountRoster.validate({ teams: [{ name: 't', members: [{ username: 'ada', firstName }] }] })).toEqual([
        `teams[0].members[0].firstName: must be at most 20 characters (got ${MB}: ${shown(firstName)})`,
      ]);
    });

    test('1 MB of digits, signs and dots with no `e` after them, where no length rule applies (a team name), is read as it is', () => {
      const name = `${'-1.+|'.repeat(MB / 5)}x e`;
      expect(AccountRoster.validate({ teams: [{ name, members: [] }] })).toEqual([]);
      const label = `${'9'.repeat(MB)} ${'-1.8881545897087626e+289'}`;
      expect(AccountRoster.validate({ teams: [{ name: label, members: [] }] })).toEqual([
        expect.stringMatching(/^teams\[0\]\.name: holds a token marker \(got "9{56}\.\.\.\), which the synth would replace/),
      ]);
    });
  });

  describe('validate() reports what the synth would refuse', () => {
    /** validate()'s violations, after checking that building the roster fails with exactly these. */
    function refused(data: unknown): string[] {
      const violations = AccountRoster.validate(data);
      const stack = new TerraformStack(Testing.app(), 'stack');
      expect(violationLines(thrown(() => new AccountRoster(stack, 'Roster', { roster: data as RosterDefinition })))).toEqual(violations);
      return violations;
    }
    const member = (fields: object): unknown => ({ teams: [{ name: 't', members: [{ username: 'ada', ...fields }] }] });

    test('usernames the constructs library cannot take as construct ids (Object.prototype\'s names)', () => {
      const data = { teams: [{ name: 't', members: [{ username: 'constructor' }, { username: 'toString' }, { username: 'ValueOf' }] }] };
      expect(refused(data)).toEqual([
        expect.stringMatching(/^teams\[0\]\.members\[0\]\.username: "constructor" cannot be a roster member: the username is the member's construct id, .*declare this sub-account with a SubAccount of another id$/),
        expect.stringMatching(/^teams\[0\]\.members\[1\]\.username: "toString" cannot be a roster member/),
      ]);
    });

    test('token labels of one member that differ only in case, or that share a construct id', () => {
      const why = "labels compare without case, and a '/' becomes '--' in the token's construct id";
      expect(refused(member({ tokens: [{ label: 'CI' }, { label: 'ci' }, { label: 'a/b' }, { label: 'a--b' }] }))).toEqual([
        `teams[0].members[0].tokens[1].label: a token labelled "CI" already exists, and "ci" is the same label (${why})`,
        `teams[0].members[0].tokens[3].label: a token labelled "a/b" already exists, and "a--b" is the same label (${why})`,
      ]);
      expect(refused({ parent: { tokens: [{ label: 'Ops' }, { label: 'ops' }] }, teams: [] })).toEqual([
        `parent.tokens[1].label: a token labelled "Ops" already exists, and "ops" is the same label (${why})`,
      ]);
    });

    test('lengths of the text as written: `$${` and `%%{` in a file are three characters, not escapes', () => {
      const firstName = `$\${${'x'.repeat(17)}}`;
      const lastName = `%%{${'z'.repeat(17)}}`;
      const label = `$\${${'y'.repeat(97)}}`;
      expect([firstName, lastName, label].map((t) => Array.from(t).length)).toEqual([21, 21, 101]);
      const shown = (text: string): string => (JSON.stringify(text).length > 60 ? `${JSON.stringify(text).slice(0, 57)}...` : JSON.stringify(text));
      expect(refused(member({ firstName, lastName, tokens: [{ label }] }))).toEqual([
        `teams[0].members[0].firstName: must be at most 20 characters (got 21: ${shown(firstName)})`,
        `teams[0].members[0].lastName: must be at most 20 characters (got 21: ${shown(lastName)})`,
        `teams[0].members[0].tokens[0].label: must be at most 100 characters (got 101: ${shown(label)})`,
      ]);
      // At the limit both pass, and the account gets the text as written.
      const [first20, label100] = [`$\${${'x'.repeat(16)}}`, `$\${${'y'.repeat(96)}}`];
      const roster = member({ firstName: first20, tokens: [{ label: label100 }] });
      expect(AccountRoster.validate(roster)).toEqual([]);
      const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster: roster as RosterDefinition }));
      expect(bodies(out, 'proxyaccount_sub_account')[0]?.first_name).toBe(`$${first20}`);
      expect(bodies(out, 'proxyaccount_bearer_token')[0]?.label).toBe(`$${label100}`);
    });

    test('two spellings of one parent proxy, naming both', () => {
      expect(refused({ parent: { proxies: ['us-ny', 'us-ny.proxy.example.net', 'de-fra', 'DE-FRA'] }, teams: [] })).toEqual([
        'parent.proxies: "us-ny" and "us-ny.proxy.example.net" are the same proxy (a bare host stands for the full domain it begins, ports aside, and case does not matter): list it once',
        'parent.proxies: "de-fra" and "DE-FRA" are the same proxy (a bare host stands for the full domain it begins, ports aside, and case does not matter): list it once',
      ]);
    });
  });

  describe('adopting what exists (the roster `proxyaccount export` writes)', () => {
    /** The stack's import blocks as `type <- id`, resource names without their hash. */
    function imports(raw: string): string[] {
      const parsed = JSON.parse(raw) as { import?: Array<{ to: string; id: string }> };
      return (parsed.import ?? []).map((i) => `${i.to.replace(/_[0-9A-F]{8}$/, '')} <- ${i.id}`).sort();
    }
    const adopted = (accessList: string): RosterDefinition => ({
      accessList: accessList as AccessListMode,
      parent: {
        importExisting: true,
        ips: [{ ip: '198.51.100.9', label: 'vpn' }],
        hostnames: ['parent.example.com'],
        proxies: ['us-ny'],
        tokens: [{ label: 'parent-ci', importId: 3 }],
      },
      teams: [{ name: 'exported', members: [
        { username: 'alice', importExisting: true, ips: [{ ip: '203.0.113.7' }], hostnames: ['a.example.com'], tokens: [{ label: 'deploy', importId: 7 }, { label: 'new' }] },
        { username: 'bob', hostnames: ['b.example.com'] },
      ] }],
    });

    test('additive: the account and every entry are imported by the IDs the provider expects; new ones are not', () => {
      let roster: AccountRoster | undefined;
      const out = synth((scope) => {
        roster = new AccountRoster(scope, 'Roster', { roster: adopted('additive') });
      });
      expect(imports(out.raw)).toEqual([
        // (CDKTF drops the dots from logical ids; the import IDs keep them.)
        'proxyaccount_authorized_hostname.Roster__Parent_Hostname-parentexamplecom <- parent.example.com',
        'proxyaccount_authorized_hostname.Roster_alice_Hostname-aexamplecom <- alice/a.example.com',
        'proxyaccount_authorized_ip.Roster__Parent_Ip-198511009 <- 198.51.100.9',
        'proxyaccount_authorized_ip.Roster_alice_Ip-20301137 <- alice/203.0.113.7',
        'proxyaccount_authorized_proxy.Roster__Parent_Proxy-us-ny <- us-ny',
        'proxyaccount_bearer_token.Roster__Parent_Token-parent-ci <- 3',
        'proxyaccount_bearer_token.Roster_alice_Token-deploy <- alice/7',
        'proxyaccount_sub_account.Roster_alice <- alice',
      ]);
      expect(roster?.parent?.tokenLabels).toEqual(['parent-ci']);
      expect(roster?.parent?.proxies).toEqual(['us-ny']);
      // The parent's resources have no username; its token is the parent's.
      expect(bodies(out, 'proxyaccount_bearer_token').find((b) => b.label === 'parent-ci')).toEqual({ label: 'parent-ci' });
    });

    test('authoritative: the whole lists are imported (`_self` for the parent)', () => {
      const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster: adopted('authoritative') }));
      expect(imports(out.raw).filter((i) => !i.includes('bearer_token'))).toEqual([
        'proxyaccount_authorized_hostnames.Roster__Parent_AuthorizedHostnames <- _self',
        'proxyaccount_authorized_hostnames.Roster_alice_AuthorizedHostnames <- alice',
        'proxyaccount_authorized_ips.Roster__Parent_AuthorizedIps <- _self',
        'proxyaccount_authorized_ips.Roster_alice_AuthorizedIps <- alice',
        'proxyaccount_authorized_proxies.Roster__Parent_AuthorizedProxies <- _self',
        'proxyaccount_sub_account.Roster_alice <- alice',
      ]);
    });

    test('without importExisting or importId nothing is imported, and a roster without `parent` leaves the parent alone', () => {
      const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster: yamlRoster() }));
      expect(imports(out.raw)).toEqual([]);
      expect(out.raw).not.toContain('_Parent_');
    });

    test('refuses import fields of the wrong shape, naming where', () => {
      const data = {
        parent: { importExisting: 'yes', proxies: ['us-ny', 'us-ny'], tokens: [{ label: 'x', importId: 0 }], owner: 'me' },
        teams: [{ name: 't', members: [{ username: 'alice', importExisting: 1, tokens: [{ label: 'y', importId: '7' }] }] }],
      };
      expect(AccountRoster.validate(data)).toEqual([
        'parent: unknown key "owner" (allowed: accessList, ips, hostnames, proxies, tokens, importExisting)',
        'parent.importExisting: must be true or false (got "yes")',
        'parent.proxies: proxy "us-ny" is listed more than once',
        'parent.tokens[0].importId: must be the numeric ID of an existing token, a whole number >= 1 (got 0)',
        'teams[0].members[0].tokens[0].importId: must be the numeric ID of an existing token, a whole number >= 1 (got "7")',
        'teams[0].members[0].importExisting: must be true or false (got 1)',
      ]);
    });
  });
});

