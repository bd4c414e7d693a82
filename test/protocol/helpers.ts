// Test helpers that play Terraform's side of go-plugin: a client certificate, the handshake line,
// and a grpc-js client over mutual TLS built from our generated service tables.
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { GRPCControllerService } from '../../src/protocol/gen/grpc_controller';
import { ProviderService } from '../../src/protocol/gen/tfplugin6';
import type { GeneratedMethod } from '../../src/protocol/grpc-service';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '../../src/util/x509';

/** A handshake line with a server certificate: the network and address, then the certificate. */
export const HANDSHAKE_LINE = /^1\|6\|(unix\|\/[^|]+\/plugin\.sock|tcp\|127\.0\.0\.1:\d+)\|grpc\|([A-Za-z0-9+/]+)$/;

/** A client certificate like the one go-plugin makes for AutoMTLS. */
export function clientCertificate(): SelfSignedCertificate {
  return createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
}

/**
 * From a handshake line: the server's network, its address as a grpc-js target (`unix:/PATH` or
 * `127.0.0.1:PORT`) and its certificate; throws if the line is malformed.
 */
export function parseHandshake(line: string): { network: 'unix' | 'tcp'; address: string; target: string; certPem: string; cert: X509Certificate } {
  const m = HANDSHAKE_LINE.exec(line);
  if (!m) throw new Error(`not a handshake line: ${JSON.stringify(line)}`);
  const [network, address] = m[1]!.split('|') as ['unix' | 'tcp', string];
  const cert = new X509Certificate(Buffer.from(m[2]!, 'base64'));
  return { network, address, target: network === 'unix' ? `unix:${address}` : address, certPem: cert.toString(), cert };
}

/** Unary calls by method name; resolves with the decoded response. */
export type CallFn = <T = Record<string, unknown>>(method: string, request?: object) => Promise<T>;

/** grpc clients of the Provider and GRPCController services, connected like Terraform connects. */
export function connect(
  target: string,
  serverCertPem: string,
  client: { certPem: string; keyPem: string },
): { provider: CallFn; controller: CallFn; close(): void } {
  const creds = grpc.credentials.createSsl(Buffer.from(serverCertPem), Buffer.from(client.keyPem), Buffer.from(client.certPem));
  const options = { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' };
  const Provider = grpc.makeGenericClientConstructor(grpcServiceDefinition(ProviderService), 'Provider');
  const Controller = grpc.makeGenericClientConstructor(grpcServiceDefinition(GRPCControllerService), 'GRPCController');
  const p = new Provider(target, creds, options);
  const c = new Controller(target, creds, options);
  const caller =
    (cl: grpc.Client): CallFn =>
    (method, request = {}) =>
      new Promise((resolve, reject) => {
        const fn = (cl as unknown as Record<string, (req: object, opts: object, cb: (e: Error | null, r: unknown) => void) => void>)[method];
        if (!fn) throw new Error(`no method ${method}`);
        fn.call(cl, request, { deadline: Date.now() + 20_000 }, (err, res) => (err ? reject(err) : resolve(res as never)));
      });
  return {
    provider: caller(p),
    controller: caller(c),
    close: () => {
      p.close();
      c.close();
    },
  };
}

/** Bundles the tiny provider entry into `dir` as an executable script; returns its path. */
export function buildTinyProvider(dir: string, fileName = 'tiny-provider.js'): string {
  // esbuild is a dev dependency of the project; required lazily so other tests do not pay for it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const out = path.join(dir, fileName);
  esbuild.buildSync({
    entryPoints: [path.join(__dirname, 'fixtures/tiny-provider-main.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'error',
  });
  fs.chmodSync(out, 0o755);
  return out;
}

/**
 * A grpc-js service definition for a generated method table: the tests talk to our node:http2
 * server with grpc-js, an independent gRPC implementation, as the client.
 */
export function grpcServiceDefinition(table: Readonly<Record<string, GeneratedMethod>>): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, m] of Object.entries(table)) {
    def[name] = {
      path: m.path,
      requestStream: m.requestStream,
      responseStream: m.responseStream,
      requestSerialize: (v: unknown) => m.request.encode(v as never),
      requestDeserialize: (b: Buffer) => m.request.decode(b),
      responseSerialize: (v: unknown) => m.response.encode(v as never),
      responseDeserialize: (b: Buffer) => m.response.decode(b),
      originalName: name.charAt(0).toLowerCase() + name.slice(1),
    };
  }
  return def;
}
