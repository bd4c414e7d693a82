// Who may pass the emulated proxies, with curl as the client: Basic and Bearer credentials (also
// on CONNECT, also in Authorization), authorized IPs and hostnames, the parent's authorized
// proxies, deactivated sub-accounts, the deactivated token's grace period, expired and unknown
// tokens, and the statuses of every refusal.
import { useProxyWorld, authorizeProxies, createSub, createToken, emulatorDate } from './proxy-fixtures';
import { connect } from 'node:net';
import { basicHeader, curl, headerOf, PARENT, RUNNER_HOST } from './proxy-world';

const world = useProxyWorld();

const NY = (): string => world().proxyUrl('us-ny');
const target = (): string => `${world().httpTarget}/page?size=10`;

describe('credentials', () => {
  test('Basic username:password (-U) passes, the exit IP comes back, the target never sees the credentials', async () => {
    const res = await curl(['-x', NY(), '-U', `${PARENT.username}:${PARENT.password}`, target()]);
    expect(res.status).toBe(200);
    expect(res.body).toBe('x'.repeat(10));
    expect(headerOf(res.headers, world().emulator.exitIpHeader)).toMatch(/^2001:db8:/);
    expect(world().lastSeen()?.headers['proxy-authorization']).toBeUndefined();
  });

  test('a wrong password, an unknown user, a malformed header and no credentials get 407 with Proxy-Authenticate', async () => {
    const before = world().lastSeen();
    for (const args of [['-U', `${PARENT.username}:wrong`], ['-U', 'nobody:whatever'], ['--proxy-header', 'Proxy-Authorization: Digest abc'], []]) {
      const res = await curl(['-x', NY(), ...args, target()]);
      expect(res.status).toBe(407);
      expect(headerOf(res.headers, 'Proxy-Authenticate')).toMatch(/realm=/);
    }
    // Nothing reached the target.
    expect(world().lastSeen()).toBe(before);
  });

  test('Bearer token in Proxy-Authorization (--proxy-header) passes; an unknown token gets 407', async () => {
    const sub = await createSub(world(), 'bear1');
    const token = await createToken(world(), sub.username);
    expect((await curl(['-x', NY(), '--proxy-header', `Proxy-Authorization: Bearer ${token.raw}`, target()])).status).toBe(200);
    expect((await curl(['-x', NY(), '--proxy-header', `Proxy-Authorization: Bearer ${token.raw}x`, target()])).status).toBe(407);
  });

  test('Bearer in Authorization passes too, and that header is not forwarded to the target', async () => {
    const token = await createToken(world());
    const res = await curl(['-x', NY(), '-H', `Authorization: Bearer ${token.raw}`, target()]);
    expect(res.status).toBe(200);
    expect(world().lastSeen()?.headers.authorization).toBeUndefined();
  });

  test('an Authorization header meant for the target is forwarded when Proxy-Authorization authenticates', async () => {
    const res = await curl(['-x', NY(), '-U', `${PARENT.username}:${PARENT.password}`, '-H', 'Authorization: Basic dGFyZ2V0OnB3', target()]);
    expect(res.status).toBe(200);
    expect(world().lastSeen()?.headers.authorization).toBe('Basic dGFyZ2V0OnB3');
  });

  test('CONNECT (-p) to an HTTPS target carries the credentials; refused on the CONNECT without them', async () => {
    const token = await createToken(world());
    const ok = await curl([
      '-p',
      '-x',
      NY(),
      '--proxy-header',
      `Proxy-Authorization: Bearer ${token.raw}`,
      '--cacert',
      world().targetCaFile,
      `${world().httpsTarget}/s?size=7`,
    ]);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('x'.repeat(7));
    expect(headerOf(ok.headers, world().emulator.exitIpHeader)).toMatch(/^2001:db8:/);
    expect(world().lastSeen()?.headers['proxy-authorization']).toBeUndefined();
    const refused = await curl(['-p', '-x', NY(), '--cacert', world().targetCaFile, `${world().httpsTarget}/s`]);
    expect(refused.status).toBe(407);
  });

  test('an expired token is refused (emulator clock)', async () => {
    const token = await createToken(world(), undefined, await emulatorDate(world(), 2));
    const send = () => curl(['-x', NY(), '--proxy-header', `Proxy-Authorization: Bearer ${token.raw}`, target()]);
    expect((await send()).status).toBe(200);
    await world().control('/_emulator/clock', { advanceSeconds: 3 * 86_400 });
    expect((await send()).status).toBe(407);
  });

  test('a deactivated token keeps working for five minutes, then is refused; reactivated, it works again', async () => {
    const sub = await createSub(world(), 'grace1');
    const token = await createToken(world(), sub.username);
    const send = () => curl(['-x', NY(), '--proxy-header', `Proxy-Authorization: Bearer ${token.raw}`, target()]);
    expect((await world().api('POST', '/api/token/deactivate/', { id: String(token.id), username: sub.username })).status).toBe(200);
    expect((await send()).status).toBe(200);
    await world().control('/_emulator/clock', { advanceSeconds: 290 });
    expect((await send()).status).toBe(200);
    await world().control('/_emulator/clock', { advanceSeconds: 11 });
    expect((await send()).status).toBe(407);
    expect((await world().api('POST', '/api/token/activate/', { id: String(token.id), username: sub.username })).status).toBe(200);
    expect((await send()).status).toBe(200);
  });
});

