// Tolerant parsing where the API leaves the encoding open, and ResponseParseError for the rest.
import { ResponseParseError } from '../../src/sdk';
import { caught, harness, ok, status, TOKEN } from './harness';

const TOKEN_BASE = { id: 3, label: 'ci', is_active: true, expires_at: null, created_at: '2024-05-01T10:20:30' };

describe('geo-IP counts', () => {
  it('reads numbers and numeric strings as numbers', async () => {
    const h = harness();
    h.reply(ok({ US: '1200', DE: 30, FR: ' 7 ', JP: '0' }));
    await expect(h.client.geoIps.open()).resolves.toEqual({ US: 1200, DE: 30, FR: 7, JP: 0 });
    await h.done();
  });

  it('keeps a "__proto__" key as a plain entry', async () => {
    const h = harness();
    h.reply(ok('{"__proto__": "5", "US": 1}'));
    const counts = await h.client.geoIps.world();
    expect(Object.getPrototypeOf(counts)).toBe(Object.prototype);
    expect(Object.keys(counts)).toEqual(['__proto__', 'US']);
    await h.done();
  });

  it.each([['"many"'], ['-1'], ['1.5'], ['null'], ['{}'], ['""'], ['"1e3x"'], ['true']])('rejects the count %s', async (raw) => {
    const h = harness();
    h.reply(ok(`{"US": ${raw}}`));
    const err = await caught(() => h.client.geoIps.world());
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.code).toBe('ERR_RESPONSE_PARSE');
    expect(err.message).toContain('count of "US"');
    await h.done();
  });

  it('rejects a body that is not an object', async () => {
    const h = harness();
    h.reply(ok([1, 2]));
    await expect(h.client.geoIps.open()).rejects.toBeInstanceOf(ResponseParseError);
    await h.done();
  });
});

describe('token dates', () => {
  it.each([
    ['2024-05-01T10:20:30', Date.UTC(2024, 4, 1, 10, 20, 30)],
    ['2024-05-01T10:20:30Z', Date.UTC(2024, 4, 1, 10, 20, 30)],
    ['2024-05-01T12:20:30+02:00', Date.UTC(2024, 4, 1, 10, 20, 30)],
    ['2024-05-01T08:50:30-0130', Date.UTC(2024, 4, 1, 10, 20, 30)],
    ['2024-05-01T10:20:30.123456', Date.UTC(2024, 4, 1, 10, 20, 30, 123)],
    ['2024-05-01T10:20:30.5Z', Date.UTC(2024, 4, 1, 10, 20, 30, 500)],
    ['2024-05-01 10:20:30', Date.UTC(2024, 4, 1, 10, 20, 30)],
    ['2024-05-01T10:20', Date.UTC(2024, 4, 1, 10, 20)],
    ['2024-05-01', Date.UTC(2024, 4, 1)],
  ])('reads created_at %s (no timezone = UTC)', async (raw, expected) => {
    const h = harness();
    h.reply(ok({ tokens: [{ ...TOKEN_BASE, created_at: raw, expires_at: raw }] }));
    const [token] = await h.client.tokens.list();
    expect(token.createdAt.getTime()).toBe(expected);
    expect(token.expiresAt?.getTime()).toBe(expected);
    await h.done();
  });

  it.each([['yesterday'], ['2024-13-01T00:00:00'], ['2024-02-30T00:00:00'], ['2024-05-01T25:00:00'], [12345], [null]])('rejects created_at %p', async (raw) => {
    const h = harness();
    h.reply(ok({ tokens: [{ ...TOKEN_BASE, created_at: raw }] }));
    const err = await caught(() => h.client.tokens.list());
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.message).toContain('created_at');
    await h.done();
  });

  it('reads a missing or null expires_at as no expiry', async () => {
    const h = harness();
    const { expires_at: _omitted, ...withoutExpiry } = TOKEN_BASE;
    h.reply(ok({ tokens: [withoutExpiry, { ...TOKEN_BASE, id: 4 }] }));
    const tokens = await h.client.tokens.list();
    expect(tokens.map((t) => t.expiresAt)).toEqual([null, null]);
    await h.done();
  });
});

