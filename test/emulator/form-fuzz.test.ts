// Property-based tests of form parsing and validation: whatever a client sends (control
// characters, invalid UTF-8 in percent-escapes, huge values, repeated keys, raw bytes), the
// emulator answers with a 4xx or a success, never a 500, never crashes, and what it refuses is 400.
// Runs are bounded so the file finishes in a few seconds.
import fc from 'fast-check';
import { request } from 'undici';
import { HttpError, MAX_BODY_BYTES, parseForm } from '../../src/emulator/http';
import { checkEmail, checkHostname, checkIpv4, checkMaxLength, checkSafeText, checkUsername, UNSAFE_TEXT_RE } from '../../src/emulator/validation';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';

const UNSAFE = [
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];

/** Text mixing ordinary characters, any code point and the refused ones. */
const nastyText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('a', 'Z', '0', '.', '@', '-', '+', '=', '&', '%', ' ', 'é', '☕') },
      { weight: 2, arbitrary: fc.constantFrom(...UNSAFE) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    ),
    maxLength,
  });

/** Percent-escapes that are not valid UTF-8 once decoded. */
const INVALID_UTF8_ESCAPES = ['%FF', '%C3%28', '%E0%80', '%ED%A0%80', '%F8%88%80%80%80', '%80', '%C0%AF', '%E2%82'];

function expect400(fn: () => unknown, field?: string): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    if (field !== undefined) expect((err as HttpError).message.startsWith(`${field}: `)).toBe(true);
    return;
  }
}

