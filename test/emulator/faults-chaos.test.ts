// Faults for chaos tests: lost answers (the change is made, the answer never comes), late
// answers, Retry-After on injected statuses, statuses without content, strict fault definitions
// (none that could never fire or would do nothing), faults that let requests pass, clearing
// faults, and the server's own request timeout for bodies that never arrive.
import { connect } from 'node:tls';
import { errors } from 'undici';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, DEMO, emulatorState, type ApiResponse } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

const admin = (): { bearer: string } => ({ bearer: em.adminToken });

function addFault(spec: object): Promise<ApiResponse> {
  return api(em, 'POST', '/_emulator/faults', { auth: admin(), body: JSON.stringify(spec), contentType: 'application/json' });
}

async function fault(spec: object): Promise<void> {
  const res = await addFault(spec);
  if (res.status !== 200) throw new Error(`fault refused: ${res.status} ${res.text}`);
}

describe('dropResponse', () => {
  it('makes the change, then drops the connection without an answer', async () => {
    await fault({ path: '/api/ip/add/', method: 'POST', dropResponse: true });
    await expect(api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.10', label: 'lost' } })).rejects.toBeInstanceOf(errors.SocketError);
    expect((await emulatorState(em)).accounts[0]!.ips).toEqual([{ ip: '192.0.2.10', label: 'lost' }]);
    // One use only: the retry that a careful client makes sees the object already there.
    const again = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.10' } });
    expect(again.status).toBe(400);
    expect(again.text).toContain('already authorized');
  });

  it('drops the answer of a refused request too, and nothing is changed', async () => {
    await fault({ path: '/api/sub/create/', dropResponse: true });
    await expect(api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'bad name' } })).rejects.toBeInstanceOf(errors.SocketError);
    expect((await emulatorState(em)).accounts[0]!.subAccounts).toEqual([]);
  });
});

describe('delayAfterMs', () => {
  it('makes the change at once and answers late', async () => {
    await fault({ path: '/api/sub/create/', delayAfterMs: 4000 });
    await expect(api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'late1' }, headersTimeout: 400 })).rejects.toBeInstanceOf(
      errors.HeadersTimeoutError,
    );
    expect((await emulatorState(em)).accounts[0]!.subAccounts.map((s) => s.username)).toEqual(['late1']);
  });

  it('a patient client gets the normal answer, even past the server request timeout', async () => {
    await fault({ path: '/api/sub/create/', delayAfterMs: 6000 });
    const res = await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'late2' }, headersTimeout: 20_000 });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ username: 'late2' });
  }, 20_000);

  it('with dropResponse, waits and then drops', async () => {
    await fault({ path: '/api/hostname/add/', delayAfterMs: 100, dropResponse: true });
    await expect(api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain: 'a.example.com' } })).rejects.toBeInstanceOf(errors.SocketError);
    expect((await emulatorState(em)).accounts[0]!.hostnames).toEqual(['a.example.com']);
  });
});

describe('statusAfterServing', () => {
  it("makes the change, then answers the status: a gateway's 504 after the server behind it did the work", async () => {
    await fault({ path: '/api/ip/add/', method: 'POST', statusAfterServing: 504 });
    const res = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.30', label: 'made' } });
    expect(res.status).toBe(504);
    expect((await emulatorState(em)).accounts[0]!.ips).toEqual([{ ip: '192.0.2.30', label: 'made' }]);
  });
});

describe('delayMs', () => {
  it('still serves a request whose client gave up during the delay, as a real server does', async () => {
    await fault({ path: '/api/ip/add/', method: 'POST', delayMs: 2500 });
    await expect(api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.31' }, headersTimeout: 400 })).rejects.toBeInstanceOf(
      errors.HeadersTimeoutError,
    );
    let ips: unknown[] = [];
    for (let i = 0; i < 250 && ips.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      ips = (await emulatorState(em)).accounts[0]!.ips;
    }
    expect(ips).toEqual([{ ip: '192.0.2.31', label: '' }]);
  });
});

describe('Retry-After on injected statuses', () => {
  it('sends retryAfterSeconds as Retry-After', async () => {
    await fault({ path: '/api/ips/', status: 503, retryAfterSeconds: 7 });
    const res = await api(em, 'GET', '/api/ips/', { auth: DEMO });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
  });

  it('sends no Retry-After when none is asked for', async () => {
    await fault({ path: '/api/ips/', status: 503 });
    const res = await api(em, 'GET', '/api/ips/', { auth: DEMO });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeUndefined();
  });
});