describe('labels, extra fields and loose scalars', () => {
  it('reads a missing or null label as an empty string', async () => {
    const h = harness();
    h.reply(ok([{ ip: '203.0.113.7' }, { ip: '203.0.113.8', label: null }]));
    await expect(h.client.ips.listWithLabels()).resolves.toEqual([
      { ip: '203.0.113.7', label: '' },
      { ip: '203.0.113.8', label: '' },
    ]);
    const { label: _l, ...unlabelled } = TOKEN_BASE;
    h.reply(ok({ ...unlabelled, token: TOKEN }));
    await expect(h.client.tokens.create()).resolves.toMatchObject({ label: '', token: TOKEN });
    await h.done();
  });

  it('ignores unexpected extra fields', async () => {
    const h = harness();
    h.reply(
      ok({
        username: 'alice',
        active: true,
        monthly_bandwidth: 0,
        monthly_bandwidth_limit: 0,
        total_bandwidth: 0,
        total_bandwidth_limit: 0,
        created: 'yesterday',
        plan: { name: 'x' },
      }),
    );
    const sub = await h.client.subAccounts.get('alice');
    expect(Object.keys(sub).sort()).toEqual(['active', 'monthlyBandwidth', 'monthlyBandwidthLimit', 'totalBandwidth', 'totalBandwidthLimit', 'username']);
    await h.done();
  });

  it('reads numeric strings and "true"/"false" in sub-account details; null optional fields are absent', async () => {
    const h = harness();
    h.reply(
      ok({
        username: 'alice',
        active: 'false',
        monthly_bandwidth: '0.75',
        monthly_bandwidth_limit: '10',
        total_bandwidth: 3,
        total_bandwidth_limit: 0,
        first_name: null,
        last_name: 'L',
      }),
    );
    await expect(h.client.subAccounts.get('alice')).resolves.toEqual({
      username: 'alice',
      active: false,
      monthlyBandwidth: 0.75,
      monthlyBandwidthLimit: 10,
      totalBandwidth: 3,
      totalBandwidthLimit: 0,
      lastName: 'L',
    });
    await h.done();
  });

  it('ignores a body on calls that return nothing', async () => {
    const h = harness();
    h.reply(ok({ detail: 'deleted' }), status(204));
    await expect(h.client.subAccounts.delete('alice')).resolves.toBeUndefined();
    await expect(h.client.tokens.delete({ id: 3 })).resolves.toBeUndefined();
    await h.done();
  });
});

describe('unreadable success bodies', () => {
  it.each([
    ['not JSON', 'Internal error page', 'not JSON'],
    ['empty', '', 'empty body'],
    ['HTML', '<html><body>hi</body></html>', 'not JSON'],
  ])('a 200 with a %s body', async (_name, body, detail) => {
    const h = harness();
    h.reply(ok(body));
    const err = await caught(() => h.client.ips.list({ username: 'alice' }));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.status).toBe(200);
    expect(err.message).toContain("GET /api/ips/ (list IPs of sub-account 'alice') returned 200 with an unreadable body");
    expect(err.message).toContain(detail);
    await h.done();
  });

  it.each([
    ['ips not an array', () => ok({ ips: '203.0.113.7' }), 'field "ips"'],
    ['ips missing', () => ok({ addresses: [] }), 'field "ips"'],
    ['an item not a string', () => ok({ ips: [7] }), 'item 0 of "ips"'],
  ])('a 200 with the wrong shape: %s', async (_name, reply, detail) => {
    const h = harness();
    h.reply(reply());
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.message).toContain(detail);
    await h.done();
  });

  it('a token creation without the token is unreadable', async () => {
    const h = harness();
    h.reply(ok(TOKEN_BASE), ok({ ...TOKEN_BASE, token: '' }));
    await expect(h.client.tokens.create()).rejects.toThrow(/field "token" is missing/);
    await expect(h.client.tokens.create()).rejects.toThrow(/field "token" is empty/);
    await h.done();
  });

  it('sub-account details without username are unreadable', async () => {
    const h = harness();
    h.reply(ok({ active: true }));
    await expect(h.client.subAccounts.get('alice')).rejects.toThrow(/field "username" is missing/);
    await h.done();
  });

  it('a non-JSON body is quoted redacted', async () => {
    const h = harness();
    h.reply(ok(`oops password=${'hunter2-x'} token ${TOKEN}`));
    const err = await caught(() => h.client.ips.list());
    expect(err.message).not.toContain('hunter2-x');
    expect(err.message).not.toContain(TOKEN);
    await h.done();
  });
});
