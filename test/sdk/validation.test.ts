// Every documented constraint is checked before any request, and the error names the field.
import { InvalidArgumentError, type ProxyAccountClient } from '../../src/sdk';
import { caught, harness } from './harness';

type Run = (c: ProxyAccountClient) => Promise<unknown>;

const BAD: Array<[string, string, Run]> = [
  // username charset and length, everywhere a username goes
  ['empty username', 'username', (c) => c.subAccounts.create({ username: '' })],
  ['31-character username', 'username', (c) => c.subAccounts.create({ username: 'a'.repeat(31) })],
  ['username with a space', 'username', (c) => c.subAccounts.edit({ username: 'al ice' })],
  ['username with an underscore', 'username', (c) => c.subAccounts.get('al_ice')],
  ['username with a non-ASCII letter', 'username', (c) => c.subAccounts.deactivate('alicé')],
  ['username with a slash', 'username', (c) => c.subAccounts.activate('a/b')],
  ['username with a newline', 'username', (c) => c.subAccounts.delete('alice\n')],
  ['non-string username', 'username', (c) => c.subAccounts.get(42 as unknown as string)],
  ['bad target username on ips.add', 'username', (c) => c.ips.add({ ip: '203.0.113.7', username: 'x y' })],
  ['bad target username on ips.delete', 'username', (c) => c.ips.delete({ ip: '203.0.113.7', username: '' })],
  ['bad target username on ips.list', 'username', (c) => c.ips.list({ username: 'a'.repeat(31) })],
  ['bad target username on ips.listWithLabels', 'username', (c) => c.ips.listWithLabels({ username: 'a b' })],
  ['bad target username on hostnames.add', 'username', (c) => c.hostnames.add({ domain: 'a.example', username: '#' })],
  ['bad target username on hostnames.delete', 'username', (c) => c.hostnames.delete({ domain: 'a.example', username: '#' })],
  ['bad target username on hostnames.list', 'username', (c) => c.hostnames.list({ username: '#' })],
  ['bad target username on tokens.list', 'username', (c) => c.tokens.list({ username: '#' })],
  ['bad target username on tokens.create', 'username', (c) => c.tokens.create({ username: '#' })],
  ['bad target username on tokens.activate', 'username', (c) => c.tokens.activate({ id: 1, username: '#' })],
  ['bad target username on tokens.deactivate', 'username', (c) => c.tokens.deactivate({ id: 1, username: '#' })],
  ['bad target username on tokens.delete', 'username', (c) => c.tokens.delete({ id: 1, username: '#' })],
  // lengths of the other sub-account fields
  ['129-character password', 'password', (c) => c.subAccounts.create({ username: 'alice', password: 'p'.repeat(129) })],
  ['21-character first name', 'firstName', (c) => c.subAccounts.create({ username: 'alice', firstName: 'f'.repeat(21) })],
  ['21-character last name', 'lastName', (c) => c.subAccounts.edit({ username: 'alice', lastName: 'l'.repeat(21) })],
  ['256-character email', 'email', (c) => c.subAccounts.create({ username: 'alice', email: `${'e'.repeat(244)}@example.com` })],
  ['email without @', 'email', (c) => c.subAccounts.create({ username: 'alice', email: 'alice.example.com' })],
  ['email without a domain dot', 'email', (c) => c.subAccounts.create({ username: 'alice', email: 'alice@localhost' })],
  ['email with a space', 'email', (c) => c.subAccounts.edit({ username: 'alice', email: 'al ice@example.com' })],
  ['email with two @', 'email', (c) => c.subAccounts.edit({ username: 'alice', email: 'a@b@example.com' })],
  // limits: safe integers >= 0
  ['negative monthly limit', 'monthlyLimit', (c) => c.subAccounts.create({ username: 'alice', monthlyLimit: -1 })],
  ['fractional monthly limit', 'monthlyLimit', (c) => c.subAccounts.create({ username: 'alice', monthlyLimit: 1.5 })],
  ['NaN total limit', 'totalLimit', (c) => c.subAccounts.edit({ username: 'alice', totalLimit: Number.NaN })],
  ['infinite total limit', 'totalLimit', (c) => c.subAccounts.edit({ username: 'alice', totalLimit: Infinity })],
  ['unsafe integer total limit', 'totalLimit', (c) => c.subAccounts.edit({ username: 'alice', totalLimit: 2 ** 53 })],
  ['string limit', 'monthlyLimit', (c) => c.subAccounts.edit({ username: 'alice', monthlyLimit: '5' as unknown as number })],
  // IPv4, strictly
  ['three-part IP', 'ip', (c) => c.ips.add({ ip: '203.0.113' })],
  ['octet above 255', 'ip', (c) => c.ips.add({ ip: '256.0.113.7' })],
  ['leading zero', 'ip', (c) => c.ips.add({ ip: '203.0.113.07' })],
  ['padded IP', 'ip', (c) => c.ips.delete({ ip: ' 203.0.113.7' })],
  ['IPv6 address', 'ip', (c) => c.ips.delete({ ip: '::1' })],
  ['five-part IP', 'ip', (c) => c.ips.add({ ip: '1.2.3.4.5' })],
  ['CIDR', 'ip', (c) => c.ips.add({ ip: '203.0.113.0/24' })],
  ['missing ip', 'ip', (c) => c.ips.add({} as never)],
  ['101-character IP label', 'label', (c) => c.ips.add({ ip: '203.0.113.7', label: 'l'.repeat(101) })],
  // hostnames and proxies
  ['empty domain', 'domain', (c) => c.hostnames.add({ domain: '' })],
  ['domain with a space', 'domain', (c) => c.hostnames.delete({ domain: 'a example' })],
  ['domain the resolver reads as an IP (0x7f000001)', 'domain', (c) => c.hostnames.add({ domain: '0x7f000001' })],
  ['domain ending with a hex label', 'domain', (c) => c.hostnames.delete({ domain: 'ci.0x1f' })],
  ['empty proxy', 'proxy', (c) => c.proxies.add('')],
  ['proxy with a tab', 'proxy', (c) => c.proxies.delete('us-ny\t')],
  // tokens
  ['101-character token label', 'label', (c) => c.tokens.create({ label: 't'.repeat(101) })],
  ['expiry in the wrong format', 'expiresAt', (c) => c.tokens.create({ expiresAt: '01/02/2031' })],
  ['expiry with a time', 'expiresAt', (c) => c.tokens.create({ expiresAt: '2031-01-02T00:00:00' })],
  ['expiry without padding', 'expiresAt', (c) => c.tokens.create({ expiresAt: '2031-1-2' })],
  ['expiry on 30 February', 'expiresAt', (c) => c.tokens.create({ expiresAt: '2032-02-30' })],
  ['expiry on 29 February of a common year', 'expiresAt', (c) => c.tokens.create({ expiresAt: '2031-02-29' })],
  ['expiry in month 13', 'expiresAt', (c) => c.tokens.create({ expiresAt: '2031-13-01' })],
  ['token id 0', 'id', (c) => c.tokens.activate({ id: 0 })],
  ['negative token id', 'id', (c) => c.tokens.deactivate({ id: -3 })],
  ['fractional token id', 'id', (c) => c.tokens.delete({ id: 1.5 })],
  ['string token id', 'id', (c) => c.tokens.delete({ id: '7' as unknown as number })],
  // shapes
  ['undefined input', 'input', (c) => c.ips.add(undefined as never)],
  ['null input', 'input', (c) => c.subAccounts.create(null as never)],
];

