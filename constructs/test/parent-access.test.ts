import { TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { AccessListMode, AccountRoster, IpEntry, ParentAccess, ParentAccessProps, l1 } from '../src';
import { bodies, synth, thrown, violationLines } from './helpers';

describe('ParentAccess', () => {
  test('additive (default): one resource per IP, hostname and proxy, with no username', () => {
    const returned: unknown[] = [];
    const out = synth((scope) => {
      const parent = new ParentAccess(scope, 'Parent', {
        ips: [{ ip: '203.0.113.10', label: 'hq' }],
        hostnames: ['gw.example.com'],
        proxies: ['us-ny'],
      });
      returned.push(parent.allowIp('203.0.113.11'), parent.allowHostname('gw2.example.com'),
        parent.allowProxy('gb-lon.proxy.example.net:8080'));
      expect(parent.proxies).toEqual(['us-ny', 'gb-lon.proxy.example.net:8080']);
    });
    expect(returned[0]).toBeInstanceOf(l1.authorizedIp.AuthorizedIp);
    expect(returned[1]).toBeInstanceOf(l1.authorizedHostname.AuthorizedHostname);
    expect(returned[2]).toBeInstanceOf(l1.authorizedProxy.AuthorizedProxy);
    // Synthesized JSON is sorted by logical id, not by declaration order.
    const ips = bodies(out, 'proxyaccount_authorized_ip');
    expect(ips).toHaveLength(2);
    expect(ips).toEqual(expect.arrayContaining([{ ip: '203.0.113.10', label: 'hq' }, { ip: '203.0.113.11' }]));
    const hostnames = bodies(out, 'proxyaccount_authorized_hostname');
    expect(hostnames).toHaveLength(2);
    expect(hostnames).toEqual(expect.arrayContaining([{ domain: 'gw.example.com' }, { domain: 'gw2.example.com' }]));
    expect(out.raw).toHaveResourceWithProperties(l1.authorizedProxy.AuthorizedProxy, { proxy: 'us-ny' });
    expect(out.raw).toHaveResourceWithProperties(l1.authorizedProxy.AuthorizedProxy, { proxy: 'gb-lon.proxy.example.net:8080' });
    expect(out.resource.proxyaccount_authorized_proxies).toBeUndefined();
  });

  test('authoritative: the three list resources own every entry, helpers append to them', () => {
    const returned: unknown[] = [];
    const out = synth((scope) => {
      const parent = new ParentAccess(scope, 'Parent', {
        accessList: AccessListMode.AUTHORITATIVE,
        ips: [{ ip: '203.0.113.10', label: 'hq' }],
        proxies: ['us-ny'],
      });
      returned.push(parent.allowProxy('de-fra'), parent.allowHostname('gw.example.com'));
    });
    expect(returned[0]).toBeInstanceOf(l1.authorizedProxies.AuthorizedProxies);
    expect(returned[1]).toBeInstanceOf(l1.authorizedHostnames.AuthorizedHostnames);
    expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ entries: [{ ip: '203.0.113.10', label: 'hq' }] }]);
    expect(bodies(out, 'proxyaccount_authorized_hostnames')).toEqual([{ domains: ['gw.example.com'] }]);
    expect(bodies(out, 'proxyaccount_authorized_proxies')).toEqual([{ proxies: ['us-ny', 'de-fra'] }]);
    expect(out.resource.proxyaccount_authorized_proxy).toBeUndefined();
  });

  describe('authoritative: the proxy list is owned whenever `proxies` is given, even empty', () => {
    // This test once read "authoritative with only IPs manages no proxies list" and passed
    // `proxies: []` the same way as no `proxies`: the list resource was made only for a first
    // proxy, so `proxies: []` could not be said, and a proxy authorized on the dashboard stayed,
    // unseen, although the construct said the parent's list was authoritative and empty. Given,
    // the prop says what the whole list is; absent, the list is somebody else's.
    test('`proxies: []`: an empty list resource, so proxies authorized elsewhere are drift, removed on apply', () => {
      const out = synth((scope) => {
        new ParentAccess(scope, 'Parent', { accessList: AccessListMode.AUTHORITATIVE, ips: [{ ip: '203.0.113.10' }], proxies: [] });
      });
      expect(bodies(out, 'proxyaccount_authorized_proxies')).toEqual([{ proxies: [] }]);
      expect(out.resource.proxyaccount_authorized_proxy).toBeUndefined();
    });

    test('no `proxies`: no proxies list, the parent\'s proxies are left alone (a ParentAccess meant for IPs)', () => {
      const out = synth((scope) => {
        new ParentAccess(scope, 'Parent', { accessList: AccessListMode.AUTHORITATIVE, ips: [{ ip: '203.0.113.10' }] });
      });
      expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ entries: [{ ip: '203.0.113.10' }] }]);
      expect(out.resource.proxyaccount_authorized_proxies).toBeUndefined();
    });

    test('allowProxy appends to the list `proxies: []` made, and importExisting imports it', () => {
      const out = synth((scope) => {
        const parent = new ParentAccess(scope, 'Parent', { accessList: AccessListMode.AUTHORITATIVE, proxies: [], importExisting: true });
        expect(parent.allowProxy('us-ny')).toBeInstanceOf(l1.authorizedProxies.AuthorizedProxies);
        expect(parent.proxies).toEqual(['us-ny']);
      });
      expect(bodies(out, 'proxyaccount_authorized_proxies')).toEqual([{ proxies: ['us-ny'] }]);
      const imports = (JSON.parse(out.raw) as { import: Array<{ to: string; id: string }> }).import;
      expect(imports.filter((i) => i.to.startsWith('proxyaccount_authorized_proxies.'))).toEqual([
        { to: expect.stringMatching(/^proxyaccount_authorized_proxies\.Parent_AuthorizedProxies_[0-9A-F]{8}$/), id: '_self' },
      ]);
    });

    test('`proxies: null` (plain JavaScript) is refused as a roster refuses it, never taken for an owned, empty list', () => {
      // `null` passed the `!== undefined` test that says the list is given, and became `[]`: config
      // code writing `proxies: cfg.proxies ?? null` took over and emptied the parent's proxy list.
      const stack = new TerraformStack(Testing.app(), 'stack');
      const props = { accessList: AccessListMode.AUTHORITATIVE, proxies: null } as unknown as ParentAccessProps;
      expect(violationLines(thrown(() => new ParentAccess(stack, 'Parent', props)))).toEqual(['proxies: must be a list (got null)']);
      expect(AccountRoster.validate({ accessList: AccessListMode.AUTHORITATIVE, parent: { proxies: null }, teams: [] })).toEqual([
        'parent.proxies: must be a list (got null)',
      ]);
      expect(JSON.parse(Testing.synth(stack)).resource).toBeUndefined();
    });

    test('additive: `proxies: []` declares nothing, since entries made elsewhere are left alone there', () => {
      const out = synth((scope) => new ParentAccess(scope, 'Parent', { proxies: [] }));
      expect(out.resource.proxyaccount_authorized_proxies).toBeUndefined();
      expect(out.resource.proxyaccount_authorized_proxy).toBeUndefined();
    });
  });

  test('every list prop that is no list (plain JavaScript: null, a string, an object) is refused, saying so', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const props = { accessList: AccessListMode.AUTHORITATIVE, ips: null, hostnames: 'gw.example.com', proxies: 'us-ny', tokens: { label: 'ci' } };
    expect(violationLines(thrown(() => new ParentAccess(stack, 'Parent', props as unknown as ParentAccessProps)))).toEqual([
      'ips: must be a list (got null)',
      'hostnames: must be a list (got "gw.example.com")',
      'proxies: must be a list (got "us-ny")',
      'tokens: must be a list (got an object)',
    ]);
  });

  test('a bad entry of a list prop, or props that are no object (plain JavaScript: null), is refused naming it, never with a TypeError', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const props = { accessList: AccessListMode.AUTHORITATIVE, ips: [null, { ip: '203.0.113.7' }], tokens: [{ label: 'a' }, null, { label: 'a' }] };
    const err = thrown(() => new ParentAccess(stack, 'Parent', props as unknown as ParentAccessProps));
    expect(err).not.toBeInstanceOf(TypeError);
    expect(violationLines(err)).toEqual([
      'ips[0]: must be an IP entry ({ ip, label }), an object (got null)',
      'tokens[1]: must be a token ({ label, expiresAt, active, importId }), an object (got null)',
      'tokens[2].label: a token labelled "a" already exists',
    ]);
    expect(violationLines(thrown(() => new ParentAccess(stack, 'Null', null as unknown as ParentAccessProps)))).toEqual([
      'props: must be ParentAccess props ({ ips, hostnames, ... }), or left out for none, an object (got null)',
    ]);
  });

  test('refuses the hostnames the provider refuses: wildcards and IP addresses', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const err = thrown(() => new ParentAccess(stack, 'Parent', { hostnames: ['*.example.com', '203.0.113.7'] }));
    expect(violationLines(err)).toEqual([
      expect.stringMatching(/^hostnames\[0\]: must be a hostname .*no wildcard/),
      expect.stringMatching(/^hostnames\[1\]: must be a hostname .*not an IP address/),
    ]);
  });

  test('refuses the hostnames the resolver reads as IP addresses (a numeric last label, 0x hex too), saying why', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const err = thrown(() => new ParentAccess(stack, 'Parent', { hostnames: ['0x7f000001', '127.0.0.0x1', 'ci.0X1F', '0x7f.example.com'] }));
    const why = 'not an IP address: a numeric last label such as 7 or 0x1f makes one';
    expect(violationLines(err)).toEqual([
      expect.stringMatching(new RegExp(`^hostnames\\[0\\]: must be a hostname .*${why} \\(got "0x7f000001"\\)$`)),
      expect.stringMatching(new RegExp(`^hostnames\\[1\\]: must be a hostname .*${why} \\(got "127\\.0\\.0\\.0x1"\\)$`)),
      expect.stringMatching(new RegExp(`^hostnames\\[2\\]: must be a hostname .*${why} \\(got "ci\\.0X1F"\\)$`)),
    ]);
  });

  test('lists every violation at once', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const err = thrown(() => new ParentAccess(stack, 'Parent', {
      accessList: 'everything' as AccessListMode,
      ips: [{ ip: '203.0.113.300' }],
      hostnames: ['ok.example.com', 'OK.example.com'],
      proxies: ['us-ny:99999', 'us ny', 'de-fra', 'de-fra'],
    }));
    expect(err.message).toMatch(/^ParentAccess 'stack\/Parent' is invalid \(6 problems\):/);
    expect(violationLines(err)).toEqual([
      "accessList: must be one of 'additive', 'authoritative' (got \"everything\")",
      expect.stringMatching(/^ips\[0\]\.ip: must be an IPv4 address/),
      'hostnames: "ok.example.com" and "OK.example.com" are the same hostname (case does not matter): list it once',
      expect.stringMatching(/^proxies\[0\]: must be a host, a full domain or domain:port .*\(got "us-ny:99999"\)$/),
      expect.stringMatching(/^proxies\[1\]: must be a host/),
      'proxies: proxy "de-fra" is listed more than once',
    ]);
  });

  test('allowProxy refuses a proxy already allowed', () => {
    synth((scope) => {
      const parent = new ParentAccess(scope, 'Parent', { proxies: ['us-ny'] });
      expect(thrown(() => parent.allowProxy('us-ny')).message).toContain('proxy "us-ny" is already allowed');
    });
  });

  describe('one proxy written two ways (the provider reads both as one live proxy: removing either would delete it)', () => {
    const SAME = 'a bare host stands for the full domain it begins, ports aside, and case does not matter';

    test('props: a bare host and its full domain, or two cases, are refused naming both spellings', () => {
      const err = thrown(() => Testing.synthScope((scope) => new ParentAccess(scope, 'Parent', {
        proxies: ['us-ny', 'de-fra.proxy.example.net', 'US-NY.proxy.example.net:8080', 'DE-FRA.Proxy.Example.Net', 'gb-lon'],
      })));
      expect(violationLines(err)).toEqual([
        `proxies: "us-ny" and "US-NY.proxy.example.net:8080" are the same proxy (${SAME}): list it once`,
        `proxies: "de-fra.proxy.example.net" and "DE-FRA.Proxy.Example.Net" are the same proxy (${SAME}): list it once`,
      ]);
    });

    test('what the provider tells apart stays apart: other ports, other domains', () => {
      const out = synth((scope) => new ParentAccess(scope, 'Parent', {
        proxies: ['us-ny.proxy.example.net:8080', 'us-ny.proxy.example.net:9090', 'de-fra.a.example', 'de-fra.b.example'],
      }));
      expect(bodies(out, 'proxyaccount_authorized_proxy')).toHaveLength(4);
    });

    test('a port needs a full domain, as the provider reads it', () => {
      const err = thrown(() => Testing.synthScope((scope) => new ParentAccess(scope, 'Parent', { proxies: ['us-ny:8080'] })));
      expect(violationLines(err)).toEqual([expect.stringMatching(/^proxies\[0\]: must be a host, .*a port only after a full domain \(got "us-ny:8080"\)$/)]);
    });

    test.each([AccessListMode.ADDITIVE, AccessListMode.AUTHORITATIVE])('allowProxy refuses another spelling of a proxy already allowed (%s)', (accessList) => {
      synth((scope) => {
        const parent = new ParentAccess(scope, 'Parent', { accessList, proxies: ['us-ny.proxy.example.net'] });
        expect(thrown(() => parent.allowProxy('US-NY')).message)
          .toContain(`proxy "us-ny.proxy.example.net" is already allowed, and "US-NY" is the same proxy (${SAME})`);
        expect(parent.proxies).toEqual(['us-ny.proxy.example.net']);
      });
    });
  });

  describe('values known only at apply (tokens)', () => {
    test('additive: refused with a clear violation, since each entry\'s resource is named after it', () => {
      const stack = new TerraformStack(Testing.app(), 'stack');
      const ip = new TerraformVariable(stack, 'ip', { type: 'string' }).stringValue;
      const host = new TerraformVariable(stack, 'host', { type: 'string' }).stringValue;
      const proxy = new TerraformVariable(stack, 'proxy', { type: 'string' }).stringValue;
      const why = "ADDITIVE mode needs literal values, since each entry's resource is named after it; use AUTHORITATIVE for values known only at apply";
      const err = thrown(() => new ParentAccess(stack, 'Parent', { ips: [{ ip }], hostnames: [host], proxies: [proxy] }));
      expect(violationLines(err)).toEqual([`ips[0].ip: ${why}`, `hostnames[0]: ${why}`, `proxies[0]: ${why}`]);
      const parent = new ParentAccess(stack, 'Other');
      expect(violationLines(thrown(() => parent.allowIp(ip)))).toEqual([`ip: ${why}`]);
      expect(violationLines(thrown(() => parent.allowHostname(host)))).toEqual([`domain: ${why}`]);
      expect(violationLines(thrown(() => parent.allowProxy(proxy)))).toEqual([`proxy: ${why}`]);
    });

    test('a list token (a list known only at apply): held whole by AUTHORITATIVE lists, refused in ADDITIVE mode', () => {
      const out = synth((scope) => {
        const ips = new TerraformVariable(scope, 'ips', { type: 'list(object({ ip = string, label = optional(string) }))' }).value as IpEntry[];
        const hosts = new TerraformVariable(scope, 'hosts', { type: 'list(string)' }).listValue;
        const proxies = new TerraformVariable(scope, 'proxies', { type: 'list(string)' }).listValue;
        const parent = new ParentAccess(scope, 'Parent', { accessList: AccessListMode.AUTHORITATIVE, ips, hostnames: hosts, proxies });
        expect(parent.proxies).toBe(proxies);
        expect(parent.hostnames).toBe(hosts);
        // One entry cannot be added to a list that is known only at apply.
        expect(violationLines(thrown(() => parent.allowProxy('us-ny')))).toEqual([
          'proxy: the proxy list was given as a list token (known only at apply), and a single proxy cannot be added to it here: put it in that list',
        ]);
        expect(violationLines(thrown(() => parent.allowIp('203.0.113.7')))).toEqual([
          'ip: the IP list was given as a list token (known only at apply), and a single IP cannot be added to it here: put it in that list',
        ]);
        expect(violationLines(thrown(() => parent.allowHostname('a.example.com')))).toEqual([
          'domain: the hostname list was given as a list token (known only at apply), and a single hostname cannot be added to it here: put it in that list',
        ]);
      });
      expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ entries: '${var.ips}' }]);
      expect(bodies(out, 'proxyaccount_authorized_hostnames')).toEqual([{ domains: '${var.hosts}' }]);
      expect(bodies(out, 'proxyaccount_authorized_proxies')).toEqual([{ proxies: '${var.proxies}' }]);

      const stack = new TerraformStack(Testing.app(), 'stack');
      const list = new TerraformVariable(stack, 'list', { type: 'list(string)' }).listValue;
      const why = 'a list token (a list known only at apply) is not supported in ADDITIVE mode, since each entry is its own ' +
        'resource, named after it: pass a list of values, or use AUTHORITATIVE, whose list resource takes a list known only at apply';
      expect(violationLines(thrown(() => new ParentAccess(stack, 'Parent', { hostnames: list, proxies: list })))).toEqual([
        `hostnames: ${why}`, `proxies: ${why}`,
      ]);
    });

    test('authoritative: the list resources hold them', () => {
      const out = synth((scope) => {
        const ip = new TerraformVariable(scope, 'ip', { type: 'string' }).stringValue;
        const proxy = new TerraformVariable(scope, 'proxy', { type: 'string' }).stringValue;
        const parent = new ParentAccess(scope, 'Parent', { accessList: AccessListMode.AUTHORITATIVE, ips: [{ ip }] });
        parent.allowProxy(proxy);
      });
      expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ entries: [{ ip: '${var.ip}' }] }]);
      expect(bodies(out, 'proxyaccount_authorized_proxies')).toEqual([{ proxies: ['${var.proxy}'] }]);
    });
  });

  test('tokens: declared or added, no username (the parent\'s own), duplicate labels refused', () => {
    let parent: ParentAccess | undefined;
    const out = synth((scope) => {
      parent = new ParentAccess(scope, 'Parent', { tokens: [{ label: 'ci', expiresAt: '2030-01-31' }] });
      parent.addToken('ops', { active: false });
      expect(thrown(() => parent?.addToken('ci')).message).toContain('a token labelled "ci" already exists');
    });
    expect(parent?.tokenLabels).toEqual(['ci', 'ops']);
    expect(parent?.token('ops')).toBeInstanceOf(l1.bearerToken.BearerToken);
    expect(bodies(out, 'proxyaccount_bearer_token')).toEqual(expect.arrayContaining([
      { label: 'ci', expires_at: '2030-01-31' }, { label: 'ops', active: false },
    ]));
    expect(violationLines(thrown(() => Testing.synthScope((scope) => new ParentAccess(scope, 'P', {
      tokens: [{ label: 'a' }, { label: 'a' }],
    }))))).toEqual(['tokens[1].label: a token labelled "a" already exists']);
  });

  test('token labels that would be one construct id, or differ only in case, are refused before the constructs library sees them', () => {
    const why = "labels compare without case, and a '/' becomes '--' in the token's construct id";
    expect(violationLines(thrown(() => Testing.synthScope((scope) => new ParentAccess(scope, 'P', {
      tokens: [{ label: 'deploy/ci' }, { label: 'deploy--ci' }, { label: 'Ops' }, { label: 'ops' }],
    }))))).toEqual([
      `tokens[1].label: a token labelled "deploy/ci" already exists, and "deploy--ci" is the same label (${why})`,
      `tokens[3].label: a token labelled "Ops" already exists, and "ops" is the same label (${why})`,
    ]);
    synth((scope) => {
      const parent = new ParentAccess(scope, 'P', { tokens: [{ label: 'a/b' }] });
      expect(violationLines(thrown(() => parent.addToken('A--B')))).toEqual([
        `token.label: a token labelled "a/b" already exists, and "A--B" is the same label (${why})`,
      ]);
    });
  });

  describe('one per provider configuration in a stack', () => {
    const why = 'declare at most one per account, since two would each take their own spelling of one proxy (or the same IP) ' +
      'and removing it from either would delete the live entry the other still declares; add these entries to that one';

    test("a second one for the same provider is refused, naming both, even when it is a roster's parent section", () => {
      const stack = new TerraformStack(Testing.app(), 'stack');
      new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
      new AccountRoster(stack, 'Roster', { roster: { parent: { proxies: ['us-ny'] }, teams: [] } });
      const err = thrown(() => new ParentAccess(stack, 'Ops', { proxies: ['us-ny.proxy.example.net'] }));
      expect(err.message.split('\n')[0]).toBe("ParentAccess 'stack/Ops' is invalid (1 problem):");
      expect(violationLines(err)).toEqual([
        `provider: ParentAccess 'stack/Roster/_Parent' already declares the parent account's access for the stack's default proxyaccount provider: ${why}`,
      ]);
      // The other way round: the roster's parent section comes second.
      const other = new TerraformStack(Testing.app(), 'other');
      new ParentAccess(other, 'Ops', { proxies: ['de-fra.proxy.example.net'] });
      expect(violationLines(thrown(() => new AccountRoster(other, 'Roster', { roster: { parent: { proxies: ['de-fra'] }, teams: [] } })))).toEqual([
        `provider: ParentAccess 'other/Ops' already declares the parent account's access for the stack's default proxyaccount provider: ${why}`,
      ]);
      const proxies = (s: TerraformStack): unknown[] => Object.values((JSON.parse(Testing.synth(s)) as {
        resource: Record<string, Record<string, { proxy: string }>>;
      }).resource.proxyaccount_authorized_proxy).map((b) => b.proxy);
      expect(proxies(stack)).toEqual(['us-ny']);
      expect(proxies(other)).toEqual(['de-fra.proxy.example.net']);
    });

    test('the default provider passed explicitly is the same configuration; another alias or another stack is not', () => {
      const app = Testing.app();
      const stack = new TerraformStack(app, 'stack');
      const main = new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
      const west = new l1.provider.ProxyaccountProvider(stack, 'west', { alias: 'west' });
      new ParentAccess(stack, 'Main', { proxies: ['us-ny'] });
      expect(violationLines(thrown(() => new ParentAccess(stack, 'Explicit', { provider: main })))).toEqual([
        `provider: ParentAccess 'stack/Main' already declares the parent account's access for the stack's default proxyaccount provider: ${why}`,
      ]);
      new ParentAccess(stack, 'West', { provider: west, proxies: ['us-ny'] });
      expect(violationLines(thrown(() => new ParentAccess(stack, 'West2', { provider: west })))).toEqual([
        `provider: ParentAccess 'stack/West' already declares the parent account's access for the provider alias "west": ${why}`,
      ]);
      new ParentAccess(new TerraformStack(app, 'elsewhere'), 'Main', { proxies: ['us-ny'] });
    });

    test('one refused for its own props does not count as declared', () => {
      synth((scope) => {
        expect(() => new ParentAccess(scope, 'Bad', { proxies: ['us-ny:8080'] })).toThrow(/proxies\[0\]/);
        new ParentAccess(scope, 'Good', { proxies: ['us-ny'] });
      });
    });
  });
});

