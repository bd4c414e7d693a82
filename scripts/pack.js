#!/usr/bin/env node
// Assembles the npm packages from the build output (dist/, made by `npm run build`) and packs
// each with `npm pack`: @proxyaccount/sdk (undici only), @proxyaccount/emulator (better-sqlite3)
// and proxyaccount (everything: CLI, provider, emulator, SDK).
//
//   node scripts/pack.js [--out DIR] [--json] [--only NAME]
//
// --only NAME packs that package alone (`npm run release` packs `proxyaccount` into the release).
//
// DIR (default dist/packages) receives one folder per package and the .tgz files. Each package's
// dependencies are not listed by hand: they are the bare imports its files make, with the
// version ranges of the root package.json, so a new import in src/sdk shows up here (and is
// refused unless it is a dependency of the root). A relative import that leaves the package, or
// a missing `repository`/`homepage`/`bugs` in the root package.json, stops the script.
//
// The proxyaccount package also carries an npm-shrinkwrap.json: the entries of the root
// package-lock.json its dependencies reach, so that the CI templates' install (`npm ci` in the
// unpacked tarball, docs/gitops.md) gets exactly the tree the repository tests with, each package
// checked against its integrity, instead of resolving caret ranges afresh. (`npm install` of the
// tarball would ignore it: npm reads a shrinkwrap inside a package only when a registry says it
// has one.) The libraries (sdk, emulator) carry none: a shrinkwrap in a library stops its users'
// installs from sharing one copy of a dependency.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { isBuiltin } = require('node:module');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');

/**
 * The packages. `copy` lists paths relative to dist/ (folders or files) that keep their place
 * under the package's own dist/; `entry` is the module `require(name)` loads, relative to dist/.
 */
const PACKAGES = [
  {
    dir: 'sdk',
    name: '@proxyaccount/sdk',
    description: 'Typed client of the proxy-service account API, over undici. Knows nothing of Terraform.',
    keywords: ['proxy', 'account', 'api', 'client', 'undici'],
    copy: ['sdk'],
    entry: 'sdk/index',
    readme: 'docs/packages/sdk.md',
  },
  {
    dir: 'emulator',
    name: '@proxyaccount/emulator',
    description: 'A faithful local emulator of the proxy-service account API (HTTPS, SQLite state, a control API for tests).',
    keywords: ['proxy', 'account', 'api', 'emulator', 'testing'],
    copy: ['emulator', 'util'],
    entry: 'emulator/index',
    readme: 'docs/packages/emulator.md',
  },
  {
    dir: 'proxyaccount',
    name: 'proxyaccount',
    description: null, // the root package.json's
    keywords: ['terraform', 'terraform-provider', 'cdktf', 'proxy', 'account'],
    copy: null, // the whole tsc output and the provider bundle: see fullCopyList()
    entry: 'index',
    readme: 'README.md',
    bin: { proxyaccount: 'bin/proxyaccount.js' },
    extra: ['bin', 'docs', 'CHANGELOG.md'],
    shrinkwrap: true,
  },
];

/** Every top-level entry of dist/ that tsc made from src/ (so not dist/packages or dist/sea). */
function fullCopyList() {
  const names = new Set();
  for (const entry of fs.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })) {
    if (entry.isDirectory()) names.add(entry.name);
    else if (entry.name.endsWith('.ts')) {
      const base = entry.name.slice(0, -3);
      names.add(`${base}.js`).add(`${base}.d.ts`);
    }
  }
  return [...names].sort();
}

function fail(message) {
  console.error(`pack: ${message}`);
  process.exit(1);
}

/** Copies a file or folder, leaving out source maps (their sources, src/*.ts, are not shipped). */
function copyTree(from, to) {
  const stat = fs.statSync(from);
  if (stat.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) copyTree(path.join(from, name), path.join(to, name));
  } else if (!from.endsWith('.map')) {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    fs.chmodSync(to, stat.mode & 0o777);
  }
}

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

