'use strict';
// One gRPC server for bench/transport.js: `node bench/transport-server.js h2|node-http2|grpc-js|connect`.
// Serves /bench.Echo/Call (a bytes message in, a bytes message of RESPONSE_BYTES out) over mutual
// TLS as the provider does, prints `PORT` on stdout, and answers /bench.Echo/Stats with the CPU
// time this process has used since it started listening, so the client can take it per round.
const fs = require('node:fs');
const http2 = require('node:http2');
const path = require('node:path');
const { decodeBlob, echoService, encodeBlob } = require('./transport-blob');

const ROOT = path.resolve(__dirname, '..');
const [variant, certDir] = process.argv.slice(2);
const RESPONSE_BYTES = Number(process.env.RESPONSE_BYTES || 400);
const tls = {
  keyPem: fs.readFileSync(path.join(certDir, 'server.key'), 'utf8'),
  certPem: fs.readFileSync(path.join(certDir, 'server.crt'), 'utf8'),
  clientCertPem: fs.readFileSync(path.join(certDir, 'client.crt'), 'utf8'),
};

const response = Buffer.alloc(RESPONSE_BYTES, 0x61);
let cpuAtStart;
const stats = () => {
  const u = process.cpuUsage(cpuAtStart);
  return Buffer.from(JSON.stringify({ cpuMs: (u.user + u.system) / 1000 }));
};

async function main() {
  let port;
  if (variant === 'h2') {
    const { listenUnary } = require(path.join(ROOT, 'dist/protocol/h2-server.js'));
    const routes = new Map([
      ['/bench.Echo/Call', { decode: decodeBlob, encode: encodeBlob, handle: async () => response }],
      ['/bench.Echo/Stats', { decode: decodeBlob, encode: encodeBlob, handle: async () => stats() }],
    ]);
    port = (await listenUnary({ routes, tls, maxMessageBytes: 1 << 24, onInternalError: () => undefined })).port;
  } else if (variant === 'node-http2') {
    // The unary server the provider had on node:http2 before its own HTTP/2 layer, kept here only
    // to measure against: one Http2Stream per call, the answer with waitForTrailers.
    const server = http2.createSecureServer({
      key: tls.keyPem,
      cert: tls.certPem,
      ca: tls.clientCertPem,
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
      settings: { maxConcurrentStreams: 1000 },
    });
    server.on('stream', (stream, headers) => {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('error', () => undefined);
      stream.on('end', () => {
        const body = Buffer.concat(chunks);
        decodeBlob(body.subarray(5));
        const payload = encodeBlob(headers[':path'] === '/bench.Echo/Stats' ? stats() : response);
        const framed = Buffer.alloc(5 + payload.length);
        framed.writeUInt32BE(payload.length, 1);
        payload.copy(framed, 5);
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(framed);
      });
    });
    port = await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  } else if (variant === 'grpc-js') {
    const grpc = require('@grpc/grpc-js');
    const server = new grpc.Server({ 'grpc.enable_channelz': 0 });
    server.addService(echoService(), {
      Call: (_call, cb) => Promise.resolve(response).then((r) => cb(null, r)),
      Stats: (_call, cb) => cb(null, stats()),
    });
    const creds = grpc.ServerCredentials.createSsl(
      Buffer.from(tls.clientCertPem),
      [{ private_key: Buffer.from(tls.keyPem), cert_chain: Buffer.from(tls.certPem) }],
      true,
    );
    port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', creds, (err, p) => (err ? reject(err) : resolve(p))));
  } else if (variant === 'connect') {
    const { create, createFileRegistry } = require('@bufbuild/protobuf');
    const { FileDescriptorProtoSchema } = require('@bufbuild/protobuf/wkt');
    const { connectNodeAdapter } = require('@connectrpc/connect-node');
    const file = create(FileDescriptorProtoSchema, {
      name: 'bench.proto',
      package: 'bench',
      syntax: 'proto3',
      messageType: [{ name: 'Blob', field: [{ name: 'data', jsonName: 'data', number: 1, type: 12, label: 1 }] }],
      service: [
        {
          name: 'Echo',
          method: [
            { name: 'Call', inputType: '.bench.Blob', outputType: '.bench.Blob' },
            { name: 'Stats', inputType: '.bench.Blob', outputType: '.bench.Blob' },
          ],
        },
      ],
    });
    const service = createFileRegistry(file, () => undefined).getService('bench.Echo');
    const handler = connectNodeAdapter({
      routes: (router) => router.service(service, { call: async () => ({ data: response }), stats: async () => ({ data: stats() }) }),
    });
    const server = http2.createSecureServer(
      { key: tls.keyPem, cert: tls.certPem, ca: tls.clientCertPem, requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] },
      handler,
    );
    port = await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  } else {
    throw new Error(`unknown variant ${variant} (h2, node-http2, grpc-js, connect)`);
  }
  cpuAtStart = process.cpuUsage();
  process.stdout.write(`${port}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
