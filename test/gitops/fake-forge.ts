// A local stand-in for what the CI templates reach besides the account API: Terraform's http
// state backend (GET/POST state, LOCK/UNLOCK) and the few GitLab API calls (merge-request note,
// issue, and whatever answers a test sets: the merged merge request, the review's artifacts; any
// other artifact download is a 404).
// Loopback only; records what it was asked.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeForge {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  readonly url: string;
  /** Stored state documents by path. */
  readonly states: Map<string, string>;
  /** Every other request: method and path. */
  readonly calls: string[];
  /** The form body of every POST among `calls`, by method and path, in order. */
  readonly posted: Array<{ readonly call: string; readonly body: string }>;
  /** Answers `method` on `url` (path and query, as sent) with `status` and `body` from now on. */
  answer(method: string, url: string, status: number, body: string | Buffer): void;
  close(): Promise<void>;
}

export async function startFakeForge(): Promise<FakeForge> {
  const states = new Map<string, string>();
  const locks = new Set<string>();
  const calls: string[] = [];
  const posted: Array<{ call: string; body: string }> = [];
  const answers = new Map<string, { status: number; body: string | Buffer }>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const p = url.pathname;
      const send = (status: number, text: string | Buffer = ''): void => {
        res.writeHead(status, { 'content-type': typeof text === 'string' ? 'application/json' : 'application/zip' });
        res.end(text);
      };
      const canned = answers.get(`${req.method} ${req.url}`);
      if (canned !== undefined) {
        calls.push(`${req.method} ${p}`);
        return send(canned.status, canned.body);
      }
      if (/\/terraform\/state\/[^/]+\/lock$/.test(p) || p.endsWith('/lock')) {
        const key = p.slice(0, -'/lock'.length);
        if (req.method === 'DELETE' || req.method === 'UNLOCK') {
          locks.delete(key);
          return send(200);
        }
        if (locks.has(key)) return send(409, '{}');
        locks.add(key);
        return send(200);
      }
      if (p.includes('/terraform/state/') || p.startsWith('/state/')) {
        if (req.method === 'GET') return states.has(p) ? send(200, states.get(p)) : send(404);
        if (req.method === 'POST') {
          states.set(p, body);
          return send(200);
        }
        if (req.method === 'LOCK') return send(200);
        if (req.method === 'UNLOCK') return send(200);
      }
      calls.push(`${req.method} ${p}`);
      if (req.method === 'POST') posted.push({ call: `${req.method} ${p}`, body });
      // A job's artifacts nobody set: GitLab's answer when a ref has no successful pipeline.
      if (req.method === 'GET' && p.includes('/jobs/artifacts/')) return send(404, '{"message":"404 Not found"}');
      send(201, '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    states,
    calls,
    posted,
    answer: (method, url, status, body) => answers.set(`${method} ${url}`, { status, body }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