// require("x"), import("x") and, in .d.ts files, `from "x"` / `import "x"`.
const SPECIFIER_RES = [
  /\brequire\(\s*(['"])([^'"]+)\1\s*\)/g,
  /\bimport\(\s*(['"])([^'"]+)\1\s*\)/g,
  /\bfrom\s+(['"])([^'"]+)\1/g,
  /^\s*import\s+(['"])([^'"]+)\1/gm,
];

function specifiersOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  const found = new Set();
  for (const re of SPECIFIER_RES) for (const m of text.matchAll(re)) found.add(m[2]);
  return found;
}

function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function resolvesInside(pkgDir, fromFile, specifier) {
  const target = path.resolve(path.dirname(fromFile), specifier);
  if (path.relative(pkgDir, target).startsWith('..')) return false;
  return ['', '.js', '.json', '.d.ts', '/index.js', '/index.d.ts'].some((ext) => fs.existsSync(target + ext) && fs.statSync(target + ext).isFile());
}

/**
 * The package's dependencies: the bare imports of its .js and .d.ts files (node builtins
 * aside), each with the root's range. Fails on a relative import that leaves the package or
 * does not resolve, and on a bare import the root does not depend on.
 */
function dependenciesOf(pkgDir, rootDeps) {
  const deps = {};
  // The provider bundle carries every dependency inside it (its text still names modules in
  // comments and in code paths it never takes, such as undici's node:sqlite cache store).
  const selfContained = (f) => path.relative(pkgDir, f) === path.join('dist', 'provider', 'bundle.js');
  for (const file of walk(pkgDir).filter((f) => /\.(js|d\.ts)$/.test(f) && !selfContained(f))) {
    for (const specifier of specifiersOf(file)) {
      const where = path.relative(pkgDir, file);
      if (specifier.startsWith('.')) {
        if (!resolvesInside(pkgDir, file, specifier)) fail(`${where} imports ${specifier}, which is not inside the package`);
      } else if (!specifier.startsWith('node:') && !isBuiltin(specifier)) {
        const name = packageNameOf(specifier);
        if (!(name in rootDeps)) fail(`${where} imports ${name}, which is not a dependency of the root package.json`);
        deps[name] = rootDeps[name];
      }
    }
  }
  return Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)));
}

/** repository/homepage/bugs come from the root package.json, the one place they are configured. */
function projectLinks(root) {
  for (const field of ['repository', 'homepage', 'bugs']) {
    if (root[field] === undefined) fail(`the root package.json has no "${field}"; every package copies it from there`);
  }
  return { repository: root.repository, homepage: root.homepage, bugs: root.bugs };
}

function manifestFor(spec, root, dependencies) {
  const types = `./dist/${spec.entry}.d.ts`;
  const main = `./dist/${spec.entry}.js`;
  const repository = typeof root.repository === 'string' ? { type: 'git', url: root.repository } : { ...root.repository };
  if (spec.dir !== 'proxyaccount') repository.directory = `src/${spec.copy[0]}`;
  return {
    name: spec.name,
    version: root.version,
    description: spec.description ?? root.description,
    keywords: spec.keywords,
    license: root.license,
    ...projectLinks(root),
    repository,
    engines: root.engines,
    type: 'commonjs',
    main,
    types,
    exports: { '.': { types, default: main }, './package.json': './package.json' },
    ...(spec.bin ? { bin: spec.bin } : {}),
    dependencies,
  };
}

/** The location a dependency `name` of the package at `from` resolves to in a lockfile, as node resolves it. */
function lockLocation(packages, from, name) {
  for (let base = from; ; ) {
    const location = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[location] !== undefined) return location;
    if (base === '') return undefined;
    const up = base.lastIndexOf('/node_modules/');
    base = up === -1 ? '' : base.slice(0, up);
  }
}

/**
 * The npm-shrinkwrap.json of a package whose dependencies are `manifest.dependencies`: the entries
 * of the root package-lock.json those dependencies reach (and theirs, transitively), at the
 * places npm ci put them, so exactly what the repository tests with. Fails when the lockfile
 * lacks one of them (run npm install to update it).
 */
function shrinkwrapFor(manifest, lock) {
  const packages = lock.packages ?? {};
  const reached = new Set();
  const queue = Object.keys(manifest.dependencies).map((name) => ({ from: '', name, required: true }));
  while (queue.length > 0) {
    const { from, name, required } = queue.pop();
    const location = lockLocation(packages, from, name);
    if (location === undefined) {
      if (required) fail(`package-lock.json has no ${name} for ${from || manifest.name}; run npm install to update it`);
      continue; // an optional or peer dependency nothing installs
    }
    if (reached.has(location)) continue;
    reached.add(location);
    const entry = packages[location];
    for (const dep of Object.keys(entry.dependencies ?? {})) queue.push({ from: location, name: dep, required: true });
    for (const dep of Object.keys({ ...entry.optionalDependencies, ...entry.peerDependencies })) queue.push({ from: location, name: dep, required: false });
  }
  const entries = [...reached].sort().map((location) => {
    // Every entry here is reached from the package's dependencies, so none is dev; one the
    // repository needs only through dev or optional edges was reached through an optional one.
    const { dev, devOptional, ...entry } = packages[location];
    return [location, devOptional ? { ...entry, optional: true } : entry];
  });
  const root = {
    name: manifest.name,
    version: manifest.version,
    license: manifest.license,
    dependencies: manifest.dependencies,
    bin: manifest.bin,
    engines: manifest.engines,
  };
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages: { '': root, ...Object.fromEntries(entries) } };
}

/** Lays out one package under outDir/<dir> and returns its folder. */
function assemble(spec, root, outDir) {
  const pkgDir = path.join(outDir, spec.dir);
  fs.rmSync(pkgDir, { recursive: true, force: true });
  fs.mkdirSync(pkgDir, { recursive: true });
  for (const rel of spec.copy ?? fullCopyList()) {
    const from = path.join(DIST, rel);
    if (!fs.existsSync(from)) fail(`dist/${rel} is missing; run npm run build first`);
    copyTree(from, path.join(pkgDir, 'dist', rel));
  }
  for (const rel of spec.extra ?? []) copyTree(path.join(ROOT, rel), path.join(pkgDir, rel));
  copyTree(path.join(ROOT, spec.readme), path.join(pkgDir, 'README.md'));
  copyTree(path.join(ROOT, 'LICENSE'), path.join(pkgDir, 'LICENSE'));
  // Written before the import check: dist/cli/main.js reads ../../package.json for --version.
  const manifestPath = path.join(pkgDir, 'package.json');
  fs.writeFileSync(manifestPath, `${JSON.stringify(manifestFor(spec, root, {}), null, 2)}\n`);
  const dependencies = dependenciesOf(pkgDir, root.dependencies ?? {});
  const manifest = manifestFor(spec, root, dependencies);
  fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  if (spec.shrinkwrap) {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    fs.writeFileSync(path.join(pkgDir, 'npm-shrinkwrap.json'), `${JSON.stringify(shrinkwrapFor(manifest, lock), null, 2)}\n`);
  }
  return pkgDir;
}

/** Runs `npm pack` in pkgDir, writing the tarball into outDir; returns npm's report. */
function npmPack(pkgDir, outDir) {
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
    cwd: pkgDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [report] = JSON.parse(out);
  return {
    name: report.name,
    version: report.version,
    tarball: path.join(outDir, report.filename),
    size: report.size,
    unpackedSize: report.unpackedSize,
    files: report.entryCount,
  };
}

function main(argv) {
  const outIndex = argv.indexOf('--out');
  const outDir = path.resolve(outIndex === -1 ? path.join(DIST, 'packages') : (argv[outIndex + 1] ?? fail('--out needs a folder')));
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  if (!fs.existsSync(path.join(DIST, 'index.js'))) fail('dist/ is missing; run npm run build first');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex === -1 ? undefined : (argv[onlyIndex + 1] ?? fail('--only needs a package name'));
  const specs = only === undefined ? PACKAGES : PACKAGES.filter((spec) => spec.name === only);
  if (specs.length === 0) fail(`--only ${only} is not one of the packages: ${PACKAGES.map((spec) => spec.name).join(', ')}`);
  fs.mkdirSync(outDir, { recursive: true });
  const packed = specs.map((spec) => {
    const pkgDir = assemble(spec, root, outDir);
    const dependencies = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).dependencies;
    return { ...npmPack(pkgDir, outDir), dir: pkgDir, dependencies };
  });
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(packed, null, 2)}\n`);
  } else {
    for (const p of packed) {
      const deps = Object.keys(p.dependencies).join(', ') || 'none';
      console.log(`${path.relative(process.cwd(), p.tarball)}  ${(p.size / 1024).toFixed(0)} KiB packed, ${p.files} files; dependencies: ${deps}`);
    }
  }
}

main(process.argv.slice(2));
