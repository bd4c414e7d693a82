// Shared set-up of the list resource and list data-source tests: one emulator per suite, an admin
// SDK client for out-of-band changes, fresh provider servers (one per Terraform step), and
// helpers that compare set values without caring about order.
import type { CtyValue } from '../../src/protocol/cty';
import type { Diagnostic } from '../../src/protocol/types';
import type { ObjectSchema } from '../../src/provider/framework';
import { createProvider, createProviderServer, type ProxyAccountServer } from '../../src/provider/provider';
import { ProxyAccountClient } from '../../src/sdk';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { decode, dv, obj } from './harness';

/** A running emulator with clients; call `stop()` in afterAll. */
export interface ListSuite {
  readonly emu: RunningEmulator;
  /** Parent-account client for changes made outside Terraform. */
  readonly admin: ProxyAccountClient;
  /** A freshly configured provider server, as Terraform starts one per command; `env` overrides settings. */
  newServer(env?: NodeJS.ProcessEnv): Promise<ProxyAccountServer>;
  /** Reads a data source; returns the decoded state (null on errors) and the diagnostics. */
  readData(
    typeName: string,
    schema: ObjectSchema,
    config: Record<string, CtyValue>,
    env?: NodeJS.ProcessEnv,
  ): Promise<{ state: Record<string, CtyValue> | null; diagnostics: Diagnostic[] }>;
  stop(): Promise<void>;
}

/** Starts an emulator and the clients of one suite. */
export async function startListSuite(): Promise<ListSuite> {
  const emu = await startEmulator();
  const env = { PROXYACCOUNT_BASE_URL: emu.url, PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 'demo-password', PROXYACCOUNT_CA_CERT_FILE: emu.caFile };
  const admin = new ProxyAccountClient({ baseUrl: emu.url, auth: { username: 'demo', password: 'demo-password' }, caCert: emu.caPem, maxRetries: 0 });
  const providerSchema = createProvider().schema;
  const servers: ProxyAccountServer[] = [];
  const newServer = async (overrides: NodeJS.ProcessEnv = {}): Promise<ProxyAccountServer> => {
    const server = createProviderServer({ env: { ...env, ...overrides } });
    servers.push(server);
    const res = await server.configureProvider({ terraformVersion: '1.11.4', config: dv(providerSchema, obj(providerSchema, {})) });
    if (res.diagnostics.length > 0) throw new Error(JSON.stringify(res.diagnostics));
    return server;
  };
  return {
    emu,
    admin,
    newServer,
    async readData(typeName, schema, config, overrides) {
      const server = await newServer(overrides);
      const res = await server.readDataSource({ typeName, config: dv(schema, obj(schema, config)) });
      const state = res.state === undefined ? null : (decode(schema, res.state) as Record<string, CtyValue>);
      return { state, diagnostics: res.diagnostics };
    },
    async stop() {
      await Promise.all(servers.map((s) => s.providerData?.close()));
      await admin.close();
      await emu.stop();
    },
  };
}

/** A set value in a stable order, for comparisons (elements compared by their JSON). */
export function sorted<T>(values: readonly T[] | CtyValue | undefined): T[] {
  if (!Array.isArray(values)) throw new Error(`expected a set, got ${JSON.stringify(values)}`);
  return [...(values as T[])].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0));
}

/** An object value with the named set attributes put in a stable order. */
export function normalized(value: Record<string, CtyValue> | null, ...sets: string[]): Record<string, CtyValue> | null {
  if (value === null) return null;
  const out = { ...value };
  for (const name of sets) if (Array.isArray(out[name])) out[name] = sorted(out[name]);
  return out;
}