describe('parseForm and the validators, in process', () => {
  it('parseForm either decodes or refuses with 400, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('%', '&', '=', '+', ...INVALID_UTF8_ESCAPES), nastyText(3)) }), (text) => {
        expect400(() => parseForm(text, 'request body'));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses percent-escapes that are not UTF-8, wherever they are', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INVALID_UTF8_ESCAPES), fc.boolean(), fc.string({ maxLength: 10 }), (bad, inName, around) => {
        const safe = encodeURIComponent(around);
        const text = inName ? `${safe}${bad}=x` : `label=${safe}${bad}`;
        expect(() => parseForm(text, 'request body')).toThrow('malformed percent-encoding in request body');
      }),
      { numRuns: 200 },
    );
  });

  it('round-trips what URLSearchParams encodes, and refuses a repeated name', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('username', 'label', 'email', 'x'), fc.string({ unit: 'binary', maxLength: 20 })), { maxLength: 8 }),
        (pairs) => {
          // URLSearchParams turns lone surrogates into U+FFFD; compare with what it actually sent.
          const encoded = new URLSearchParams(pairs).toString();
          const names = pairs.map(([name]) => name);
          const repeated = names.find((name, i) => names.indexOf(name) !== i);
          if (repeated === undefined) expect(parseForm(encoded, 'request body')).toEqual(new Map(new URLSearchParams(encoded)));
          // The first name met a second time is the one named.
          else expect(() => parseForm(encoded, 'request body')).toThrow(`${repeated}: given more than once in request body`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('validators accept or refuse with 400 naming the field; nothing accepted holds an unsafe character', () => {
    const checks: Array<[string, (v: string) => string]> = [
      ['username', (v) => checkUsername(v)],
      ['email', (v) => checkEmail(v)],
      ['domain', (v) => checkHostname(v)],
      ['ip', (v) => checkIpv4(v)],
      ['label', (v) => checkMaxLength(v, 'label', 100)],
      ['first_name', (v) => checkMaxLength(v, 'first_name', 20)],
      ['proxy', (v) => checkSafeText(v, 'proxy')],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...checks), fc.oneof(nastyText(), fc.string({ unit: 'binary', maxLength: 300 })), ([field, check], value) => {
        let accepted: string | undefined;
        expect400(() => {
          accepted = check(value);
        }, field);
        if (accepted !== undefined) expect(UNSAFE_TEXT_RE.test(accepted)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('over HTTP', () => {
  let em: RunningEmulator;
  const internalErrors: string[] = [];
  beforeAll(async () => {
    em = await startEmulator();
    em.onStderrLine((line) => {
      if (line.startsWith('error:') || / 500 /.test(line)) internalErrors.push(line);
    });
  });
  afterAll(() => em?.stop());

  const AUTH = `Basic ${Buffer.from('demo:demo-password').toString('base64')}`;
  const POSTS = [
    '/api/sub/create/',
    '/api/sub/edit/',
    '/api/ip/add/',
    '/api/ip/delete/',
    '/api/hostname/add/',
    '/api/hostname/delete/',
    '/api/proxy/add/',
    '/api/token/create/',
    '/api/token/delete/',
    '/api/sub/delete/',
  ];
  const GETS = ['/api/sub/get/', '/api/ips/', '/api/ip_labels/', '/api/tokens/', '/api/hostnames/'];
  const FIELDS = ['username', 'password', 'first_name', 'last_name', 'email', 'monthly_limit', 'ip', 'label', 'domain', 'proxy', 'id', 'expires_at'];

  async function send(method: 'GET' | 'POST', path: string, body?: Buffer | string): Promise<{ status: number; text: string }> {
    const res = await request(`${em.url}${path}`, {
      method,
      dispatcher: em.dispatcher,
      headers: method === 'POST' ? { authorization: AUTH, 'content-type': 'application/x-www-form-urlencoded' } : { authorization: AUTH },
      body,
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  /** A form body built from field names and nasty values, some keys repeated, some escapes broken. */
  const formBody = fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...FIELDS), nastyText(8)),
        fc.oneof(
          nastyText(),
          fc.constantFrom(...INVALID_UTF8_ESCAPES).map((e) => ({ raw: e })),
        ),
      ),
      { maxLength: 6 },
    )
    .map((pairs) =>
      pairs.map(([name, value]) => `${encodeURIComponent(name)}=${typeof value === 'string' ? encodeURIComponent(value) : `x${value.raw}`}`).join('&'),
    );

  /** Every string inside a JSON answer. */
  const stringsIn = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : typeof value === 'object' && value !== null ? Object.values(value).flatMap(stringsIn) : [];

  it('form bodies with control characters, broken escapes and repeated keys: never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), formBody, async (path, body) => {
        const { status, text } = await send('POST', path, body);
        expect([200, 204, 400, 402, 403, 404]).toContain(status);
        // Whatever was accepted is clean (a password is never echoed, so it is not checked here).
        if (status === 200 && text !== '') expect(stringsIn(JSON.parse(text)).filter((v) => UNSAFE_TEXT_RE.test(v))).toEqual([]);
      }),
      { numRuns: 150 },
    );
    expect(internalErrors).toEqual([]);
  });

  it('query strings with any bytes: never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GETS), fc.uint8Array({ maxLength: 60 }), fc.boolean(), async (path, bytes, escaped) => {
        // Either percent-escaped bytes (possibly invalid UTF-8), or the safe ASCII ones raw.
        const query = escaped
          ? [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')
          : Buffer.from(bytes.filter((b) => b > 0x20 && b < 0x7f && b !== 0x23)).toString('latin1');
        const { status } = await send('GET', `${path}?username=${query}`);
        expect([200, 400, 403, 404]).toContain(status);
      }),
      { numRuns: 150 },
    );
    expect(internalErrors).toEqual([]);
  });

  it('raw bodies of any bytes, up to past the size limit: 413 when too large, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...POSTS),
        fc.integer({ min: 0, max: MAX_BODY_BYTES + 2048 }),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        async (path, size, pattern) => {
          const body = Buffer.alloc(size, Buffer.from(pattern));
          const { status } = await send('POST', path, body);
          if (size > MAX_BODY_BYTES) expect(status).toBe(413);
          else expect([200, 204, 400, 402, 403, 404]).toContain(status);
        },
      ),
      { numRuns: 40 },
    );
    expect(internalErrors).toEqual([]);
  });

  it('huge single values are refused with 400 naming the field', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('first_name', 'last_name', 'email', 'label', 'username'),
        fc.integer({ min: 256, max: 10_000 }),
        async (field, length) => {
          const path = field === 'label' ? '/api/token/create/' : '/api/sub/create/';
          const form = new URLSearchParams(field === 'username' ? { username: 'u'.repeat(length) } : { username: 'huge1', [field]: 'é'.repeat(length) });
          const { status, text } = await send('POST', path, form.toString());
          expect([status, text.split(':')[0]]).toEqual([400, field]);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('repeated keys: refused with 400 naming the field, and nothing is created', async () => {
    await em.control.reset(); // earlier properties may have filled the sub-account allowance
    await fc.assert(
      fc.asyncProperty(fc.array(fc.stringMatching(/^[a-z][a-z0-9]{2,8}$/), { minLength: 2, maxLength: 4 }), async (names) => {
        const created = await send('POST', '/api/sub/create/', names.map((n) => `username=${n}`).join('&'));
        expect([created.status, created.text]).toEqual([400, 'username: given more than once in request body\n']);
      }),
      { numRuns: 20 },
    );
    const state = await request(`${em.url}/_emulator/state`, { dispatcher: em.dispatcher, headers: { authorization: `Bearer ${em.adminToken}` } });
    expect(((await state.body.json()) as { accounts: Array<{ subAccounts: unknown[] }> }).accounts[0]!.subAccounts).toEqual([]);
    expect(internalErrors).toEqual([]);
  });
});
