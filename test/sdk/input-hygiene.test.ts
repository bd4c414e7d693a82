// NUL, CR/LF and other C0 controls, DEL, and the bidi override/isolate characters are refused
// client-side in every text field that reaches the account, naming the field; nothing is sent.
import { InvalidArgumentError } from '../../src/sdk';
import { caught, harness } from './harness';

const BAD = ['\u0000', '\r', '\n', '\t', '\u001b', '\u007f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const code = (c: string): string => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

type Call = (c: ReturnType<typeof harness>['client'], bad: string) => Promise<unknown>;
const CALLS: ReadonlyArray<[string, string, Call]> = [
  ['ips.add label', 'label', (c, b) => c.ips.add({ ip: '203.0.113.7', label: `office${b}` })],
  ['tokens.create label', 'label', (c, b) => c.tokens.create({ label: `ci${b}token` })],
  ['subAccounts.create firstName', 'firstName', (c, b) => c.subAccounts.create({ username: 'alice', firstName: `Al${b}` })],
  ['subAccounts.edit lastName', 'lastName', (c, b) => c.subAccounts.edit({ username: 'alice', lastName: `${b}Smith` })],
  ['subAccounts.create email', 'email', (c, b) => c.subAccounts.create({ username: 'alice', email: `a${b}@example.com` })],
  ['subAccounts.create username', 'username', (c, b) => c.subAccounts.create({ username: `al${b}ice` })],
  ['ips.list username', 'username', (c, b) => c.ips.list({ username: `al${b}ice` })],
  ['hostnames.add domain', 'domain', (c, b) => c.hostnames.add({ domain: `app${b}.example.com` })],
  ['proxies.add proxy', 'proxy', (c, b) => c.proxies.add(`us-ny${b}`)],
];

describe.each(CALLS)('%s', (_name, field, call) => {
  it.each(BAD.map((b) => [code(b), b]))('refuses %s without sending', async (_c, bad) => {
    const h = harness();
    const err = await caught(() => call(h.client, bad));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.field).toBe(field);
    // The message never carries the raw character (it could reorder or break the text).
    expect(err.message).not.toContain(bad);
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });
});

it('a text field names the character and where it is', async () => {
  const h = harness();
  const err = await caught(() => h.client.ips.add({ ip: '203.0.113.7', label: 'abc\u202Edef' }));
  expect(err.message).toContain('bidirectional formatting character (U+202E at position 4)');
  await h.done();
});

it('ordinary Unicode stays allowed: accents, scripts, emoji, zero-width joiner', async () => {
  const h = harness();
  h.reply({ status: 200, body: { ip: '203.0.113.7', label: 'Büro 東京 🔑\u200d' } });
  await expect(h.client.ips.add({ ip: '203.0.113.7', label: 'Büro 東京 🔑\u200d' })).resolves.toMatchObject({ ip: '203.0.113.7' });
  await h.done();
});
