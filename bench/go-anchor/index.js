'use strict';
// What the benchmarks need to run the Go anchor (bench/go-anchor/main.go, built by build.sh): its
// binary, its place in a filesystem mirror, the configuration of the same shape as ours, and the
// HTTPS server that stands in for a per-resource API with a fixed latency.

const fs = require('node:fs');
const https = require('node:https');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const GO_ANCHOR_BINARY = path.join(ROOT, 'bench/.go-anchor/terraform-provider-goanchor');
const GO_ANCHOR_SOURCE = 'proxyaccount/goanchor';
const GO_ANCHOR_VERSION = '0.0.1';

/** Exits with a message unless the anchor is built. */
function requireGoAnchor(name) {
  if (!fs.existsSync(GO_ANCHOR_BINARY)) {
    console.error(
      `bench/${name}: ${path.relative(ROOT, GO_ANCHOR_BINARY)} is missing; run \`sh bench/go-anchor/build.sh\` first (needs Debian's Go packages, listed there)`,
    );
    process.exit(1);
  }
}

/** Copies the anchor into the filesystem mirror `mirror` for the Terraform platform `platform`. */
function installGoAnchor(mirror, platform) {
  const dir = path.join(mirror, 'registry.terraform.io', GO_ANCHOR_SOURCE, GO_ANCHOR_VERSION, platform);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(GO_ANCHOR_BINARY, path.join(dir, `terraform-provider-goanchor_v${GO_ANCHOR_VERSION}`));
  fs.chmodSync(path.join(dir, `terraform-provider-goanchor_v${GO_ANCHOR_VERSION}`), 0o755);
}

/** 2 parents × `children` (99: 200 resources) children that reference them, the shape of ours in bench/plan.js. */
function goAnchorConfig(children = 99) {
  const out = [`terraform {\n  required_providers {\n    goanchor = { source = "${GO_ANCHOR_SOURCE}" }\n  }\n}\n`];
  for (let a = 0; a < 2; a++) {
    out.push(`resource "goanchor_thing" "a${a}" {\n  name = "parent${a}"\n}\n`);
    out.push(`resource "goanchor_thing" "c${a}" {\n  count  = ${children}\n  name   = "child${a}-\${count.index}"\n  parent = goanchor_thing.a${a}.name\n}\n`);
  }
  return out.join('\n');
}

/**
 * Writes our provider's GetProviderSchema response (protobuf, from the build in dist/) to `file`,
 * for the anchor's GOANCHOR_SCHEMA; returns the configuration of ours (bench/lib.js) that the
 * anchor then serves under its own source address.
 */
async function anchorWithOurSchema(file, ourConfig) {
  const { createProviderServer } = require(path.join(ROOT, 'dist/provider/provider.js'));
  const { getProviderSchemaResponseToWire } = require(path.join(ROOT, 'dist/protocol/convert.js'));
  const { GetProviderSchema_Response } = require(path.join(ROOT, 'dist/protocol/gen/tfplugin6.js'));
  const response = getProviderSchemaResponseToWire(await createProviderServer().getProviderSchema());
  fs.writeFileSync(file, GetProviderSchema_Response.encode(response));
  const source = 'source = "proxyaccount/proxyaccount"';
  if (!ourConfig.includes(source)) throw new Error(`bench/go-anchor: our configuration no longer says ${source}`);
  return ourConfig.replace(source, `source = "${GO_ANCHOR_SOURCE}"`);
}

/**
 * An HTTPS server on 127.0.0.1 that answers every GET with 200 after `delayMs` (changeable through
 * `setDelay`): the API the anchor reads each resource from. `caFile` is its certificate.
 */
async function startDelayServer(dir, createSelfSignedCertificate) {
  const cert = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const caFile = path.join(dir, 'delay-server.pem');
  fs.writeFileSync(caFile, cert.certPem);
  let delayMs = 0;
  let requests = 0;
  const server = https.createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    requests += 1;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: decodeURIComponent(req.url.split('/').pop()) }));
    }, delayMs);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${server.address().port}/things/`,
    caFile,
    setDelay(ms) {
      delayMs = ms;
    },
    /** Requests served since the last call. */
    takeCount() {
      const n = requests;
      requests = 0;
      return n;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

module.exports = { GO_ANCHOR_BINARY, GO_ANCHOR_SOURCE, anchorWithOurSchema, goAnchorConfig, installGoAnchor, requireGoAnchor, startDelayServer };
