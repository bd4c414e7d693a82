// Data sources read the account anew each time Terraform reads them: a provider process caches
// list reads for its resource refreshes and learns only of its own writes, while another provider
// configuration (an alias, the scoped-token provider) runs in a process of its own. Its write,
// made earlier in the run, must show in a later data-source read of this process. The admin
// client stands in for that other process.
import type { CtyValue } from '../../src/protocol/cty';
import { authorizedHostnamesDataSource } from '../../src/provider/data-sources/authorized-hostnames';
import { authorizedIpsDataSource } from '../../src/provider/data-sources/authorized-ips';
import { bearerTokensDataSource } from '../../src/provider/data-sources/bearer-tokens';
import { proxiesDataSource } from '../../src/provider/data-sources/proxies';
import { subAccountDataSource } from '../../src/provider/data-sources/sub-account';
import type { ObjectSchema } from '../../src/provider/framework';
import { authorizedIpResource } from '../../src/provider/resources/authorized-ip';
import type { ProxyAccountServer } from '../../src/provider/provider';
import { decode, dv, NO_PRIVATE, obj } from './harness';
import { startListSuite, type ListSuite } from './list-harness';

let suite: ListSuite;
const SUB = 'fresh-sub';

beforeAll(async () => {
  suite = await startListSuite();
  await suite.admin.subAccounts.create({ username: SUB });
});

afterAll(async () => {
  await suite?.stop();
});

async function read(server: ProxyAccountServer, typeName: string, schema: ObjectSchema, config: Record<string, CtyValue>): Promise<string> {
  const res = await server.readDataSource({ typeName, config: dv(schema, obj(schema, config)) });
  expect(res.diagnostics).toEqual([]);
  return JSON.stringify(decode(schema, res.state));
}

interface Case {
  readonly name: string;
  readonly typeName: string;
  readonly schema: ObjectSchema;
  readonly config: Record<string, CtyValue>;
  /** The other process's write; returns text the next read must hold. */
  write(): Promise<string>;
}

const cases: Case[] = [
  {
    name: 'proxyaccount_authorized_ips',
    typeName: 'proxyaccount_authorized_ips',
    schema: authorizedIpsDataSource.schema,
    config: {},
    write: async () => {
      await suite.admin.ips.add({ ip: '198.51.100.7' });
      return '"198.51.100.7"';
    },
  },
  {
    name: 'proxyaccount_authorized_ips of a sub-account',
    typeName: 'proxyaccount_authorized_ips',
    schema: authorizedIpsDataSource.schema,
    config: { username: SUB },
    write: async () => {
      await suite.admin.ips.add({ ip: '198.51.100.8', username: SUB });
      return '"198.51.100.8"';
    },
  },
  {
    name: 'proxyaccount_authorized_hostnames',
    typeName: 'proxyaccount_authorized_hostnames',
    schema: authorizedHostnamesDataSource.schema,
    config: {},
    write: async () => {
      await suite.admin.hostnames.add({ domain: 'other-process.example.org' });
      return '"other-process.example.org"';
    },
  },
  {
    name: 'proxyaccount_bearer_tokens',
    typeName: 'proxyaccount_bearer_tokens',
    schema: bearerTokensDataSource.schema,
    config: {},
    write: async () => {
      await suite.admin.tokens.create({ label: 'other-process' });
      return '"other-process"';
    },
  },
  {
    name: 'proxyaccount_proxies',
    typeName: 'proxyaccount_proxies',
    schema: proxiesDataSource.schema,
    config: {},
    write: async () => {
      const [added] = await suite.admin.proxies.list();
      if (added !== undefined) await suite.admin.proxies.delete(added);
      await suite.admin.proxies.add('fr-par');
      return 'fr-par';
    },
  },
  {
    name: 'proxyaccount_sub_account',
    typeName: 'proxyaccount_sub_account',
    schema: subAccountDataSource.schema,
    config: { username: SUB },
    write: async () => {
      await suite.admin.subAccounts.edit({ username: SUB, firstName: 'Otherprocess' });
      return '"Otherprocess"';
    },
  },
];

describe('data sources read after another process wrote', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s sees the write, although this process read the same list before it', async (_name, c) => {
    const server = await suite.newServer();
    const before = await read(server, c.typeName, c.schema, c.config);
    const expected = await c.write();
    expect(before).not.toContain(expected);
    expect(await read(server, c.typeName, c.schema, c.config)).toContain(expected);
  });

  it('sees a write made after a resource refresh cached the list (the reported case)', async () => {
    await suite.admin.ips.add({ ip: '198.51.100.20' });
    const server = await suite.newServer();
    const schema = authorizedIpResource.schema;
    const state = obj(schema, { id: '198.51.100.20', ip: '198.51.100.20' });
    const refreshed = await server.readResource({ typeName: 'proxyaccount_authorized_ip', currentState: dv(schema, state), private: NO_PRIVATE });
    expect(refreshed.diagnostics).toEqual([]);
    await suite.admin.ips.add({ ip: '198.51.100.21' });
    expect(await read(server, 'proxyaccount_authorized_ips', authorizedIpsDataSource.schema, {})).toContain('"198.51.100.21"');
  });
});
