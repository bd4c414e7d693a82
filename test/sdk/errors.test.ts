// Every HTTP status of the API's error table (and the ban, redirects and the unexpected) maps to
// its error class, with a message naming the operation and object, and no secret in it.
import {
  ApiError,
  AuthenticationError,
  BannedError,
  ForbiddenError,
  isProxyAccountError,
  MethodNotAllowedError,
  NotFoundError,
  PaymentRequiredError,
  ProxyAccountError,
  RedirectError,
  ServerError,
  ServiceUnavailableError,
  UnexpectedStatusError,
  ValidationError,
} from '../../src/sdk';
import { statusText } from '../../src/sdk/errors';
import { BASIC, caught, harness, PASSWORD, status, TOKEN, USER } from './harness';

type ErrorClass = abstract new (...args: never[]) => ApiError;

const TABLE: Array<[number, ErrorClass, string]> = [
  [302, RedirectError, 'ERR_REDIRECT'],
  [400, ValidationError, 'ERR_VALIDATION'],
  [401, AuthenticationError, 'ERR_AUTHENTICATION'],
  [402, PaymentRequiredError, 'ERR_PAYMENT_REQUIRED'],
  [403, ForbiddenError, 'ERR_FORBIDDEN'],
  [404, NotFoundError, 'ERR_NOT_FOUND'],
  [405, MethodNotAllowedError, 'ERR_METHOD_NOT_ALLOWED'],
  [429, BannedError, 'ERR_BANNED'],
  [500, ServerError, 'ERR_SERVER'],
  [503, ServiceUnavailableError, 'ERR_SERVICE_UNAVAILABLE'],
  [418, UnexpectedStatusError, 'ERR_UNEXPECTED_STATUS'],
  [502, UnexpectedStatusError, 'ERR_UNEXPECTED_STATUS'],
];