describe('fault definitions are checked', () => {
  it.each([
    [{ path: '/api/ips/', status: 503, retryAfter: 5 }, '"retryAfter"'],
    [{ path: '/api/ips/', status: 503, dropresponse: true }, '"dropresponse"'],
    [{ path: '/api/ips/', delayMs: 600_001 }, 'delayMs'],
    [{ path: '/api/ips/', delayAfterMs: 1e12 }, 'delayAfterMs'],
    [{ path: '/api/ips/', delayMs: 2 ** 31 }, 'delayMs'],
    [{ path: '/api/ips/', delayMs: -1 }, 'delayMs'],
    [{ path: '/api/ips/', dropResponse: 'yes' }, 'dropResponse'],
    [{ path: '/api/ips/', reset: 1 }, 'reset'],
    [{ path: '/api/ips/', status: 503, dropResponse: true }, 'one kind'],
    [{ path: '/api/ips/', reset: true, delayAfterMs: 10 }, 'one kind'],
    [{ path: '/api/ips/', status: 503, statusAfterServing: 504 }, 'one kind'],
    [{ path: '/api/ips/', statusAfterServing: 504, dropResponse: true }, 'give one'],
    // Was accepted, and reset won: the 503 and its Retry-After were never sent.
    [{ path: '/api/ips/', status: 503, retryAfterSeconds: 5, reset: true }, 'status answers, "reset": true closes the connection without an answer: give one'],
    [{ path: '/api/ips/', statusAfterServing: 200 }, 'statusAfterServing'],
    [{ path: '/api/ips/', retryAfterSeconds: 5, delayMs: 10 }, 'retryAfterSeconds needs a status'],
    [{ path: '/api/ips/', status: 503, retryAfterSeconds: 1.5 }, 'retryAfterSeconds'],
    [{ path: '/api/ips/', status: 503, count: 0 }, 'count'],
    [{ path: '/api/ips/', status: 100 }, 'status must be an integer from 200 to 599'],
    [{ path: '/api/ips/', status: 101 }, 'status must be an integer from 200 to 599'],
    [{ path: '/api/ips/', status: 199 }, 'status must be an integer from 200 to 599'],
    [{ path: '/api/ips', status: 503 }, 'path /api/ips matches no API route (did you mean /api/ips/?)'],
    [{ path: '/api/ipz/', status: 503 }, 'path /api/ipz/ matches no API route'],
    [{ path: '/api/ipz*', status: 503 }, 'path /api/ipz* matches no API route'],
    [{ path: '/_emulator/state', status: 503 }, "path /_emulator/state is the control API's"],
    [{ path: '/_emulator/*', status: 503 }, "is the control API's"],
    [{ path: '/api/ips/', method: 'FETCH', status: 503 }, 'method must be GET or POST'],
    [{ path: '/api/ips/', method: 'HEAD', status: 503 }, 'method must be GET or POST'],
    [{ path: '/api/ip/add/', method: 'GET', status: 503 }, 'method GET matches no API route of path /api/ip/add/ (it takes POST)'],
    [{ path: '/api/geoips/*', method: 'post', status: 503 }, 'method POST matches no API route of path /api/geoips/* (they take GET)'],
    [{ path: '/api/ips/', delayMs: 0 }, 'a delay of 0 ms alone does nothing'],
    [{ path: '/api/ips/', delayAfterMs: 0 }, 'a delay of 0 ms alone does nothing'],
    [{ path: '/api/ips/', delayMs: 0, delayAfterMs: 0, reset: false }, 'a delay of 0 ms alone does nothing'],
    [{ path: '/api/ips/', pass: true, status: 503 }, '"pass": true lets requests through untouched'],
    [{ path: '/api/ips/', pass: true, delayMs: 0 }, '"pass": true lets requests through untouched'],
    [{ path: '/api/ips/', pass: 'yes' }, 'pass must be true or false'],
    [{ path: '/api/ips/', pass: false }, 'give status'],
  ])('refuses %j with 400 naming the problem', async (spec, expected) => {
    const res = await addFault(spec);
    expect(res.status).toBe(400);
    expect(res.json<{ error: string }>().error).toContain(expected);
    expect((await emulatorState(em)).faults).toEqual([]);
  });

  it('accepts the longest delay (10 minutes)', async () => {
    const res = await addFault({ path: '/api/ips/', delayMs: 600_000 });
    expect(res.status).toBe(200);
    expect(res.json<{ faults: Array<{ delayMs: number }> }>().faults).toEqual([expect.objectContaining({ delayMs: 600_000 })]);
  });
});

describe('what a fault may name', () => {
  it('any method of a route, lower-case too, and a prefix that matches routes', async () => {
    for (const spec of [
      { path: '/api/ips/', method: 'get', status: 503 },
      { path: '/api/sub/*', method: 'POST', status: 500 },
      { path: '/*', delayMs: 1 },
    ]) {
      expect((await addFault(spec)).status).toBe(200);
    }
    expect((await emulatorState(em)).faults).toHaveLength(3);
  });
});

describe('statuses without content', () => {
  it.each([204, 304])('%i is answered without a body or Content-Length, and nothing is changed', async (status) => {
    await fault({ path: '/api/ip/add/', status });
    const res = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.30' } });
    expect([res.status, res.text, res.headers['content-length'], res.headers['content-type']]).toEqual([status, '', undefined, undefined]);
    expect((await emulatorState(em)).accounts[0]!.ips).toEqual([]);
    // The connection is still good for the next request.
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });

  it('205 with Content-Length: 0', async () => {
    await fault({ path: '/api/ips/', status: 205 });
    const res = await api(em, 'GET', '/api/ips/', { auth: DEMO });
    expect([res.status, res.text, res.headers['content-length']]).toEqual([205, '', '0']);
  });
});