const GOOD: Array<[string, Run, string]> = [
  ['30-character username with every allowed sign', (c) => c.subAccounts.get(`A.z@0+9-${'x'.repeat(22)}`), 'ok'],
  ['128-character password', (c) => c.subAccounts.edit({ username: 'alice', password: 'p'.repeat(128) }), 'ok'],
  [
    '20-character names, 255-character email',
    (c) => c.subAccounts.create({ username: 'alice', firstName: 'f'.repeat(20), lastName: 'l'.repeat(20), email: `${'e'.repeat(243)}@example.com` }),
    'ok',
  ],
  ['empty strings to clear fields', (c) => c.subAccounts.edit({ username: 'alice', firstName: '', lastName: '', email: '' }), 'ok'],
  ['zero and large safe limits', (c) => c.subAccounts.edit({ username: 'alice', monthlyLimit: 0, totalLimit: Number.MAX_SAFE_INTEGER }), 'ok'],
  ['edge IPs', (c) => c.ips.add({ ip: '255.255.255.255', label: 'l'.repeat(100) }), 'ok'],
  ['IP 0.0.0.0', (c) => c.ips.delete({ ip: '0.0.0.0' }), 'ok'],
  ['a domain with a hex-looking label before a name', (c) => c.hostnames.add({ domain: '0x7f.example.com' }), 'ok'],
  ['100-character token label and a leap day', (c) => c.tokens.create({ label: 't'.repeat(100), expiresAt: '2032-02-29' }), 'ok'],
  ['an empty expiry', (c) => c.tokens.create({ expiresAt: '' }), 'ok'],
];

describe('client-side validation', () => {
  it.each(BAD)('rejects %s naming field %s, without a request', async (_name, field, run) => {
    const h = harness();
    const err = await caught(() => run(h.client));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.code).toBe('ERR_INVALID_ARGUMENT');
    expect(err.field).toBe(field);
    expect(err.message.startsWith(`invalid ${field}: `)).toBe(true);
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it.each(GOOD)('accepts %s', async (_name, run) => {
    const h = harness();
    // Any failure here must come from the server, not from validation: a refusal, which is
    // answered once (a 5xx would be retried for the calls that may be repeated).
    h.reply({ status: 418, body: 'x' });
    const err = await caught(() => run(h.client));
    expect(err).not.toBeInstanceOf(InvalidArgumentError);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('never echoes a rejected password', async () => {
    const h = harness();
    const password = `secret-${'z'.repeat(130)}`;
    const err = await caught(() => h.client.subAccounts.create({ username: 'alice', password }));
    expect(err.message).not.toContain('secret-');
    expect(err.message).toContain('at most 128 characters (got 137)');
    await h.done();
  });

  it('says why a domain with a numeric last label is refused: it is an IP address', async () => {
    const h = harness();
    const err = await caught(() => h.client.hostnames.add({ domain: '127.0.0.0x1' }));
    expect(err.message).toBe(
      'invalid domain: "127.0.0.0x1" is not a host name such as app.example.com: labels of letters, digits and inner hyphens joined by dots, ' +
        'at most 253 characters, no wildcard, not an IP address (a numeric last label such as 7 or 0x1f makes one)',
    );
    await h.done();
  });

  it('counts characters, not UTF-16 units', async () => {
    const h = harness();
    h.reply({ status: 418 });
    // 20 emoji are 40 UTF-16 units but 20 characters.
    const err = await caught(() => h.client.subAccounts.edit({ username: 'alice', firstName: '😀'.repeat(20) }));
    expect(err).not.toBeInstanceOf(InvalidArgumentError);
    await h.done();
  });
});
