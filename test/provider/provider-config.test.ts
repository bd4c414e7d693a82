// The provider block: env fallbacks, one diagnostic per missing/conflicting/unknown setting on
// its attribute, one SDK client per process and no request at configure time, and the 401 rule
// (bad credentials cost one request however many resources there are). HTTP via undici MockAgent.
import { MockAgent } from 'undici';
import { UNKNOWN, type CtyValue } from '../../src/protocol/cty';
import type { Diagnostic } from '../../src/protocol/types';
import { createProvider, createProviderServer } from '../../src/provider/provider';
import { subAccountResource } from '../../src/provider/resources/sub-account';
import { decode, dv, errors, NO_PRIVATE, obj, paths } from './harness';

const BASE = 'https://api.test';
const providerSchema = createProvider().schema;
const subSchema = subAccountResource.schema;

interface Seen {
  method: string;
  path: string;
  authorization: string;
}

/** A MockAgent answering every request with `status`, recording what was sent. */
function mockApi(status: number, body: (path: string) => unknown = () => ({})) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const seen: Seen[] = [];
  agent
    .get(BASE)
    .intercept({ path: () => true, method: () => true })
    .reply((opts) => {
      const headers = new Headers(opts.headers as Record<string, string>);
      seen.push({ method: opts.method, path: opts.path, authorization: headers.get('authorization') ?? '' });
      return {
        statusCode: status,
        data: status === 200 ? JSON.stringify(body(opts.path)) : 'Unauthorized',
        responseOptions: { headers: { 'content-type': status === 200 ? 'application/json' : 'text/plain' } },
      };
    })
    .persist();
  return { agent, seen };
}

async function configure(config: Record<string, CtyValue>, env: NodeJS.ProcessEnv = {}, agent = new MockAgent()) {
  const server = createProviderServer({ env, dispatcher: agent });
  const res = await server.configureProvider({ terraformVersion: '1.11.4', config: dv(providerSchema, obj(providerSchema, config)) });
  return { server, diagnostics: res.diagnostics };
}

const GOOD_ENV = { PROXYACCOUNT_BASE_URL: BASE, PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 's3cret-pw' };

function only(diags: Diagnostic[]): Diagnostic {
  expect(diags).toHaveLength(1);
  return diags[0]!;
}