describe('status mapping', () => {
  it.each(TABLE)('%i → %p', async (code, cls, errCode) => {
    // A non-repeatable call, so 500/503 are not retried and exactly one request is made.
    const h = harness({ maxRetries: 0 });
    h.reply(status(code, 'server says no'));
    const err = await caught(() => h.client.subAccounts.create({ username: 'alice' }));
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(ProxyAccountError);
    expect(isProxyAccountError(err)).toBe(true);
    expect(err.code).toBe(errCode);
    expect(err.status).toBe(code);
    expect(err.method).toBe('POST');
    expect(err.path).toBe('/api/sub/create/');
    expect(err.operation).toBe("create sub-account 'alice'");
    expect(err.responseText).toBe('server says no');
    // A 401 adds what it risks (how many more failures would ban the address): auth-failure-memory.test.ts.
    const warning = code === 401 ? '; the API bans the client address .*' : '';
    expect(err.message).toMatch(
      new RegExp(`^POST /api/sub/create/ \\(create sub-account 'alice'\\) failed with ${code} [A-Z][A-Za-z ]+: server says no${warning}$`),
    );
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('reads the documented message format', async () => {
    const h = harness();
    h.reply(status(402, 'sub-account limit reached'));
    const err = await caught(() => h.client.subAccounts.create({ username: 'alice' }));
    expect(err.message).toBe("POST /api/sub/create/ (create sub-account 'alice') failed with 402 Payment Required: sub-account limit reached");
    await h.done();
  });

  it('names the target sub-account in the operation', async () => {
    const h = harness();
    h.reply(status(403, 'not your sub-account'));
    const err = await caught(() => h.client.ips.delete({ ip: '203.0.113.9', username: 'bob' }));
    expect(err.operation).toBe("delete IP '203.0.113.9' for sub-account 'bob'");
    expect(err.message).toContain("(delete IP '203.0.113.9' for sub-account 'bob') failed with 403 Forbidden");
    await h.done();
  });

  it('carries Location on a redirect', async () => {
    const h = harness();
    h.reply(status(302, '', { location: 'https://api.example.test/api/ips/' }));
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(RedirectError);
    expect(err.location).toBe('https://api.example.test/api/ips/');
    expect(err.message).toBe('GET /api/ips/ (list IPs) failed with 302 Found');
    await h.done();
  });

  it('reads a 429 ban with Retry-After', async () => {
    const h = harness();
    h.reply(status(429, 'client banned after repeated authentication failures', { 'retry-after': '10800' }));
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(BannedError);
    expect(err.retryAfterSeconds).toBe(10800);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('reads a 403 that mentions a ban as a ban, and other 403s as Forbidden', async () => {
    const banned = harness();
    banned.reply(status(403, 'You are banned for 3 hours'));
    expect(await caught(() => banned.client.ips.list())).toBeInstanceOf(BannedError);
    await banned.done();
    const h = harness();
    h.reply(status(403, 'username is not your sub-account'));
    const other = await caught(() => h.client.ips.list({ username: 'bob' }));
    expect(other).toBeInstanceOf(ForbiddenError);
    expect(other).not.toBeInstanceOf(BannedError);
    await h.done();
  });

  it('reads Retry-After of a 503 given as an HTTP date', async () => {
    const h = harness({ maxRetries: 0 });
    const inOneMinute = new Date(Date.now() + 60_000).toUTCString();
    h.reply(status(503, 'plan lookup failed', { 'retry-after': inOneMinute }));
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.retryAfterSeconds).toBeGreaterThan(50);
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(60);
    await h.done();
  });
});

describe('server text in messages', () => {
  it('redacts the client password, the encoded credentials and Authorization echoes', async () => {
    const h = harness();
    const echo = `bad request from ${USER} with password ${PASSWORD}; headers: Authorization: ${BASIC}; ` + `raw=${BASIC.slice(6)}`;
    h.reply(status(400, echo));
    const err = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    expect(err.message).not.toContain(PASSWORD);
    expect(err.message).not.toContain(BASIC.slice(6));
    expect(String(err.responseText)).not.toContain(PASSWORD);
    expect(err.message).toContain('[REDACTED]');
    expect(err.message).toContain(`bad request from ${USER}`);
    await h.done();
  });

  it('redacts a bearer token and token-shaped strings', async () => {
    const h = harness({ auth: { token: TOKEN } });
    h.reply(status(400, `token ${TOKEN} invalid; other pxa_Zz9abcdefghijklmnopq1 seen; Bearer abc.def-ghi`));
    const err = await caught(() => h.client.ips.list());
    expect(err.message).not.toContain(TOKEN);
    expect(err.message).not.toContain('pxa_Zz9abcdefghijklmnopq1');
    expect(err.message).not.toContain('abc.def-ghi');
    await h.done();
  });

  it('leaves prose about authentication readable', async () => {
    const h = harness();
    h.reply(status(403, 'token endpoints require Basic authentication; Bearer tokens are refused'));
    const err = await caught(() => h.client.ips.list());
    expect(err.responseText).toBe('token endpoints require Basic authentication; Bearer tokens are refused');
    await h.done();
  });

  it('masks password=…, token=… and quoted "password": "…" but keeps field-prefixed prose', async () => {
    const h = harness();
    h.reply(status(400, 'echo: password=abc123 token=xyz789 {"password": "qwe456", "secret":\'s3\'}'), status(400, 'password: must be at most 128 characters'));
    const echoed = await caught(() => h.client.ips.list());
    expect(echoed.responseText).toBe('echo: password=[REDACTED] token=[REDACTED] {"password": [REDACTED], "secret":[REDACTED]}');
    const prose = await caught(() => h.client.ips.list());
    expect(prose.responseText).toBe('password: must be at most 128 characters');
    await h.done();
  });

  it('redacts the sub-account password of create and edit', async () => {
    const h = harness();
    h.reply(status(400, 'password "Sub-Pass-77" is too weak'), status(400, 'password=Sub-Pass-78 rejected'));
    const created = await caught(() => h.client.subAccounts.create({ username: 'alice', password: 'Sub-Pass-77' }));
    const edited = await caught(() => h.client.subAccounts.edit({ username: 'alice', password: 'Sub-Pass-78' }));
    expect(created.message).not.toContain('Sub-Pass-77');
    expect(edited.message).not.toContain('Sub-Pass-78');
    await h.done();
  });

  it('truncates long server text and flattens newlines', async () => {
    const h = harness();
    h.reply(status(400, `first line\nsecond\tline ${'x'.repeat(5000)}`));
    const err = await caught(() => h.client.hostnames.add({ domain: 'a.example' }));
    expect(String(err.responseText).length).toBeLessThanOrEqual(301);
    expect(err.message).not.toContain('\n');
    expect(err.responseText).toMatch(/^first line second line x+…$/);
    await h.done();
  });

  it('shortens a huge argument in the operation', async () => {
    const h = harness();
    // A long but valid host name (labels of at most 63 characters).
    const domain = `${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.example`;
    h.reply(status(400, 'bad hostname'));
    const err = await caught(() => h.client.hostnames.add({ domain }));
    expect(err.operation).toBe(`add hostname '${domain.slice(0, 80)}…'`);
    await h.done();
  });

  it('omits the colon part when the body is empty', async () => {
    const h = harness();
    h.reply(status(403, ''));
    const err = await caught(() => h.client.subAccounts.get('ghost'));
    expect(err.message).toBe("GET /api/sub/get/ (get sub-account 'ghost') failed with 403 Forbidden");
    await h.done();
  });

  it.each(['not found', '', '<html><body>404</body></html>'])('a 404 that names no object (%j) gives the URL and suspects the base URL', async (text) => {
    const h = harness({ baseUrl: 'https://api.example.test/wrong-prefix' });
    h.reply(status(404, text));
    const err = await caught(() => h.client.ips.list());
    expect(err.message).toContain('failed with 404 Not Found');
    expect(err.message).toContain('the URL was https://api.example.test/wrong-prefix/api/ips/');
    expect(err.message).toContain('the base URL is probably wrong');
    await h.done();
  });

  it('a 404 about a missing object says only that', async () => {
    const h = harness();
    h.reply(status(404, 'sub-account not found'));
    const err = await caught(() => h.client.subAccounts.get('ghost'));
    expect(err.message).toBe("GET /api/sub/get/ (get sub-account 'ghost') failed with 404 Not Found: sub-account not found");
    await h.done();
  });
});

describe('reason phrases', () => {
  it.each([
    [501, 'Not Implemented'],
    [502, 'Bad Gateway'],
    [503, 'Service Unavailable'],
    [504, 'Gateway Timeout'],
    [505, 'HTTP Version Not Supported'],
    [507, 'Insufficient Storage'],
    [508, 'Loop Detected'],
    [511, 'Network Authentication Required'],
  ])('%i reads %s', (code, text) => {
    expect(statusText(code)).toBe(text);
  });

  it('a 501 message names its status, not "Unknown Status"', async () => {
    const h = harness();
    h.reply(status(501, 'injected fault'));
    const err = await caught(() => h.client.tokens.activate({ id: 1 }));
    expect(err.message).toBe('POST /api/token/activate/ (activate token 1) failed with 501 Not Implemented: injected fault');
    await h.done();
  });

  it('a status outside the table still reads "Unknown Status"', () => {
    expect(statusText(599)).toBe('Unknown Status');
  });
});
