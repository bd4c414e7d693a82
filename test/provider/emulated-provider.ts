// One emulator process per test file, plus what the per-entry resource tests need around it:
// an admin SDK client for arranging and checking the remote side, freshly configured provider
// servers (Terraform starts one per command), and a provider whose HTTP requests are recorded,
// so a test can count the requests a refresh really sent.
import { Agent, type Dispatcher } from 'undici';
import type { ObjectSchema } from '../../src/provider/framework';
import { createProvider, createProviderServer, type ProxyAccountServer } from '../../src/provider/provider';
import { ProxyAccountClient } from '../../src/sdk';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { dv, obj } from './harness';
import { ResourceDriver } from './terraform-sim';

/** A provider server whose requests are recorded as "METHOD /path" (query strings dropped). */
export interface RecordedServer {
  readonly server: ProxyAccountServer;
  readonly requests: string[];
}

/** The emulator and the clients and servers around it. */
export interface EmulatedProvider {
  readonly emu: RunningEmulator;
  /** SDK client of the parent account `demo` (plan20). */
  readonly admin: ProxyAccountClient;
  /** Provider environment: base URL, CA file and the parent's Basic credentials. */
  readonly env: NodeJS.ProcessEnv;
  /** A freshly configured provider server (with `env` overridden by `extraEnv`). */
  newServer(extraEnv?: NodeJS.ProcessEnv): Promise<ProxyAccountServer>;
  /** A configured provider server whose HTTP requests are recorded. */
  recordedServer(extraEnv?: NodeJS.ProcessEnv): Promise<RecordedServer>;
  /** A driver for one resource type, each step on a fresh server. */
  driver(typeName: string, schema: ObjectSchema, extraEnv?: NodeJS.ProcessEnv): ResourceDriver;
  /** Closes every client and server and stops the emulator. */
  close(): Promise<void>;
}

const providerSchema = createProvider().schema;

/** Starts an emulator (default accounts: `demo` / `demo-password` on plan20). */
export async function startEmulatedProvider(): Promise<EmulatedProvider> {
  const emu = await startEmulator();
  const env: NodeJS.ProcessEnv = {
    PROXYACCOUNT_BASE_URL: emu.url,
    PROXYACCOUNT_USERNAME: 'demo',
    PROXYACCOUNT_PASSWORD: 'demo-password',
    PROXYACCOUNT_CA_CERT_FILE: emu.caFile,
  };
  const admin = new ProxyAccountClient({ baseUrl: emu.url, auth: { username: 'demo', password: 'demo-password' }, caCert: emu.caPem });
  const servers: ProxyAccountServer[] = [];
  const agents: Agent[] = [];

  const configure = async (serverEnv: NodeJS.ProcessEnv, dispatcher?: Dispatcher): Promise<ProxyAccountServer> => {
    const server = createProviderServer({ env: withoutUnset(serverEnv), ...(dispatcher !== undefined ? { dispatcher } : {}) });
    servers.push(server);
    const res = await server.configureProvider({ terraformVersion: '1.11.4', config: dv(providerSchema, obj(providerSchema, {})) });
    if (res.diagnostics.length > 0) throw new Error(`configure failed: ${JSON.stringify(res.diagnostics)}`);
    return server;
  };

  const newServer = (extraEnv: NodeJS.ProcessEnv = {}): Promise<ProxyAccountServer> => configure({ ...env, ...extraEnv });

  const recordedServer = async (extraEnv: NodeJS.ProcessEnv = {}): Promise<RecordedServer> => {
    const requests: string[] = [];
    const agent = new Agent({ connect: { ca: emu.caPem } });
    agents.push(agent);
    // An interceptor sees every request the SDK dispatches, retries included.
    const recording = agent.compose((dispatch) => (opts, handler) => {
      requests.push(`${opts.method} ${String(opts.path).split('?')[0]}`);
      return dispatch(opts, handler);
    });
    // The SDK refuses a CA file together with a dispatcher: TLS is configured on the agent.
    const server = await configure({ ...env, PROXYACCOUNT_CA_CERT_FILE: undefined, ...extraEnv }, recording);
    return { server, requests };
  };

  return {
    emu,
    admin,
    env,
    newServer,
    recordedServer,
    driver: (typeName, schema, extraEnv = {}) => new ResourceDriver(() => newServer(extraEnv), typeName, schema),
    async close() {
      await Promise.all(servers.map((s) => s.providerData?.close()));
      await Promise.all(agents.map((a) => a.close()));
      await admin.close();
      await emu.stop();
    },
  };
}

/** Drops variables set to undefined (how a test unsets one of the defaults). */
function withoutUnset(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}

/** The number of recorded requests equal to `request` (e.g. "GET /api/ip_labels/"). */
export function countOf(requests: readonly string[], request: string): number {
  return requests.filter((r) => r === request).length;
}
