// A refresh reads a sub-account before the authorized IPs that name it, and Terraform refreshes
// those one by one: the sub-account's read starts the account's IP list beside it, so the entries'
// reads find it under way or done and send nothing of their own; a sub-account that is gone costs
// its 404s and nothing is cached from them.
import { authorizedIpResource } from '../../src/provider/resources/authorized-ip';
import { subAccountResource } from '../../src/provider/resources/sub-account';
import { countOf, startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { decode, dv, NO_PRIVATE, obj } from './harness';

const subSchema = subAccountResource.schema;
const ipSchema = authorizedIpResource.schema;
let p: EmulatedProvider;

beforeAll(async () => {
  p = await startEmulatedProvider();
  await p.admin.subAccounts.create({ username: 'prefetch-sub' });
  for (const ip of ['198.51.100.1', '198.51.100.2']) await p.admin.ips.add({ ip, username: 'prefetch-sub' });
});
afterAll(async () => {
  await p?.close();
});

const subState = (username: string) =>
  obj(subSchema, {
    id: username,
    username,
    password: null,
    password_wo: null,
    password_wo_version: null,
    first_name: null,
    last_name: null,
    email: null,
    monthly_limit: 0,
    total_limit: 0,
    active: true,
  });
const ipState = (ip: string) => obj(ipSchema, { id: `prefetch-sub/${ip}`, username: 'prefetch-sub', ip, label: null });

describe('a sub-account refresh', () => {
  it("starts its IP list beside the sub-account's read; the entries' refreshes then send nothing", async () => {
    const { server, requests } = await p.recordedServer();
    const sub = await server.readResource({
      typeName: 'proxyaccount_sub_account',
      currentState: dv(subSchema, subState('prefetch-sub')),
      private: NO_PRIVATE,
      clientCapabilities: undefined,
    });
    expect(sub.diagnostics).toEqual([]);
    // Both were sent before the sub-account's answer was used: the list did not wait for it.
    expect(requests).toEqual(['GET /api/sub/get/', 'GET /api/ip_labels/']);

    const ips = await Promise.all(
      ['198.51.100.1', '198.51.100.2'].map((ip) =>
        server.readResource({
          typeName: 'proxyaccount_authorized_ip',
          currentState: dv(ipSchema, ipState(ip)),
          private: NO_PRIVATE,
          clientCapabilities: undefined,
        }),
      ),
    );
    expect(ips.flatMap((r) => r.diagnostics)).toEqual([]);
    expect(ips.map((r) => decode(ipSchema, r.newState))).toEqual([ipState('198.51.100.1'), ipState('198.51.100.2')]);
    expect(countOf(requests, 'GET /api/ip_labels/')).toBe(1);
    expect(requests).toHaveLength(2);
  });

  it('of a sub-account that is gone: null state, no error, and the list that failed with it is not kept', async () => {
    const { server } = await p.recordedServer();
    const sub = await server.readResource({
      typeName: 'proxyaccount_sub_account',
      currentState: dv(subSchema, subState('prefetch-gone')),
      private: NO_PRIVATE,
      clientCapabilities: undefined,
    });
    expect(sub.diagnostics).toEqual([]);
    expect(decode(subSchema, sub.newState)).toBeNull();
    // Joins the prefetch if it is still under way: either way it has failed when this settles.
    await expect(server.providerData!.account('prefetch-gone').ips.list()).rejects.toThrow();

    await p.admin.subAccounts.create({ username: 'prefetch-gone' });
    await p.admin.ips.add({ ip: '198.51.100.9', username: 'prefetch-gone' });
    const state = obj(ipSchema, { id: 'prefetch-gone/198.51.100.9', username: 'prefetch-gone', ip: '198.51.100.9', label: null });
    const ip = await server.readResource({
      typeName: 'proxyaccount_authorized_ip',
      currentState: dv(ipSchema, state),
      private: NO_PRIVATE,
      clientCapabilities: undefined,
    });
    expect(ip.diagnostics).toEqual([]);
    expect(decode(ipSchema, ip.newState)).toEqual(state);
  });
});
