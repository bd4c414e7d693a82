#!/usr/bin/env node
// Dumps the built provider's schema in the format of `terraform providers schema -json`, by
// asking the real terraform about the real provider (installed into a temporary mirror).
// The CDKTF bindings are generated from this dump, so they cannot disagree with the provider.
//
//   node scripts/dump-provider-schema.js OUTPUT.json      (after `npm run build`)
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/dump-provider-schema.js OUTPUT.json');
  process.exit(2);
}
const { installProvider, mirrorCliConfig } = require('../dist/cli/provider.js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-schema-'));
try {
  const mirror = path.join(dir, 'mirror');
  installProvider(mirror);
  const rc = path.join(dir, 'terraform.rc');
  fs.writeFileSync(rc, mirrorCliConfig(mirror));
  const work = path.join(dir, 'work');
  fs.mkdirSync(work);
  fs.writeFileSync(
    path.join(work, 'main.tf.json'),
    JSON.stringify({ terraform: { required_providers: { proxyaccount: { source: 'proxyaccount/proxyaccount' } } } }),
  );
  const env = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
  execFileSync('terraform', [`-chdir=${work}`, 'init', '-input=false', '-no-color'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const json = execFileSync('terraform', [`-chdir=${work}`, 'providers', 'schema', '-json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  // Pretty-printed so that `git diff` of a schema change is readable.
  fs.writeFileSync(out, `${JSON.stringify(JSON.parse(json), null, 2)}\n`);
  console.error(`dump-provider-schema: wrote ${out}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
