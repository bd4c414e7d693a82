import { TerraformStack, Testing } from 'cdktf';
import { AccessListMode, ParentAccess, l1 } from '../src';
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

  test('authoritative with only IPs manages no proxies list: the parent\'s proxies are left alone', () => {
    const out = synth((scope) => {
      new ParentAccess(scope, 'Parent', { accessList: AccessListMode.AUTHORITATIVE, ips: [{ ip: '203.0.113.10' }] });
    });
    expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ entries: [{ ip: '203.0.113.10' }] }]);
    expect(out.resource.proxyaccount_authorized_proxies).toBeUndefined();
  });

  test('refuses the hostnames the provider refuses: wildcards and IP addresses', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    const err = thrown(() => new ParentAccess(stack, 'Parent', { hostnames: ['*.example.com', '203.0.113.7'] }));
    expect(violationLines(err)).toEqual([
      expect.stringMatching(/^hostnames\[0\]: must be a hostname .*no wildcard/),
      expect.stringMatching(/^hostnames\[1\]: must be a hostname .*not an IP address/),
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
      'hostnames: hostname "OK.example.com" is listed more than once',
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
});

