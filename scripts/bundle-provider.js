#!/usr/bin/env node
// Bundles the provider entry (dist/main-provider.js, compiled by tsc) into one self-contained,
// executable JavaScript file: dist/provider/terraform-provider-proxyaccount.
// One file loads faster than a tree of modules (Terraform starts the provider 3-4 times per
// command) and is what `proxyaccount provider install` copies into a filesystem mirror.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist', 'main-provider.js');
const outDir = path.join(root, 'dist', 'provider');
const outFile = path.join(outDir, 'terraform-provider-proxyaccount');

if (!fs.existsSync(entry)) {
  console.error(`bundle-provider: ${path.relative(root, entry)} is missing; run tsc first (npm run build)`);
  process.exit(1);
}
fs.mkdirSync(outDir, { recursive: true });
const result = esbuild.buildSync({
  entryPoints: [entry],
  outfile: outFile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
});
fs.chmodSync(outFile, 0o755);
const bytes = fs.statSync(outFile).size;
const inputs = Object.keys(result.metafile.inputs).length;
console.error(`bundle-provider: ${path.relative(root, outFile)} (${(bytes / 1024).toFixed(0)} KiB from ${inputs} modules)`);
