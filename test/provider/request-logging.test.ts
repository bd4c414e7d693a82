// With TF_LOG=DEBUG a user sees each API request in Terraform's log (method, path, status,
// duration, attempt), never a secret; at the default level the provider writes nothing for them.
import { subAccountResource } from '../../src/provider/resources/sub-account';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { dv, obj } from './harness';

let p: EmulatedProvider;

beforeAll(async () => {
  p = await startEmulatedProvider();
  await p.admin.subAccounts.create({ username: 'log-sub', password: 'log-sub-password' });
});

afterAll(async () => {
  await p?.close();
});

async function readWith(env: NodeJS.ProcessEnv): Promise<string[]> {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const server = await p.newServer(env);
    const state = obj(subAccountResource.schema, { id: 'log-sub', username: 'log-sub', password: 'log-sub-password' });
    await server.readResource({ typeName: 'proxyaccount_sub_account', currentState: dv(subAccountResource.schema, state), private: new Uint8Array() });
    // The read also started the account's IP list (for the entries a refresh reads next): joined
    // here, so its request is logged before the spy goes.
    await server.providerData!.account('log-sub').ips.list();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

describe('API request logging', () => {
  it('logs each request at TF_LOG=DEBUG, in hclog JSON, without secrets', async () => {
    const lines = await readWith({ TF_LOG: 'DEBUG' });
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toEqual([
      expect.objectContaining({ '@level': 'debug', method: 'GET', path: '/api/sub/get/', status: 200, attempt: 1, duration_ms: expect.any(Number) }),
      expect.objectContaining({ '@level': 'debug', method: 'GET', path: '/api/ip_labels/', status: 200, attempt: 1, duration_ms: expect.any(Number) }),
    ]);
    const text = lines.join('');
    for (const secret of ['log-sub-password', p.env.PROXYACCOUNT_PASSWORD!, Buffer.from(`demo:${p.env.PROXYACCOUNT_PASSWORD}`).toString('base64')])
      expect(text).not.toContain(secret);
  });

  it('writes nothing at the default level', async () => {
    expect(await readWith({ TF_LOG: '' })).toEqual([]);
  });
});
