// The emulator's clock dates every answer (the `Date` header: API and control, the plain-HTTP 302,
// and the 400 or 408 for what Node's HTTP parser refuses), and the control API refuses clock
// moves and usage that would break it: a clock 1e13 s ahead made every token create answer 500,
// even after a restart with --state, and usage of 1e308 GB made bandwidth null. Each refusal is a
// 400 naming the limit, and a state file holding such a value from before starts on real time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, createSub, createToken, DEMO, emulatorState, type SubDetails } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

const control = (path: string, body: string): ReturnType<typeof api> =>
  api(em, 'POST', `/_emulator/${path}`, { auth: { bearer: em.adminToken }, body, contentType: 'application/json' });

describe('the Date header', () => {
  it('follows the emulator clock on every answer, API and control alike', async () => {
    const before = await api(em, 'GET', '/api/tokens/', { auth: DEMO });
    expect(Math.abs(Date.parse(String(before.headers.date)) - Date.now())).toBeLessThan(60_000);
    await em.control.advanceClock(10 * 86_400);
    for (const res of [
      await api(em, 'GET', '/api/tokens/', { auth: DEMO }),
      await api(em, 'GET', '/api/nothing/', { auth: DEMO }),
      await control('clock', '{"advanceSeconds":0}'),
    ]) {
      const skew = Date.parse(String(res.headers.date)) - Date.now();
      expect(skew).toBeGreaterThan(10 * 86_400_000 - 60_000);
      expect(skew).toBeLessThan(10 * 86_400_000 + 60_000);
    }
  });
});

describe('the Date header outside the API pipeline', () => {
  const expectTenDaysAhead = (date: string | undefined): void => {
    const skew = Date.parse(date ?? '') - Date.now();
    expect(skew).toBeGreaterThan(10 * 86_400_000 - 60_000);
    expect(skew).toBeLessThan(10 * 86_400_000 + 60_000);
  };

  /** Sends `bytes` over a new connection to `url` (TLS for https) and returns all it answers. */
  function raw(url: string, bytes: string): Promise<string> {
    const { protocol, hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = protocol === 'https:' ? tlsConnect({ host: hostname, port: Number(port), ca: em.caPem }) : netConnect(Number(port), hostname);
      socket.once(protocol === 'https:' ? 'secureConnect' : 'connect', () => socket.write(bytes));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
  }

  it('the plain-HTTP 302 follows the emulator clock', async () => {
    await em.control.advanceClock(10 * 86_400);
    const res = await request(`${em.httpUrl}/api/ips/`);
    await res.body.text();
    expect(res.statusCode).toBe(302);
    expectTenDaysAhead(String(res.headers.date));
  });

  it.each(['url', 'httpUrl'] as const)("a request Node's parser refuses (%s): 400 dated by the emulator clock, saying why", async (which) => {
    await em.control.advanceClock(10 * 86_400);
    const answer = await raw(em[which], 'GARBAGE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\n\r\nmalformed HTTP request\n$/);
    expectTenDaysAhead(/\r\nDate: ([^\r]+)\r\n/.exec(answer)?.[1]);
  });
});

describe('clock moves', () => {
  it.each(['1e13', '3.2e9', '1e400'])('refuses advanceSeconds %s with a 400 naming the limit, and keeps working', async (value) => {
    const res = await control('clock', `{"advanceSeconds":${value}}`);
    expect(res.status).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(/advanceSeconds must be (at most \d+|a number >= 0)/);
    expect((await emulatorState(em)).clockOffsetSeconds).toBe(0);
    await expect(createToken(em, DEMO, { label: 'after' })).resolves.toMatchObject({ id: expect.any(Number) });
  });

  it('counts earlier moves against the limit', async () => {
    expect((await control('clock', '{"advanceSeconds":3000000000}')).status).toBe(200);
    const res = await control('clock', '{"advanceSeconds":300000000}');
    expect(res.status).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(
      /at most \d+: the clock may run at most 3162240000 s \(100 years\) ahead of real time, and is 3000000000 s ahead now/,
    );
    await expect(createToken(em, DEMO)).resolves.toMatchObject({ id: expect.any(Number) });
  });
});

describe('a state file holding a clock offset no clock may hold', () => {
  it('starts on real time, and token creates answer 200', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxyaccount-test-clock-'));
    try {
      const stateFile = join(dir, 'state.db');
      const first = await startEmulator({ stateFile });
      await first.stop();
      // As an emulator without today's limit left it after `advanceSeconds: 1e13`.
      const db = new Database(stateFile);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('clock_offset_ms', '10000000000000000')").run();
      db.close();
      const second = await startEmulator({ stateFile });
      try {
        expect((await emulatorState(second)).clockOffsetSeconds).toBe(0);
        await expect(createToken(second, DEMO, { label: 'restored' })).resolves.toMatchObject({ id: expect.any(Number) });
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('usage records', () => {
  it.each(['1e308', '1e400', '-1', '1000001'])('refuses gb %s with a 400, and bandwidth stays a number', async (gb) => {
    await createSub(em, 'usage-sub');
    const res = await control('usage', `{"username":"usage-sub","gb":${gb}}`);
    expect(res.status).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(/gb must be/);
    const details = (await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'usage-sub' } })).json<SubDetails>();
    expect(details.total_bandwidth).toBe(0);
  });

  it('refuses a record that would take the total past what it can count exactly', async () => {
    await createSub(em, 'usage-sub');
    for (let i = 0; i < 9; i++) expect((await control('usage', '{"username":"usage-sub","gb":1000000}')).status).toBe(200);
    const res = await control('usage', '{"username":"usage-sub","gb":1000000}');
    expect(res.status).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(/past 9007199 GB/);
    const details = (await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'usage-sub' } })).json<SubDetails>();
    expect(details.total_bandwidth).toBe(9_000_000);
  });
});
