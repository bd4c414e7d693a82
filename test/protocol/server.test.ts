// The gRPC server in process, with a grpc-js client that connects exactly as Terraform does:
// mutual TLS, trusting the certificate from the handshake line, presenting PLUGIN_CLIENT_CERT.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { decodeMsgpack, encodeDynamicValue, encodeMsgpack } from '../../src/protocol/codec';
import { UNKNOWN, Unknown, typeFromJson, type CtyValue } from '../../src/protocol/cty';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../src/protocol/handshake';
import { serve, writeStandardOutput } from '../../src/protocol/server';
import { schemaBlockType, type ProviderServer } from '../../src/protocol/types';
import { createTinyProvider, THING_SCHEMA } from './fixtures/tiny-provider';
import { clientCertificate, connect, parseHandshake, type CallFn } from './helpers';

const THING = schemaBlockType(THING_SCHEMA.block);

interface Running {
  provider: CallFn;
  controller: CallFn;
  line: string;
  logs: string[];
  exit: jest.Mock;
  done: Promise<void>;
  close(): Promise<void>;
}

async function start(provider: ProviderServer, network?: 'unix' | 'tcp', afterHandshake?: (stdoutSoFar: string) => void): Promise<Running> {
  const client = clientCertificate();
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const logs: string[] = [];
  const exit = jest.fn();
  const done = serve(provider, {
    stdout,
    env: { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_CLIENT_CERT: client.certPem, PLUGIN_PROTOCOL_VERSIONS: '5,6' },
    logger: (l) => logs.push(l),
    exit,
    handleSignals: false,
    ...(network === undefined ? {} : { network }),
    ...(afterHandshake === undefined ? {} : { afterHandshake: () => afterHandshake(out) }),
  });
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (out.includes('\n')) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
    done.then(() => reject(new Error('serve ended before the handshake')), reject);
  });
  const line = out.slice(0, out.indexOf('\n'));
  const { target, certPem } = parseHandshake(line);
  const conn = connect(target, certPem, client);
  let closed = false;
  return {
    ...conn,
    line,
    logs,
    exit,
    done,
    async close() {
      if (!closed) {
        closed = true;
        await conn.controller('Shutdown').catch(() => undefined);
        await done;
      }
      conn.close();
    },
  };
}

type Wire = Record<string, unknown>;
const diagnosticsOf = (res: Wire): Array<{ severity: number; summary: string; detail: string }> =>
  res.diagnostics as Array<{ severity: number; summary: string; detail: string }>;

