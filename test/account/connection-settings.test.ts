// The base URL rules shared by the provider block and PROXYACCOUNT_BASE_URL: each problem names
// where the value came from (the block's base_url or the variable), never the value itself.
import { resolveConnection } from '../../src/account';

const CREDENTIALS = { PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 's3cret-pw' };

describe('resolveConnection: base_url', () => {
  it('reports a base_url of the provider block on base_url, in the block’s words', () => {
    const r = resolveConnection({ base_url: 'https://admin:hunter2-pw@api.test' }, CREDENTIALS);
    expect(r.settings).toBeUndefined();
    expect(r.problems).toEqual([
      {
        setting: 'base_url',
        summary: 'Invalid provider configuration',
        detail:
          'base_url must not contain a user name or password: set username and password (PROXYACCOUNT_USERNAME, PROXYACCOUNT_PASSWORD) ' +
          "or token (PROXYACCOUNT_TOKEN). It must be the API's root URL, such as https://api.example.com.",
      },
    ]);
  });

  it('reports PROXYACCOUNT_BASE_URL on base_url, naming the variable', () => {
    const r = resolveConnection({}, { ...CREDENTIALS, PROXYACCOUNT_BASE_URL: 'https://api.test#x' });
    expect(r.problems).toEqual([
      {
        setting: 'base_url',
        summary: 'Invalid environment variable',
        detail: "PROXYACCOUNT_BASE_URL must not contain a query string or fragment. It must be the API's root URL, such as https://api.example.com.",
      },
    ]);
  });

  it('takes an https URL with a path prefix', () => {
    const r = resolveConnection({}, { ...CREDENTIALS, PROXYACCOUNT_BASE_URL: 'https://api.test/prefix/' });
    expect(r.problems).toEqual([]);
    expect(r.settings?.baseUrl).toBe('https://api.test/prefix/');
  });
});
