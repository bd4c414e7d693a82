// Text fields refuse control characters (C0, DEL) and the bidi embedding/override/isolate
// characters, with a 400 naming the field, and change nothing. The set is the one the SDK
// refuses client-side, so both are tested against the same list.
import { checkSafeText } from '../../src/emulator/validation';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, createSub, DEMO, emulatorState } from './api';

/** The refused set, written out: U+0000–U+001F, U+007F, U+202A–U+202E, U+2066–U+2069. */
function isRefused(code: number): boolean {
  return code <= 0x1f || code === 0x7f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

const SAMPLES = ['\u0000', '\r', '\n', '\t', '\u001b', '\u007f', '\u202a', '\u202e', '\u2066', '\u2069'];

describe('checkSafeText', () => {
  it('refuses exactly the set, over the whole Basic Multilingual Plane and beyond', () => {
    const wrong: string[] = [];
    for (let code = 0; code <= 0x10ffff; code += code < 0x10000 ? 1 : 0x101) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      let refused = false;
      try {
        checkSafeText(`a${char}b`, 'label');
      } catch {
        refused = true;
      }
      if (refused !== isRefused(code)) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('names the field, the code point and its position', () => {
    expect(() => checkSafeText('ab\u202ec', 'first_name')).toThrow('first_name: must not contain a bidirectional formatting character (U+202E at position 3)');
    expect(() => checkSafeText('x\u0000', 'label')).toThrow('label: must not contain a control character (U+0000 at position 2)');
  });
});

describe('over HTTP', () => {
  let em: RunningEmulator;
  beforeAll(async () => {
    em = await startEmulator();
  });
  afterAll(() => em?.stop());
  beforeEach(() => em.control.reset());

  async function expectRefused(method: string, path: string, field: string, params: Record<string, string>): Promise<void> {
    const opts = method === 'GET' ? { auth: DEMO, query: params } : { auth: DEMO, form: params };
    const res = await api(em, method, path, opts);
    expect([res.status, res.text.split(':')[0]]).toEqual([400, field]);
  }

  it.each(SAMPLES.map((c) => [JSON.stringify(c), c]))('refuses %s in every text field', async (_name, c) => {
    await createSub(em, 'holder');
    await expectRefused('POST', '/api/sub/create/', 'username', { username: `new${c}x` });
    await expectRefused('POST', '/api/sub/create/', 'first_name', { username: 'new1', first_name: `Ann${c}` });
    await expectRefused('POST', '/api/sub/create/', 'last_name', { username: 'new1', last_name: `${c}Lee` });
    await expectRefused('POST', '/api/sub/create/', 'email', { username: 'new1', email: `a${c}@example.com` });
    await expectRefused('POST', '/api/sub/edit/', 'first_name', { username: 'holder', first_name: `B${c}ob` });
    await expectRefused('POST', '/api/sub/edit/', 'email', { username: 'holder', email: `b@example.com${c}` });
    await expectRefused('POST', '/api/ip/add/', 'label', { ip: '192.0.2.1', label: `office${c}` });
    await expectRefused('POST', '/api/ip/add/', 'ip', { ip: `192.0.2.1${c}` });
    await expectRefused('POST', '/api/hostname/add/', 'domain', { domain: `app${c}.example.com` });
    await expectRefused('POST', '/api/proxy/add/', 'proxy', { proxy: `us-ny${c}` });
    await expectRefused('POST', '/api/token/create/', 'label', { label: `ci${c}` });
    await expectRefused('GET', '/api/ips/', 'username', { username: `holder${c}` });

    const demo = (await emulatorState(em)).accounts[0]!;
    expect(demo.subAccounts.map((s) => [s.username, s.first_name, s.email])).toEqual([['holder', undefined, undefined]]);
    expect([demo.ips, demo.hostnames, demo.proxies, demo.tokens]).toEqual([[], [], [], []]);
  });

  it('accepts other Unicode text (accents, emoji, right-to-left letters, zero-width joiner)', async () => {
    const res = await api(em, 'POST', '/api/sub/create/', {
      auth: DEMO,
      form: { username: 'uni', first_name: 'Zoë', last_name: 'שלום' },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ first_name: 'Zoë', last_name: 'שלום' });
    const ip = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.2', label: 'café ☕ 👩‍💻' } });
    expect(ip.json()).toEqual({ ip: '192.0.2.2', label: 'café ☕ 👩‍💻' });
  });

  it('a password may hold any character, and is never quoted', async () => {
    const res = await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'pw', password: 'a\u0000b\nc\u202e' } });
    expect(res.status).toBe(200);
    const login = await api(em, 'GET', '/api/ips/', { auth: { basic: ['pw', 'a\u0000b\nc\u202e'] } });
    expect(login.status).toBe(200);
  });
});