describe('Basic credentials are decoded as strictly as the API decodes them', () => {
  // With an ip_hash chosen so that the standard form holds `/` and `+`, and padding.
  const text = `${PARENT.username}:?>>>?~~:${PARENT.password}`;
  const standard = Buffer.from(text).toString('base64');
  const unpadded = Buffer.from(`${PARENT.username}:${PARENT.password}`).toString('base64');
  const send = (value: string, header = 'Proxy-Authorization') => curl(['-x', NY(), '--proxy-header', `${header}: Basic ${value}`, target()]);

  test('the standard form passes (the forms below differ from it only in how they are written)', async () => {
    expect([standard, unpadded]).toEqual([expect.stringMatching(/[+/].*[+/].*==$/), expect.stringMatching(/[^=]=$/)]);
    expect((await send(standard)).status).toBe(200);
    expect((await send(unpadded)).status).toBe(200);
  });

  test.each([
    ['base64url alphabet', () => standard.replace(/\+/g, '-').replace(/\//g, '_'), text],
    ['base64url without padding', () => Buffer.from(text).toString('base64url'), text],
    ['padding left out', () => unpadded.replace(/=+$/, ''), `${PARENT.username}:${PARENT.password}`],
    ['a stray character', () => `${unpadded.slice(0, 8)}!${unpadded.slice(8)}`, `${PARENT.username}:${PARENT.password}`],
    ['a space inside', () => `${unpadded.slice(0, 8)} ${unpadded.slice(8)}`, `${PARENT.username}:${PARENT.password}`],
    ['padding bits not zero', () => unpadded.replace(/E=$/, 'F='), `${PARENT.username}:${PARENT.password}`],
  ])('%s: 407 with Proxy-Authenticate, as for wrong credentials; nothing reaches the target', async (_what, value, meant) => {
    const written = value();
    // Node's lenient decoder reads each as the right credentials: only strict decoding refuses them.
    expect([written === standard || written === unpadded, Buffer.from(written, 'base64').toString('utf8')]).toEqual([false, meant]);
    const before = world().lastSeen();
    const res = await send(written);
    expect(res.status).toBe(407);
    expect(headerOf(res.headers, 'Proxy-Authenticate')).toMatch(/realm=/);
    expect(res.body).toBe('malformed Basic credentials\n');
    expect(world().lastSeen()).toBe(before);
  });

  test('credentials that are not UTF-8 are refused, even when read leniently they would match', async () => {
    // A lenient decoder turns the Latin-1 `é` into U+FFFD, which this password holds.
    const created = await world().api('POST', '/api/sub/create/', { username: 'latin', password: 'caf\uFFFD' });
    expect(created.status).toBe(200);
    expect((await send(Buffer.from('latin:caf\uFFFD').toString('base64'))).status).toBe(200);
    const res = await send(Buffer.from('latin:caf\u00e9', 'latin1').toString('base64'));
    expect([res.status, res.body]).toEqual([407, 'malformed Basic credentials\n']);
  });

  test('on CONNECT too', async () => {
    const res = await curl([
      '-p',
      '-x',
      NY(),
      '--proxy-header',
      `Proxy-Authorization: Basic ${Buffer.from(text).toString('base64url')}`,
      '--cacert',
      world().targetCaFile,
      `${world().httpsTarget}/s`,
    ]);
    expect(res.status).toBe(407);
  });

  test("in Authorization, base64url is not taken for proxy credentials: the header is the target's", async () => {
    expect((await send(standard, 'Authorization')).status).toBe(200);
    expect((await send(Buffer.from(text).toString('base64url'), 'Authorization')).status).toBe(407);
  });
});

describe('what the proxy does with a request, beyond admitting it', () => {
  test('an ip_hash in Basic credentials follows the same rule as in a Bearer token', async () => {
    const basic = (hash: string): string[] => [
      '-x',
      NY(),
      '--proxy-header',
      `Proxy-Authorization: ${basicHeader(PARENT.username, `${hash}:${PARENT.password}`)}`,
      target(),
    ];
    expect((await curl(basic('job42'))).status).toBe(200);
    expect((await curl(basic('job 42'))).status).toBe(407);
    expect((await curl(basic('x'.repeat(129)))).status).toBe(407);
  });

  test('a refused CONNECT is closed by the proxy, so a client that keeps its side open holds no connection slot', async () => {
    const url = new URL(world().proxyUrl('us-ny'));
    // Half-open allowed: like a client that never closes, this one does not end its side on the proxy's FIN.
    const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    socket.on('error', () => undefined);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    const ended = new Promise<void>((resolve) => socket.on('end', () => resolve()));
    const closed = new Promise<boolean>((resolve) => socket.on('close', () => resolve(true)));
    socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 407 /);
    // Writing on: a proxy that only half-closed would read on; one that closed resets the connection.
    const poke = setInterval(() => socket.write('x'), 50);
    try {
      // Unref'd, as the timer that loses the race must not hold the worker open after the file.
      expect(await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref())])).toBe(true);
    } finally {
      clearInterval(poke);
      socket.destroy();
    }
  });

  test("the target gets the absolute URL's host in Host, whatever the client sent", async () => {
    const url = new URL(world().proxyUrl('us-ny'));
    const socket = connect(Number(url.port), url.hostname);
    const done = new Promise<string>((resolve) => {
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      socket.on('close', () => resolve(answer));
    });
    // HTTP/1.0 without Host, through the proxy.
    socket.write(`GET ${target()} HTTP/1.0\r\nProxy-Authorization: ${basicHeader(PARENT.username, PARENT.password)}\r\n\r\n`);
    expect(await done).toMatch(/^HTTP\/1\.1 200 /);
    expect(world().lastSeen()?.headers.host).toBe(new URL(target()).host);
  });
});

