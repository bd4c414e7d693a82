// An error printed whole (util.inspect, as a logger or an uncaught rejection does, with its
// `cause`) or serialised (JSON.stringify) shows no more of the server's text than its message:
// the body of an unreadable answer and a redirect's Location are cleaned like `responseText`.
import { inspect } from 'node:util';
import { RedirectError, ResponseParseError } from '../../src/sdk';
import { BASE, caught, harness, ok, PASSWORD, status } from './harness';

/** Everything a program may print of an error. */
function printed(err: unknown): string {
  return `${inspect(err, { depth: null, showHidden: true })}\n${JSON.stringify(err)}\n${String((err as Error).stack)}`;
}

const RAW_TOKEN = 'pxa_LEAKEDTOKENVALUE123456789';
const SUB_PASSWORD = 'SUBPW-sdk-Zz ü+&';

describe('a 200 whose body is not JSON', () => {
  it('keeps no text of the body in its cause (V8 quotes the text around the fault)', async () => {
    const h = harness();
    h.reply(ok(`${RAW_TOKEN} {"id":1}`));
    const err = await caught(() => h.client.tokens.create({ label: 'ci' }));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.cause).toBeInstanceOf(SyntaxError);
    expect((err.cause as Error).message).toBe('the body is not JSON (somewhere in its 38 characters)');
    const out = printed(err);
    expect(out).not.toContain('pxa_LEAK');
    expect(out).not.toContain('LEAKED');
    await h.done();
  });

  it.each([
    ['letters', 'x'.repeat(30)],
    ['digits', '7'.repeat(12)],
    ['capitals', 'ABC'],
  ])('masks a token glued to %s before it in the message ("not JSON (starts with …)")', async (_name, glue) => {
    const token = 'pxa_tD_MTA1epCEM_BZrDq4fD8dsRpA8Ue-8X_aPv_7bKtk';
    const h = harness();
    h.reply(ok(`${glue}${token}`));
    const err = await caught(() => h.client.tokens.create({ label: 'ci' }));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.message).toContain('[REDACTED]');
    const out = printed(err);
    // No piece of the secret tail: its first 8 characters are the shortest run that would show it.
    for (let i = 4; i + 8 <= token.length; i++) expect(out).not.toContain(token.slice(i, i + 8));
    await h.done();
  });

  it('says where a body fails mid-text by position, not by the password around it', async () => {
    const h = harness();
    // Unquoted, so the fault is the password's first character and V8 quotes it.
    const body = `{"id":1,"note":"x","password":${PASSWORD}}`;
    h.reply(ok(body));
    const err = await caught(() => h.client.tokens.create({ label: 'ci' }));
    expect(err).toBeInstanceOf(ResponseParseError);
    const out = printed(err);
    expect(out).not.toContain(PASSWORD.slice(0, 8));
    expect(out).not.toContain('Secret');
    await h.done();
  });

  it('gives the position when V8 does', async () => {
    const h = harness();
    h.reply(ok('{"tokens": [1 2]}'));
    const err = await caught(() => h.client.tokens.list());
    expect((err.cause as Error).message).toBe('the body is not JSON (at character 14 of 17)');
    await h.done();
  });
});

describe("a redirect's Location", () => {
  it('masks the call password in it, in its percent-encoded form', async () => {
    const h = harness();
    h.reply(status(302, '', { location: `${BASE}/x?password=${encodeURIComponent(SUB_PASSWORD)}&next=1` }));
    const err = await caught(() => h.client.subAccounts.create({ username: 'alice', password: SUB_PASSWORD }));
    expect(err).toBeInstanceOf(RedirectError);
    expect(err.location).toBe(`${BASE}/x?password=[REDACTED]&next=1`);
    const out = printed(err);
    for (const form of [SUB_PASSWORD, encodeURIComponent(SUB_PASSWORD), 'SUBPW']) expect(out).not.toContain(form);
    await h.done();
  });

  it('masks a userinfo whatever it holds, token-shaped path segments and the client password', async () => {
    const h = harness();
    h.reply(status(301, '', { location: `https://someone:Other-Pw-77@elsewhere.test/t/${RAW_TOKEN}/${encodeURIComponent(PASSWORD)}` }));
    const err = await caught(() => h.client.ips.list());
    expect(err.location).toBe('https://[REDACTED]@elsewhere.test/t/[REDACTED]/[REDACTED]');
    const out = printed(err);
    for (const secret of ['Other-Pw-77', 'someone', RAW_TOKEN, PASSWORD]) expect(out).not.toContain(secret);
    await h.done();
  });

  it('keeps an ordinary Location whole', async () => {
    const h = harness();
    h.reply(status(308, '', { location: '//api.example.test/api/ips/?page=2' }));
    const err = await caught(() => h.client.ips.list());
    expect(err.location).toBe('//api.example.test/api/ips/?page=2');
    await h.done();
  });
});