describe('serve() in process', () => {
  let running: Running | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('prints exactly one go-plugin handshake line whose certificate serves the TLS connection', async () => {
    running = await start(createTinyProvider());
    const { cert } = parseHandshake(running.line);
    expect(cert.subjectAltName).toBe('DNS:localhost');
    expect(running.line.endsWith('=')).toBe(false);
    // the connection only works if the client trusted exactly that certificate
    const res = await running.provider<Wire>('GetProviderSchema');
    expect(Object.keys(res.resourceSchemas as object)).toEqual(['tiny_thing']);
  });

  it('returns the schema with cty types as JSON', async () => {
    running = await start(createTinyProvider());
    const res = await running.provider<Wire>('GetProviderSchema');
    const thing = (
      res.resourceSchemas as Record<string, { block: { attributes: Array<{ name: string; type: Uint8Array; computed: boolean; description: string }> } }>
    ).tiny_thing!;
    const id = thing.block.attributes.find((a) => a.name === 'id')!;
    expect(typeFromJson(id.type)).toEqual({ kind: 'string' });
    expect(id.computed).toBe(true);
    expect(id.description).toBe('Set on create.');
    expect(diagnosticsOf(res)).toEqual([]);
    const meta = await running.provider<Wire>('GetMetadata');
    expect(meta.resources).toEqual([{ typeName: 'tiny_thing' }]);
  });

  it('plans a create with an unknown id and applies it', async () => {
    running = await start(createTinyProvider());
    const config = encodeMsgpack({ id: null, name: 'n1' }, THING);
    const nullState = encodeMsgpack(null, THING);
    const plan = await running.provider<Wire>('PlanResourceChange', {
      typeName: 'tiny_thing',
      priorState: { msgpack: nullState },
      proposedNewState: { msgpack: config },
      config: { msgpack: config },
    });
    expect(diagnosticsOf(plan)).toEqual([]);
    const planned = decodeMsgpack((plan.plannedState as { msgpack: Uint8Array }).msgpack, THING) as { [k: string]: CtyValue };
    expect(planned.id).toBeInstanceOf(Unknown);
    expect(planned.name).toBe('n1');

    const apply = await running.provider<Wire>('ApplyResourceChange', {
      typeName: 'tiny_thing',
      priorState: { msgpack: nullState },
      plannedState: plan.plannedState,
      config: { msgpack: config },
    });
    expect(diagnosticsOf(apply)).toEqual([]);
    expect(decodeMsgpack((apply.newState as { msgpack: Uint8Array }).msgpack, THING)).toEqual({ id: 'thing-n1', name: 'n1' });
    expect(Buffer.from(apply.private as Uint8Array).toString()).toBe('p1');

    // an update of the name is planned as a replacement, with the path on the wire
    const prior = encodeMsgpack({ id: 'thing-n1', name: 'n1' }, THING);
    const changed = encodeMsgpack({ id: UNKNOWN, name: 'n2' }, THING);
    const replan = await running.provider<Wire>('PlanResourceChange', {
      typeName: 'tiny_thing',
      priorState: { msgpack: prior },
      proposedNewState: { msgpack: changed },
      config: { msgpack: changed },
    });
    expect(replan.requiresReplace).toEqual([{ steps: [{ attributeName: 'name' }] }]);
  });

  it('carries diagnostics with attribute paths', async () => {
    running = await start(createTinyProvider());
    const res = await running.provider<Wire>('ValidateResourceConfig', {
      typeName: 'tiny_thing',
      config: encodeDynamicValue({ id: null, name: 'invalid' }, THING),
      clientCapabilities: { writeOnlyAttributesAllowed: true },
    });
    expect(res.diagnostics).toEqual([
      { severity: 1, summary: 'Invalid name', detail: 'The name "invalid" is reserved.', attribute: { steps: [{ attributeName: 'name' }] } },
    ]);
  });

  it('answers RPCs the provider does not implement with a diagnostic or an empty answer', async () => {
    running = await start(createTinyProvider());
    const move = await running.provider<Wire>('MoveResourceState', { sourceTypeName: 'a_b', targetTypeName: 'tiny_thing' });
    expect(diagnosticsOf(move)[0]!.summary).toMatch(/is not supported by the proxyaccount provider/);
    expect(diagnosticsOf(move)[0]!.severity).toBe(1);
    for (const rpc of ['ValidateEphemeralResourceConfig', 'OpenEphemeralResource', 'RenewEphemeralResource', 'CloseEphemeralResource']) {
      const res = await running.provider<Wire>(rpc, { typeName: 'tiny_secret' });
      expect(diagnosticsOf(res)[0]!.summary).toBe('The ephemeral resource "tiny_secret" is not supported by the proxyaccount provider');
    }
    const functions = await running.provider<Wire>('GetFunctions');
    expect(functions).toEqual({ functions: {}, diagnostics: [] });
    const call = await running.provider<Wire>('CallFunction', { name: 'parse' });
    expect((call.error as { text: string }).text).toMatch(/"parse" is not supported/);
  });

  it('answers a provider exception (a bug: the framework turns user errors into diagnostics) with gRPC INTERNAL, logs it, and keeps serving', async () => {
    const calls: string[] = [];
    running = await start(
      createTinyProvider({
        calls,
        overrides: {
          readResource: () => Promise.reject(new Error('boom: the API went away')),
          stopProvider: () => Promise.reject(new Error('cannot stop')),
        },
      }),
    );
    await expect(running.provider<Wire>('ReadResource', { typeName: 'tiny_thing' })).rejects.toMatchObject({ code: 13, details: 'boom: the API went away' });
    expect(running.logs.some((l) => JSON.parse(l)['@level'] === 'error' && l.includes('boom'))).toBe(true);
    const stop = await running.provider<Wire>('StopProvider');
    expect(stop.Error).toBe('cannot stop');
    // still alive
    expect(diagnosticsOf(await running.provider<Wire>('GetProviderSchema'))).toEqual([]);
  });

  it('writes nothing per RPC at the default log level, and at DEBUG one line per RPC with its duration, without secrets', async () => {
    const calls: string[] = [];
    running = await start(createTinyProvider({ calls }));
    const before = running.logs.length;
    for (let i = 0; i < 5; i++) await running.provider<Wire>('GetProviderSchema');
    expect(running.logs.slice(before)).toEqual([]);
    await running.close();

    const { createLogger } = await import('../../src/protocol/log');
    const lines: string[] = [];
    const logger = createLogger((l) => lines.push(l), 'debug');
    const { createProviderHandlers } = await import('../../src/protocol/provider-service');
    const handlers = createProviderHandlers(createTinyProvider({ calls }), { logger });
    await handlers.ValidateResourceConfig({ typeName: 'tiny_thing', config: { msgpack: new Uint8Array([0xc0]), json: new Uint8Array() } } as never);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      '@level': 'debug',
      '@message': 'ValidateResourceConfig served',
      tf_rpc: 'ValidateResourceConfig',
      tf_resource_type: 'tiny_thing',
      duration_ms: expect.any(Number),
    });
  });

  it('passes requests through to the provider', async () => {
    const calls: string[] = [];
    let seen: unknown;
    running = await start(
      createTinyProvider({
        calls,
        overrides: {
          configureProvider: async (req) => {
            seen = req;
            return { diagnostics: [{ severity: 'warning', summary: 'careful' }] };
          },
        },
      }),
    );
    const res = await running.provider<Wire>('ConfigureProvider', {
      terraformVersion: '1.11.4',
      config: { msgpack: encodeMsgpack({}, { kind: 'object', attributes: {} }) },
      clientCapabilities: { deferralAllowed: true },
    });
    expect(res.diagnostics).toEqual([{ severity: 2, summary: 'careful', detail: '' }]);
    expect(seen).toEqual({
      terraformVersion: '1.11.4',
      config: { msgpack: expect.any(Uint8Array) },
      clientCapabilities: { deferralAllowed: true, writeOnlyAttributesAllowed: false },
    });
    await running.provider('ImportResourceState', { typeName: 'tiny_thing', id: 'abc' });
    await running.provider('UpgradeResourceState', { typeName: 'tiny_thing', rawState: { json: Buffer.from('{"id":"x","name":"y"}') } });
    expect(calls).toEqual(['importResourceState', 'upgradeResourceState']);
  });

  it('refuses a client that does not present the certificate from PLUGIN_CLIENT_CERT', async () => {
    running = await start(createTinyProvider());
    const { target, certPem } = parseHandshake(running.line);
    const stranger = connect(target, certPem, clientCertificate());
    await expect(stranger.provider('GetProviderSchema')).rejects.toThrow();
    stranger.close();
  });

  it('replies to Shutdown, then stops serving, removes its socket and exits with 0', async () => {
    running = await start(createTinyProvider());
    const { network, address } = parseHandshake(running.line);
    expect(network).toBe('unix');
    expect(fs.existsSync(address)).toBe(true);
    await expect(running.controller('Shutdown')).resolves.toEqual({});
    await running.done;
    expect(running.exit).toHaveBeenCalledWith(0);
    expect(fs.existsSync(path.dirname(address))).toBe(false);
    await expect(running.provider('GetProviderSchema')).rejects.toThrow();
  });

  it('runs afterHandshake once, after the handshake line is out and before any call', async () => {
    const seen: string[] = [];
    const provider = createTinyProvider();
    const schema = jest.spyOn(provider, 'getProviderSchema');
    const r = await start(provider, undefined, (stdoutSoFar) => {
      seen.push(stdoutSoFar);
      expect(schema).not.toHaveBeenCalled();
    });
    try {
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toEqual([`${r.line}\n`]);
      await r.provider<Wire>('GetProviderSchema');
      expect(schema).toHaveBeenCalledTimes(1);
      expect(seen).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it("serves on a loopback port when asked (network: 'tcp')", async () => {
    running = await start(createTinyProvider(), 'tcp');
    expect(parseHandshake(running.line)).toMatchObject({ network: 'tcp', address: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    const res = await running.provider<Wire>('GetProviderSchema');
    expect(Object.keys(res.resourceSchemas as object)).toEqual(['tiny_thing']);
  });
});

describe('serve() without the handshake environment', () => {
  it('explains that the binary is a Terraform plugin and exits with 1', async () => {
    const stderr = new PassThrough();
    const stdout = new PassThrough();
    let err = '';
    let out = '';
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exit = jest.fn();
    await serve(createTinyProvider(), { env: {}, stderr, stdout, exit, handleSignals: false });
    expect(exit).toHaveBeenCalledWith(1);
    expect(err).toMatch(/plugin for Terraform/);
    expect(out).toBe('');
  });

  it('refuses a Terraform that only offers protocol 5', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exit = jest.fn();
    await serve(createTinyProvider(), {
      env: { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '5' },
      stderr,
      stdout: new PassThrough(),
      exit,
      handleSignals: false,
    });
    expect(exit).toHaveBeenCalledWith(1);
    expect(err).toMatch(/protocol 6/);
  });
});

describe('writeStandardOutput (the handshake line, without building process.stdout)', () => {
  const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: write`), { code });

  it('writes every byte to file descriptor 1, across partial writes', () => {
    const seen: Array<{ fd: number; chunk: string }> = [];
    const stream = new PassThrough();
    const write = (fd: number, data: Uint8Array, offset: number): number => {
      const n = Math.min(3, data.length - offset);
      seen.push({ fd, chunk: Buffer.from(data.subarray(offset, offset + n)).toString() });
      return n;
    };
    expect(writeStandardOutput('1|6|unix\n', write, stream)).toBe(true);
    expect(seen).toEqual([
      { fd: 1, chunk: '1|6' },
      { fd: 1, chunk: '|un' },
      { fd: 1, chunk: 'ix\n' },
    ]);
    expect(stream.read()).toBeNull();
  });

  it('hands what would block (EAGAIN) to the stream, which waits for room', () => {
    const stream = new PassThrough();
    let calls = 0;
    const write = (_fd: number, _data: Uint8Array, offset: number): number => {
      calls++;
      if (offset > 0) throw errno('EAGAIN');
      return 4;
    };
    expect(writeStandardOutput('1|6|unix|/tmp/s|grpc|Q0VSVA\n', write, stream)).toBe(false);
    expect(calls).toBe(2);
    expect(String(stream.read())).toBe('unix|/tmp/s|grpc|Q0VSVA\n');
  });

  it('throws any other failure (a closed standard output)', () => {
    const stream = new PassThrough();
    expect(() =>
      writeStandardOutput(
        'line\n',
        () => {
          throw errno('EPIPE');
        },
        stream,
      ),
    ).toThrow(/EPIPE/);
    expect(stream.read()).toBeNull();
  });
});