describe('pass', () => {
  it('lets `count` matching requests through untouched, so the next fault hits the request after them', async () => {
    await fault({ path: '/api/ips/', method: 'GET', pass: true, count: 2 });
    await fault({ path: '/api/ips/', status: 503 });
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    expect((await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.31' } })).status).toBe(200);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: ['192.0.2.31'] });
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(503);
    expect((await emulatorState(em)).faults).toEqual([]);
  });
});

describe('listing and clearing faults', () => {
  it('GET lists pending faults; DELETE clears them and service resumes', async () => {
    await fault({ path: '/api/ips/', status: 500, count: 3 });
    await fault({ path: '/api/hostnames/', dropResponse: true });
    const listed = await api(em, 'GET', '/_emulator/faults', { auth: admin() });
    expect(listed.json<{ faults: Array<{ path: string; remaining: number }> }>().faults).toEqual([
      expect.objectContaining({ path: '/api/ips/', remaining: 3 }),
      expect.objectContaining({ path: '/api/hostnames/', remaining: 1, dropResponse: true }),
    ]);
    const cleared = await api(em, 'DELETE', '/_emulator/faults', { auth: admin() });
    expect(cleared.status).toBe(200);
    expect(cleared.json()).toEqual({ faults: [] });
    expect((await emulatorState(em)).faults).toEqual([]);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    expect((await api(em, 'GET', '/api/hostnames/', { auth: DEMO })).status).toBe(200);
  });

  it('DELETE needs the admin token; other methods get 405 with Allow', async () => {
    await fault({ path: '/api/ips/', status: 500 });
    expect((await api(em, 'DELETE', '/_emulator/faults', { auth: DEMO })).status).toBe(401);
    expect((await emulatorState(em)).faults).toHaveLength(1);
    const put = await api(em, 'PUT', '/_emulator/faults', { auth: admin() });
    expect(put.status).toBe(405);
    expect(String(put.headers['allow']).split(', ').sort()).toEqual(['DELETE', 'GET', 'POST']);
  });
});

describe('request timeout', () => {
  it('answers 408, dated by the emulator clock, to a body shorter than its Content-Length instead of hanging', async () => {
    await em.control.advanceClock(10 * 86_400);
    const { hostname, port } = new URL(em.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port), ca: em.caPem }, () => {
        const auth = Buffer.from('demo:demo-password').toString('base64');
        socket.write(
          'POST /api/ip/add/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
            `Authorization: Basic ${auth}\r\nContent-Length: 100\r\n\r\nip=192.0.2.99`,
        );
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\n\r\nrequest not received whole within 5 s\n$/);
    const skew = Date.parse(/\r\nDate: ([^\r]+)\r\n/.exec(answer)?.[1] ?? '') - Date.now();
    expect(skew).toBeGreaterThan(10 * 86_400_000 - 60_000);
    expect(skew).toBeLessThan(10 * 86_400_000 + 60_000);
    expect((await emulatorState(em)).accounts[0]!.ips).toEqual([]);
  }, 15_000);
});

describe('a shutdown while requests are being served', () => {
  it('lets one that finishes within the drain answer, and cuts the others with a line each saying whether the change was made', async () => {
    const own = await startEmulator();
    const lines: string[] = [];
    own.onStderrLine((l) => lines.push(l));
    const post = (path: string, form: Record<string, string>) =>
      api(own, 'POST', path, { auth: DEMO, form }).then(
        (r) => r.status,
        (e: unknown) => (e as Error).name,
      );
    const add = async (spec: object) => {
      const res = await api(own, 'POST', '/_emulator/faults', {
        auth: { bearer: own.adminToken },
        body: JSON.stringify(spec),
        contentType: 'application/json',
      });
      expect(res.status).toBe(200);
    };
    await add({ path: '/api/ip/add/', delayMs: 60_000 }); // never served before the drain ends
    await add({ path: '/api/hostname/add/', delayAfterMs: 60_000 }); // served, its answer held back
    await add({ path: '/api/proxy/add/', delayMs: 800 }); // served within the drain
    const pending = [
      post('/api/ip/add/', { ip: '192.0.2.20' }),
      post('/api/hostname/add/', { hostname: 'a.example.org' }),
      post('/api/proxy/add/', { proxy: 'us-ny' }),
    ];
    await new Promise((r) => setTimeout(r, 300));
    await own.stop();
    const [ip, hostname, proxy] = await Promise.all(pending);
    expect(proxy).toBe(200);
    expect([ip, hostname]).toEqual(['SocketError', 'SocketError']);
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/api\/proxy\/add\/ 200 \d+\.\dms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/api\/ip\/add\/ cut by shutdown \d+\.\dms \(not served\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/api\/hostname\/add\/ cut by shutdown \d+\.\dms \(its change was made, its answer is lost\)$/));
    // One line per request, no more.
    expect(lines.filter((l) => /^POST \/api\//.test(l))).toHaveLength(3);
  });
});
