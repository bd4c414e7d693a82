// The CLI reads PROXYACCOUNT_* by the provider's own rules (src/account/connection-settings.ts):
// what the provider refuses, the CLI refuses too, naming the variable and never a value.
import { storeFromEnv } from '../../src/gitops/credentials';

const GOOD = { PROXYACCOUNT_BASE_URL: 'https://api.test', PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 's3cret-pw' };

describe('storeFromEnv', () => {
  it('refuses garbage in PROXYACCOUNT_INSECURE instead of reading it as false', () => {
    expect(() => storeFromEnv({ ...GOOD, PROXYACCOUNT_INSECURE: 'yes please' })).toThrow(/PROXYACCOUNT_INSECURE must be true or false/);
  });

  it('checks PROXYACCOUNT_MAX_RETRIES and PROXYACCOUNT_REQUEST_TIMEOUT as the provider does, listing both', () => {
    let message = '';
    try {
      storeFromEnv({ ...GOOD, PROXYACCOUNT_MAX_RETRIES: '-1', PROXYACCOUNT_REQUEST_TIMEOUT: 'soon' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/PROXYACCOUNT_REQUEST_TIMEOUT must be a number of seconds/);
    expect(message).toMatch(/PROXYACCOUNT_MAX_RETRIES must be an integer from 0 to 100/);
  });

  it('names the missing variables, and never a secret in any message', () => {
    expect(() => storeFromEnv({ PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 's3cret-pw' })).toThrow(/PROXYACCOUNT_BASE_URL/);
    expect(() => storeFromEnv({ ...GOOD, PROXYACCOUNT_TOKEN: 'pxa_secret' })).toThrow(/Conflicting credentials/);
    try {
      storeFromEnv({ ...GOOD, PROXYACCOUNT_TOKEN: 'pxa_secret' });
    } catch (err) {
      expect((err as Error).message).not.toMatch(/pxa_secret|s3cret-pw/);
    }
  });

  it.each([
    ['http://127.0.0.1:1', 'PROXYACCOUNT_BASE_URL must use https:// (the API requires HTTPS), not http://; a local emulator serves HTTPS too'],
    ['https://exa mple', 'PROXYACCOUNT_BASE_URL is not a valid absolute URL'],
    ['https://api.test/?x=1', 'PROXYACCOUNT_BASE_URL must not contain a query string or fragment'],
    ['ftp://api.test', 'PROXYACCOUNT_BASE_URL must use https:// (the API requires HTTPS), not ftp://'],
  ])('refuses PROXYACCOUNT_BASE_URL=%s naming the variable, with no hint only the SDK could follow', (url, expected) => {
    expect(() => storeFromEnv({ ...GOOD, PROXYACCOUNT_BASE_URL: url })).toThrow(`Invalid environment variable: ${expected}`);
    expect(() => storeFromEnv({ ...GOOD, PROXYACCOUNT_BASE_URL: url })).not.toThrow(/baseUrl|allowHttp/);
  });

  it('refuses credentials in PROXYACCOUNT_BASE_URL without repeating them', () => {
    let message = '';
    try {
      storeFromEnv({ ...GOOD, PROXYACCOUNT_BASE_URL: 'http://admin:hunter2-pw@api.test' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Invalid environment variable: PROXYACCOUNT_BASE_URL must not contain a user name or password/);
    expect(message).not.toMatch(/hunter2|admin/);
  });

  it('builds a store from good settings without sending anything', async () => {
    const store = storeFromEnv({ ...GOOD, PROXYACCOUNT_INSECURE: '0', PROXYACCOUNT_MAX_RETRIES: '0', PROXYACCOUNT_REQUEST_TIMEOUT: '5' });
    await store.close();
  });
});
