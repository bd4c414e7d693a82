// client.serverNow(): the API's time from the Date header of its latest answer, so expiry can be
// judged on the API's clock. Unknown before any answer carried one; an unparsable header changes
// nothing; an error answer's Date counts too.
import { harness, status } from './harness';

describe('client.serverNow()', () => {
  it('is undefined until an answer carries a Date, then follows the latest one', async () => {
    const h = harness();
    try {
      expect(h.client.serverNow()).toBeUndefined();
      h.reply(
        { status: 200, body: { tokens: [] }, headers: { date: 'Wed, 01 Jan 2031 10:00:00 GMT' } },
        { status: 200, body: { tokens: [] }, headers: { date: 'not a date' } },
        status(404, 'no such account', { date: 'Thu, 02 Jan 2031 10:00:00 GMT' }),
      );
      await h.client.tokens.list();
      const first = h.client.serverNow()!.getTime();
      expect(first).toBeGreaterThanOrEqual(Date.parse('2031-01-01T10:00:00Z'));
      expect(first).toBeLessThan(Date.parse('2031-01-01T10:01:00Z'));
      await h.client.tokens.list();
      expect(h.client.serverNow()!.getTime()).toBeGreaterThanOrEqual(first);
      expect(h.client.serverNow()!.getTime()).toBeLessThan(Date.parse('2031-01-01T10:01:00Z'));
      await expect(h.client.tokens.list({ username: 'ghost' })).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
      expect(h.client.serverNow()!.toISOString().slice(0, 10)).toBe('2031-01-02');
    } finally {
      await h.done();
    }
  });
});