describe('authorized IPs and hostnames', () => {
  test('a request from an authorized IP needs no credentials and acts as the account that authorized it', async () => {
    const sub = await createSub(world(), 'byip', { monthly_limit: '1' });
    expect((await world().api('POST', '/api/ip/add/', { ip: '127.0.0.2', username: sub.username })).status).toBe(200);
    const fromIp = await curl(['-x', NY(), '--interface', '127.0.0.2', `${world().httpTarget}/p?size=1000`]);
    expect(fromIp.status).toBe(200);
    // It acted as byip: byip's limit (1 GB = 1000 bytes here) is now reached.
    expect((await curl(['-x', NY(), '--interface', '127.0.0.2', target()])).status).toBe(509);
    // Another address is not authorized.
    expect((await curl(['-x', NY(), '--interface', '127.0.0.4', target()])).status).toBe(407);
  });

  test('a client its address admits keeps its own Authorization for the target, whatever the scheme', async () => {
    const sub = await createSub(world(), 'byipauth');
    expect((await world().api('POST', '/api/ip/add/', { ip: '127.0.0.5', username: sub.username })).status).toBe(200);
    for (const header of [
      'Authorization: Digest username="u", realm="r"',
      'Authorization: token ghp_abc',
      'Authorization: Basic dGFyZ2V0OnNlY3JldA==',
      'Authorization: Bearer eyJ.target.jwt',
    ]) {
      const res = await curl(['-x', NY(), '--interface', '127.0.0.5', '-H', header, target()]);
      expect([header, res.status]).toEqual([header, 200]);
      // Not the proxy's: forwarded as sent.
      expect(world().lastSeen()?.headers.authorization).toBe(header.slice('Authorization: '.length));
    }
    // From an address nobody authorized, unknown credentials are still refused.
    expect((await curl(['-x', NY(), '--interface', '127.0.0.4', '-H', 'Authorization: Basic dGFyZ2V0OnNlY3JldA==', target()])).status).toBe(407);
  });

  test('a request from the address an authorized hostname resolves to needs no credentials', async () => {
    const sub = await createSub(world(), 'byhost');
    expect((await curl(['-x', NY(), '--interface', '127.0.0.3', target()])).status).toBe(407);
    expect((await world().api('POST', '/api/hostname/add/', { domain: RUNNER_HOST, username: sub.username })).status).toBe(200);
    expect((await curl(['-x', NY(), '--interface', '127.0.0.3', target()])).status).toBe(200);
    expect(world().log.some((l) => /as byhost \(hostname\)/.test(l))).toBe(true);
  });
});