describe('provider configuration', () => {
  it('reports a missing base URL on base_url, naming its variable', async () => {
    const d = only((await configure({ username: 'demo', password: 'pw' })).diagnostics);
    expect(d).toMatchObject({ severity: 'error', summary: 'Missing API base URL', attribute: [{ attributeName: 'base_url' }] });
    expect(d.detail).toContain('PROXYACCOUNT_BASE_URL');
  });

  it('reports missing credentials once, naming every variable that can supply them', async () => {
    const d = only((await configure({ base_url: BASE })).diagnostics);
    expect(d).toMatchObject({ summary: 'Missing credentials', attribute: [{ attributeName: 'username' }] });
    for (const v of ['PROXYACCOUNT_USERNAME', 'PROXYACCOUNT_PASSWORD', 'PROXYACCOUNT_TOKEN']) expect(d.detail).toContain(v);
  });

  it('reports both problems when base URL and credentials are missing', async () => {
    expect(paths((await configure({})).diagnostics).sort()).toEqual(['base_url', 'username']);
  });

  it('reports a username without password on password, and the reverse on username', async () => {
    const a = only((await configure({ base_url: BASE, username: 'demo' })).diagnostics);
    expect(a).toMatchObject({ summary: 'Missing password', attribute: [{ attributeName: 'password' }] });
    expect(a.detail).toContain('PROXYACCOUNT_PASSWORD');
    const b = only((await configure({ base_url: BASE }, { PROXYACCOUNT_PASSWORD: 'pw' })).diagnostics);
    expect(b).toMatchObject({ summary: 'Missing username', attribute: [{ attributeName: 'username' }] });
    expect(b.detail).toContain('from PROXYACCOUNT_PASSWORD');
  });

  it('reports a token combined with username/password within one source, saying where each came from, without values', async () => {
    const inBlock = only((await configure({ base_url: BASE, token: 'pxa_tokenvalue', username: 'demo' })).diagnostics);
    expect(inBlock).toMatchObject({ summary: 'Conflicting credentials', attribute: [{ attributeName: 'token' }] });
    expect(inBlock.detail).toContain('set in the provider block');
    const inEnv = only(
      (await configure({ base_url: BASE }, { PROXYACCOUNT_TOKEN: 'pxa_tokenvalue', PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 'envpw' }))
        .diagnostics,
    );
    expect(inEnv).toMatchObject({ summary: 'Conflicting credentials', attribute: [{ attributeName: 'token' }] });
    expect(inEnv.detail).toContain('from PROXYACCOUNT_TOKEN');
    expect(inEnv.detail).toContain('from PROXYACCOUNT_USERNAME');
    expect(JSON.stringify([inBlock, inEnv])).not.toMatch(/pxa_tokenvalue|envpw/);
  });

  it('lets credentials in the block override the environment of the other kind, as docs/index.md says', async () => {
    const tokenOverBasic = mockApi(200, () => ({ proxies: [] }));
    const a = await configure({ base_url: BASE, token: 'pxa_abc' }, { PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 'envpw' }, tokenOverBasic.agent);
    expect(a.diagnostics).toEqual([]);
    await a.server.providerData!.proxies.list();
    expect(tokenOverBasic.seen[0]!.authorization).toBe('Bearer pxa_abc');
    await tokenOverBasic.agent.close();
    const basicOverToken = mockApi(200, () => ({ proxies: [] }));
    const b = await configure({ username: 'cfg', password: 'cfgpw' }, { ...GOOD_ENV, PROXYACCOUNT_TOKEN: 'pxa_env' }, basicOverToken.agent);
    expect(b.diagnostics).toEqual([]);
    await b.server.providerData!.proxies.list();
    expect(basicOverToken.seen[0]!.authorization).toBe(`Basic ${Buffer.from('cfg:cfgpw').toString('base64')}`);
    await basicOverToken.agent.close();
  });

  it('reports each unknown setting on its attribute', async () => {
    const { diagnostics } = await configure({ base_url: UNKNOWN, password: UNKNOWN, username: 'demo' });
    expect(diagnostics.every((d) => d.summary === 'Unknown provider setting')).toBe(true);
    expect(paths(diagnostics).sort()).toEqual(['base_url', 'password']);
    expect(diagnostics.find((d) => paths([d])[0] === 'password')!.detail).toContain('PROXYACCOUNT_PASSWORD');
  });

  it('reports invalid environment values on their attributes', async () => {
    const { diagnostics } = await configure(
      {},
      { ...GOOD_ENV, PROXYACCOUNT_INSECURE: 'maybe', PROXYACCOUNT_MAX_RETRIES: '-1', PROXYACCOUNT_REQUEST_TIMEOUT: 'soon' },
    );
    expect(paths(diagnostics).sort()).toEqual(['insecure', 'max_retries', 'request_timeout']);
    expect(diagnostics.every((d) => d.summary === 'Invalid environment variable')).toBe(true);
  });

  it('reports an unreadable CA file on ca_cert_file', async () => {
    const { diagnostics } = await configure({}, { ...GOOD_ENV, PROXYACCOUNT_CA_CERT_FILE: '/nonexistent/ca.pem' });
    expect(only(diagnostics)).toMatchObject({ summary: 'Unreadable CA certificate file', attribute: [{ attributeName: 'ca_cert_file' }] });
  });

  it('reports a base URL the SDK refuses on base_url, saying it came from the environment', async () => {
    const { diagnostics } = await configure({}, { ...GOOD_ENV, PROXYACCOUNT_BASE_URL: 'http://api.example.com' });
    const d = only(diagnostics);
    expect(d).toMatchObject({ summary: 'Invalid environment variable', attribute: [{ attributeName: 'base_url' }] });
    expect(d.detail).not.toContain('allowHttp');
    expect(d.detail).toContain('PROXYACCOUNT_BASE_URL');
  });

  it('configures from the environment alone without sending a request, then uses those credentials', async () => {
    const { agent, seen } = mockApi(200, () => ({
      username: 'alice',
      active: true,
      monthly_bandwidth: 0,
      monthly_bandwidth_limit: 0,
      total_bandwidth: 0,
      total_bandwidth_limit: 0,
    }));
    const { server, diagnostics } = await configure({}, GOOD_ENV, agent);
    expect(diagnostics).toEqual([]);
    expect(seen).toEqual([]);
    const res = await server.readResource({
      typeName: 'proxyaccount_sub_account',
      currentState: dv(subSchema, obj(subSchema, { id: 'alice', username: 'alice' })),
      private: NO_PRIVATE,
    });
    expect(errors(res.diagnostics)).toEqual([]);
    // The read and the IP list it starts for the entries that follow (this mock's answer does not
    // parse as one, and a prefetch's failure is left to those entries' reads).
    await server
      .providerData!.account('alice')
      .ips.list()
      .catch(() => undefined);
    expect(seen.map((r) => r.path)).toEqual(['/api/sub/get/?username=alice', '/api/ip_labels/?username=alice']);
    for (const r of seen) expect(r.authorization).toBe(`Basic ${Buffer.from('demo:s3cret-pw').toString('base64')}`);
    await agent.close();
  });

  it('prefers the provider block over the environment, setting by setting', async () => {
    const { agent, seen } = mockApi(200, () => ({ proxies: [] }));
    const { server, diagnostics } = await configure({ username: 'cfg' }, GOOD_ENV, agent);
    expect(diagnostics).toEqual([]);
    await server.providerData!.proxies.list();
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from('cfg:s3cret-pw').toString('base64')}`);
    await agent.close();
  });

  it('authenticates with a bearer token when one is given', async () => {
    const { agent, seen } = mockApi(200, () => ({ proxies: [] }));
    const { server, diagnostics } = await configure({ base_url: BASE, token: 'pxa_abc' }, {}, agent);
    expect(diagnostics).toEqual([]);
    await server.providerData!.proxies.list();
    expect(seen[0]!.authorization).toBe('Bearer pxa_abc');
    await agent.close();
  });
});

describe('ValidateProviderConfig', () => {
  it('checks values known at validation time, on their attributes', async () => {
    const server = createProviderServer({ env: {} });
    const res = await server.validateProviderConfig({
      config: dv(providerSchema, obj(providerSchema, { base_url: 'ftp://x', max_retries: 1.5, request_timeout: 0 })),
    });
    expect(paths(res.diagnostics).sort()).toEqual(['base_url', 'max_retries', 'request_timeout']);
  });

  it.each([
    ['http://parent:parent-password-xyz@api.example.com/', '(got "…@api.example.com/")'],
    ['https://parent:Pa#55/w?rd@api.example.com/\n', '(got "…@api.example.com/\\n")'],
    ['parent:parent-password-xyz@api.example.com', '(got "…@api.example.com")'],
  ])('does not repeat the credentials of a refused base URL (%j)', async (url, shown) => {
    const server = createProviderServer({ env: {} });
    const res = await server.validateProviderConfig({ config: dv(providerSchema, obj(providerSchema, { base_url: url })) });
    expect(errors(res.diagnostics)).toEqual([expect.objectContaining({ detail: expect.stringContaining(shown) })]);
    expect(JSON.stringify(res.diagnostics)).not.toMatch(/parent-password-xyz|Pa#55|parent:/);
  });
});

describe('the 401 rule', () => {
  it('fails 50 resources after one request, with a clear diagnostic and no secret', async () => {
    const { agent, seen } = mockApi(401);
    const { server } = await configure({}, GOOD_ENV, agent);
    const reads = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        server.readResource({
          typeName: 'proxyaccount_sub_account',
          currentState: dv(subSchema, obj(subSchema, { id: `user${i}`, username: `user${i}`, password: 'statepw' })),
          private: NO_PRIVATE,
        }),
      ),
    );
    expect(seen).toHaveLength(1);
    for (const r of reads) {
      const d = only(r.diagnostics);
      expect(d.summary).toBe('Authentication failed');
      expect(d.detail).toMatch(/PROXYACCOUNT_USERNAME.*PROXYACCOUNT_PASSWORD.*PROXYACCOUNT_TOKEN/s);
      expect(d.detail).toMatch(/No further requests were sent/);
      expect(JSON.stringify(d)).not.toMatch(/s3cret-pw|statepw/);
      // A failed refresh keeps the object in state.
      expect(decode(subSchema, r.newState)).not.toBeNull();
    }
    await agent.close();
  });
});

describe('account store over the real SDK', () => {
  it("lists one account's IPs once for 500 concurrent refreshes", async () => {
    const { agent, seen } = mockApi(200, () => [{ ip: '203.0.113.7', label: 'office' }]);
    const { server } = await configure({}, GOOD_ENV, agent);
    const store = server.providerData!;
    const lists = await Promise.all(Array.from({ length: 500 }, () => store.account('alice').ips.list()));
    expect(seen).toEqual([expect.objectContaining({ method: 'GET', path: '/api/ip_labels/?username=alice' })]);
    expect(lists[499]).toEqual([{ ip: '203.0.113.7', label: 'office' }]);
    await agent.close();
  });
});
