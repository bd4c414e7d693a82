#!/usr/bin/env node
// Writes the published metadata of both construct packages from one place, metadata.json:
// package.json (cdktf-provider-proxyaccount) gets repository, homepage, bugs, author, the Go module
// name and the `cdktf.provider` block; cdktn/package.json (cdktn-provider-proxyaccount) is derived
// whole from package.json, with cdktn's names, dependencies and jsii targets.
//
//   npm run manifest            rewrite both files
//   npm run manifest -- --check exit 1, naming the files, when either differs from what it would write
//
// After a change to cdktn's dependencies, refresh its lockfile:
//   npm install --package-lock-only --prefix cdktn
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const REPO = path.resolve(ROOT, '..');
const FILES = { cdktf: path.join(ROOT, 'package.json'), cdktn: path.join(ROOT, 'cdktn', 'package.json') };

// What differs in the CDK Terrain build. cdktn 0.24 requires constructs >= 10.6 and < 10.8, and its
// generator pins constructs 10.6.0: one copy in cdktn/node_modules.
const CDKTN = {
  name: 'cdktn-provider-proxyaccount',
  peerDependencies: { cdktn: '^0.24.0', constructs: '>=10.6.0 <10.8.0' },
  devDependencies: { '@cdktn/provider-generator': '0.24.0', cdktn: '0.24.0', constructs: '10.6.0' },
};

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Rebuilds `obj` with `entries` placed right after `afterKey` (or replaced where they already are). */
function withKeys(obj, afterKey, entries) {
  const out = {};
  const rest = Object.fromEntries(Object.entries(entries).filter(([k]) => !(k in obj)));
  for (const [key, value] of Object.entries(obj)) {
    out[key] = key in entries ? entries[key] : value;
    if (key === afterKey) Object.assign(out, rest);
  }
  if (!(afterKey in obj)) Object.assign(out, rest);
  return out;
}

/** The `cdktf` (and, for cdktn, `cdktn`) block that @cdktf/provider-* and @cdktn/provider-* packages carry. */
function providerBlock(meta, providerVersion) {
  return { isDeprecated: false, provider: { name: meta.providerSource, version: providerVersion } };
}

function cdktfManifest(current, meta, providerVersion) {
  const repo = meta.repository.replace(/\/+$/, '');
  if (!/^https:\/\/[^/]+\/[^/]+\/[^/]+$/.test(repo)) throw new Error(`metadata.json: repository must be https://HOST/OWNER/NAME, not ${JSON.stringify(meta.repository)}`);
  let pkg = withKeys(current, 'repository', {
    author: meta.author,
    repository: { type: 'git', url: `git+${repo}.git`, directory: 'constructs' },
    homepage: `${repo}/tree/main/constructs#readme`,
    bugs: { url: `${repo}/issues` },
  });
  pkg = withKeys(pkg, 'stability', { cdktf: providerBlock(meta, providerVersion) });
  const targets = pkg.jsii.targets;
  pkg.jsii = { ...pkg.jsii, targets: { ...targets, go: { ...targets.go, moduleName: `${meta.goModulePrefix}/cdktf-provider-proxyaccount-go` } } };
  return pkg;
}

/** Maps a cdktf name to its cdktn counterpart (cdktf -> cdktn, Cdktf -> Cdktn). */
const toCdktn = (text) => text.replace(/cdktf/g, 'cdktn').replace(/Cdktf/g, 'Cdktn');

function cdktnManifest(cdktf, meta, providerVersion) {
  const { targets } = cdktf.jsii;
  const devDependencies = { ...CDKTN.devDependencies, jsii: cdktf.devDependencies.jsii };
  return {
    name: CDKTN.name,
    version: cdktf.version,
    description: cdktf.description
      .replace('CDK for Terraform constructs', 'CDK Terrain (cdktn) constructs')
      .replace(/\.$/, '. Built from the same sources as cdktf-provider-proxyaccount.'),
    license: cdktf.license,
    author: cdktf.author,
    repository: { ...cdktf.repository, directory: 'constructs/cdktn' },
    homepage: cdktf.homepage,
    bugs: cdktf.bugs,
    keywords: ['cdktn', 'cdk-terrain', 'cdktf', 'terraform', 'opentofu', 'proxyaccount', 'constructs'],
    main: cdktf.main,
    types: cdktf.types,
    files: cdktf.files,
    engines: cdktf.engines,
    stability: cdktf.stability,
    // @cdktn/provider-* packages carry both blocks, so tools of either lineage recognise them.
    cdktf: providerBlock(meta, providerVersion),
    cdktn: providerBlock(meta, providerVersion),
    scripts: { build: cdktf.scripts.build },
    peerDependencies: CDKTN.peerDependencies,
    devDependencies: Object.fromEntries(Object.entries(devDependencies).sort(([a], [b]) => a.localeCompare(b))),
    jsii: {
      ...cdktf.jsii,
      targets: {
        python: { distName: toCdktn(targets.python.distName), module: toCdktn(targets.python.module) },
        java: { package: toCdktn(targets.java.package), maven: { groupId: targets.java.maven.groupId, artifactId: toCdktn(targets.java.maven.artifactId) } },
        dotnet: { namespace: toCdktn(targets.dotnet.namespace), packageId: toCdktn(targets.dotnet.packageId) },
        go: { moduleName: toCdktn(targets.go.moduleName) },
      },
    },
  };
}

/** Both manifests as they should be, as text. */
function expected() {
  const meta = readJson(path.join(ROOT, 'metadata.json'));
  // The provider these bindings were generated for is the one this repository builds.
  const providerVersion = readJson(path.join(REPO, 'package.json')).version;
  const cdktf = cdktfManifest(readJson(FILES.cdktf), meta, providerVersion);
  const cdktn = cdktnManifest(cdktf, meta, providerVersion);
  const text = (obj) => `${JSON.stringify(obj, null, 2)}\n`;
  return { cdktf: text(cdktf), cdktn: text(cdktn) };
}

function main() {
  const check = process.argv.slice(2).includes('--check');
  const want = expected();
  const stale = [];
  for (const [flavor, file] of Object.entries(FILES)) {
    const have = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (have === want[flavor]) continue;
    stale.push(path.relative(ROOT, file));
    if (!check) fs.writeFileSync(file, want[flavor]);
  }
  if (check && stale.length > 0) {
    process.stderr.write(`manifest: ${stale.join(', ')} disagree with metadata.json and package.json; run \`npm run manifest\` in constructs/\n`);
    process.exit(1);
  }
  process.stdout.write(stale.length === 0 ? 'manifest: up to date\n' : `manifest: ${check ? 'stale' : 'wrote'} ${stale.join(', ')}\n`);
}

if (require.main === module) main();
module.exports = { expected };