describe('what the account may use', () => {
  test('only the proxies the parent authorized serve its family: others answer 403', async () => {
    const sub = await createSub(world(), 'fam1');
    const creds = ['-U', `${sub.username}:${sub.password}`];
    expect((await curl(['-x', NY(), ...creds, target()])).status).toBe(200);
    expect((await curl(['-x', world().proxyUrl('gb-lon'), ...creds, target()])).status).toBe(403);
    await authorizeProxies(world(), 'gb-lon');
    expect((await curl(['-x', world().proxyUrl('gb-lon'), ...creds, target()])).status).toBe(200);
  });

  test('a deactivated sub-account gets 402 on HTTP and on CONNECT', async () => {
    const sub = await createSub(world(), 'off1');
    expect((await world().api('POST', '/api/sub/deactivate/', { username: sub.username })).status).toBe(200);
    expect((await curl(['-x', NY(), '-U', `${sub.username}:${sub.password}`, target()])).status).toBe(402);
    const connect = await curl([
      '-p',
      '-x',
      NY(),
      '--proxy-header',
      `Proxy-Authorization: ${basicHeader(sub.username, sub.password)}`,
      '--cacert',
      world().targetCaFile,
      world().httpsTarget,
    ]);
    expect(connect.status).toBe(402);
  });

  test('the country header picks the exit country; an unknown country gets 400', async () => {
    const creds = ['-U', `${PARENT.username}:${PARENT.password}`];
    for (const [code, hex] of [
      ['DE', '4445'],
      ['jp', '4a50'],
    ] as const) {
      const res = await curl(['-x', NY(), ...creds, '--proxy-header', `${world().emulator.countryHeader}: ${code}`, target()]);
      expect(res.status).toBe(200);
      expect(headerOf(res.headers, world().emulator.exitIpHeader)).toMatch(new RegExp(`^2001:db8:${hex}::`));
    }
    const unknown = await curl(['-x', NY(), ...creds, '--proxy-header', `${world().emulator.countryHeader}: ZZ`, target()]);
    expect(unknown.status).toBe(400);
  });

  test('targets other than loopback are refused with 403 (never an open proxy)', async () => {
    const res = await curl(['-x', NY(), '-U', `${PARENT.username}:${PARENT.password}`, 'http://192.0.2.1/']);
    expect(res.status).toBe(403);
  });

  test('an IPv4-mapped loopback target is loopback both ways in, absolute-form and CONNECT; a mapped remote one is not', async () => {
    const creds = ['-U', `${PARENT.username}:${PARENT.password}`];
    const mapped = `http://[::ffff:127.0.0.1]:${new URL(world().httpTarget).port}`;
    // WHATWG URL writes the absolute-form target as [::ffff:7f00:1]; a CONNECT authority keeps it as sent.
    const plain = await curl(['-x', NY(), ...creds, `${mapped}/m?size=3`]);
    expect([plain.status, plain.body]).toEqual([200, 'xxx']);
    const tunnelled = await curl(['-p', '-x', NY(), ...creds, `${mapped}/m?size=4`]);
    expect([tunnelled.status, tunnelled.body]).toEqual([200, 'xxxx']);
    for (const args of [[], ['-p']]) expect((await curl([...args, '-x', NY(), ...creds, 'http://[::ffff:c000:201]/'])).status).toBe(403);
  });

  test('oversized request headers get 431', async () => {
    const res = await curl(['-x', NY(), '-U', `${PARENT.username}:${PARENT.password}`, '-H', `X-Big: ${'a'.repeat(20_000)}`, target()]);
    expect(res.status).toBe(431);
  });
});

test('no password or token ever appears in the log', async () => {
  const token = await createToken(world());
  await curl(['-x', NY(), '-U', `${PARENT.username}:${PARENT.password}`, target()]);
  await curl(['-x', NY(), '--proxy-header', `Proxy-Authorization: Bearer ${token.raw}:sess-1`, target()]);
  await curl(['-x', NY(), '-U', `${PARENT.username}:wrong-Password`, target()]);
  const all = world().log.join('\n');
  expect(all).toContain('proxy us-ny');
  for (const secret of [PARENT.password, token.raw, 'wrong-Password', basicHeader(PARENT.username, PARENT.password)]) expect(all).not.toContain(secret);
});
