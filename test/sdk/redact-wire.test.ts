// A password must not reach an error message in any form it took on the wire: as typed,
// form-encoded (`+` for spaces, %XX escapes), percent-encoded, JSON-escaped, or inside the base64
// of `user:password`. Servers echo forms and headers back in error texts.
import { wireForms } from '../../src/sdk/redact';
import { caught, harness, status, USER } from './harness';

const PASSWORDS = ['two words here', 'a&b=c%d+e', 'pässwörd-ümlaut', 'шифр пароль', '秘密のパス 42', 'emoji 🔑 key&=%', '100%=sure & safe'];

/** Every form the value takes on the wire, plus the base64 the Basic header carries. */
function echoes(password: string): string[] {
  const form = new URLSearchParams([['', password]]).toString().slice(1);
  return [
    password,
    form,
    form.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    encodeURIComponent(password),
    JSON.stringify(password).slice(1, -1),
    Buffer.from(`${USER}:${password}`, 'utf8').toString('base64'),
  ];
}

describe.each(PASSWORDS)('password %j', (password) => {
  it.each(echoes(password).map((e, i) => [i, e] as const))('the client password echoed as wire form #%i is masked', async (_i, echo) => {
    const h = harness({ auth: { username: USER, password } });
    h.reply(status(400, `could not parse ${echo} in your request`));
    const err = await caught(() => h.client.ips.list());
    expect(err.message).toContain('[REDACTED]');
    for (const form of echoes(password)) expect(err.message).not.toContain(form);
    expect(String(err.responseText)).not.toContain(echo);
    await h.done();
  });

  it('a sub-account password echoed form-encoded by create is masked', async () => {
    const h = harness();
    const form = new URLSearchParams([['', password]]).toString().slice(1);
    h.reply(status(400, `field rejected: ${form} (as received)`));
    const err = await caught(() => h.client.subAccounts.create({ username: 'alice', password }));
    expect(err.message).not.toContain(form);
    expect(err.message).toContain('[REDACTED]');
    // The form the SDK really sent is the one masked here.
    expect(h.seen()[0]?.body).toContain(`password=${form}`);
    await h.done();
  });
});

describe('wireForms', () => {
  it('includes the form encoding URLSearchParams really sends', () => {
    for (const p of PASSWORDS) {
      const sent = new URLSearchParams({ password: p }).toString().slice('password='.length);
      expect(wireForms(p)).toContain(sent);
      expect(wireForms(p)).toContain(p);
    }
  });

  it('gives one entry per distinct form', () => {
    const forms = wireForms('plainpassword');
    expect(forms).toEqual(['plainpassword']);
  });
});
