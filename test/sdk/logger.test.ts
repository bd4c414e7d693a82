// The request log: one debug call per attempt with method, path, status or error code, duration
// and attempt number; never a secret or a query value; nothing at all without a logger.
import type { RequestLogFields } from '../../src/sdk';
import { caught, harness, netError, ok, PASSWORD, status, TOKEN } from './harness';

function recorder(): { logger: { debug(m: string, f: RequestLogFields): void }; entries: { message: string; fields: RequestLogFields }[] } {
  const entries: { message: string; fields: RequestLogFields }[] = [];
  return { entries, logger: { debug: (message, fields) => entries.push({ message, fields }) } };
}

it('logs each attempt of a retried call, with status, duration and attempt number', async () => {
  const { logger, entries } = recorder();
  const h = harness({ logger, maxRetries: 2 });
  h.reply(status(503, 'plan lookup failed'), netError('ECONNRESET', 'socket hang up'), ok({ ips: ['203.0.113.7'] }));
  await h.client.ips.list({ username: 'alice' });
  expect(entries.map((e) => e.fields)).toEqual([
    { method: 'GET', path: '/api/ips/', status: 503, durationMs: expect.any(Number), attempt: 1, maxRetries: 2 },
    { method: 'GET', path: '/api/ips/', error: 'ECONNRESET', durationMs: expect.any(Number), attempt: 2, maxRetries: 2 },
    { method: 'GET', path: '/api/ips/', status: 200, durationMs: expect.any(Number), attempt: 3, maxRetries: 2 },
  ]);
  for (const e of entries) {
    expect(e.message).toBe('proxyaccount API request');
    expect(e.fields.durationMs).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(e.fields.durationMs)).toBe(true);
  }
  await h.done();
});

it('never logs a secret, a query value or a form value', async () => {
  const { logger, entries } = recorder();
  const h = harness({ logger });
  h.reply(status(400, `bad password ${PASSWORD}`));
  await caught(() => h.client.subAccounts.create({ username: 'secret-user-name', password: 'Sub-Password-77' }));
  const text = JSON.stringify(entries);
  for (const s of [PASSWORD, 'Sub-Password-77', 'secret-user-name', 'Basic ', TOKEN]) expect(text).not.toContain(s);
  expect(entries).toHaveLength(1);
  expect(entries[0]?.fields).toMatchObject({ method: 'POST', path: '/api/sub/create/', status: 400 });
  await h.done();
});

it('logs nothing for calls refused before sending', async () => {
  const { logger, entries } = recorder();
  const h = harness({ logger });
  h.reply(status(401, 'invalid credentials'));
  await caught(() => h.client.ips.list());
  await caught(() => h.client.ips.list());
  expect(entries.map((e) => e.fields.status)).toEqual([401]);
  await h.done();
});

it('a throwing logger does not lose the answer of a write that was made', async () => {
  const h = harness({
    logger: {
      debug: () => {
        throw new Error('log sink broken');
      },
    },
  });
  h.reply(ok({ ip: '203.0.113.7' }));
  await expect(h.client.ips.add({ ip: '203.0.113.7' })).resolves.toMatchObject({ ip: '203.0.113.7' });
  await h.done();
});

it('without a logger the clock is not even read', async () => {
  const spy = jest.spyOn(performance, 'now');
  const h = harness();
  h.reply(ok({ ips: [] }));
  await h.client.ips.list();
  expect(spy).not.toHaveBeenCalled();
  spy.mockRestore();
  await h.done();
});

it('refuses a logger without debug()', () => {
  expect(() => harness({ logger: {} as never })).toThrow(/logger/);
});
