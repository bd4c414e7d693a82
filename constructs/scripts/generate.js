#!/usr/bin/env node
// Generates the L1 bindings in src/gen/ from a provider schema JSON (the output of
// `terraform providers schema -json`), offline, with @cdktf/provider-generator, or with
// @cdktn/provider-generator (from cdktn/node_modules) for the CDK Terrain build.
//
//   npm run generate [-- --schema FILE] [--out DIR] [--version CONSTRAINT] [--flavor cdktf|cdktn]
//
// Same schema in, same files out: src/gen/ is deleted and rewritten whole, so it never drifts
// from the schema and must never be edited by hand.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');

const PACKAGE_ROOT = path.resolve(__dirname, '..');
const DEFAULTS = {
  schema: path.join(PACKAGE_ROOT, 'schema', 'proxyaccount.json'),
  out: path.join(PACKAGE_ROOT, 'src', 'gen'),
  source: 'proxyaccount/proxyaccount',
  // A constraint rather than the exact provider version: synthesized stacks accept any 0.x >= 0.1.
  version: '~> 0.1',
  flavor: 'cdktf',
};
// Where each flavor's generator is installed: cdktf's in this package, cdktn's in cdktn/ (its own
// package.json and lockfile, so the two toolchains never share a node_modules).
const GENERATORS = {
  cdktf: { root: PACKAGE_ROOT, generator: '@cdktf/provider-generator/lib/get/generator/provider-generator', commons: '@cdktf/commons' },
  cdktn: { root: path.join(PACKAGE_ROOT, 'cdktn'), generator: '@cdktn/provider-generator/build/get/generator/provider-generator', commons: '@cdktn/commons' },
};
const SCHEMA_KEY = 'registry.terraform.io/proxyaccount/proxyaccount';

/** Parses `--name value` / `--name=value` pairs; unknown flags are an error, not a silent no-op. */
function parseArgs(argv) {
  const options = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(schema|out|source|version|flavor)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new Error(`unknown argument ${JSON.stringify(argv[i])}; expected --schema, --out, --source, --version or --flavor`);
    const value = match[2] !== undefined ? match[2] : argv[++i];
    if (value === undefined || value === '') throw new Error(`--${match[1]} needs a value`);
    options[match[1]] = match[1] === 'schema' || match[1] === 'out' ? path.resolve(value) : value;
  }
  if (!Object.hasOwn(GENERATORS, options.flavor)) throw new Error(`--flavor must be cdktf or cdktn, not ${JSON.stringify(options.flavor)}`);
  return options;
}

/** Reads the schema and checks it is a `providers schema -json` document holding our provider. */
function readSchema(file) {
  const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (schema.format_version === undefined || typeof schema.provider_schemas !== 'object') {
    throw new Error(`${file} is not the output of \`terraform providers schema -json\``);
  }
  const keys = Object.keys(schema.provider_schemas);
  if (!keys.includes(SCHEMA_KEY)) {
    throw new Error(`${file} has no "${SCHEMA_KEY}" provider (found: ${keys.join(', ') || 'none'})`);
  }
  // Only our provider: a dump from a configuration with other providers must not leak them in.
  // provider_versions would also win over the constraint in required_providers, so drop it.
  return { format_version: schema.format_version, provider_schemas: { [SCHEMA_KEY]: schema.provider_schemas[SCHEMA_KEY] } };
}

function listFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const raw = fs.readFileSync(options.schema);
  const schema = readSchema(options.schema);

  // @cdktf/commons runs `terraform version` when loaded (for debug output only); a
  // TF_CLI_CONFIG_FILE naming a missing file makes that print a warning that is not ours to show.
  if (process.env.TF_CLI_CONFIG_FILE && !fs.existsSync(process.env.TF_CLI_CONFIG_FILE)) {
    delete process.env.TF_CLI_CONFIG_FILE;
  }
  // The package index of @cdktf/provider-generator needs jsii-pacmak at load time; the generator
  // module alone does not, and works offline. Resolved from the flavor's own node_modules.
  const flavor = GENERATORS[options.flavor];
  const load = (id) => {
    try {
      return require(require.resolve(id, { paths: [flavor.root] }));
    } catch (err) {
      const where = path.relative(process.cwd(), flavor.root) || '.';
      throw new Error(`cannot load ${id} (${err.code ?? err.message}): run \`npm ci\` in ${where} first`);
    }
  };
  const { CodeMaker } = load('codemaker');
  const { TerraformProviderGenerator } = load(flavor.generator);
  const { ConstructsMakerProviderTarget, TerraformProviderConstraint, Language } = load(flavor.commons);

  const constraint = new TerraformProviderConstraint({ name: 'proxyaccount', source: options.source, version: options.version });
  const code = new CodeMaker();
  const generator = new TerraformProviderGenerator(code, schema);
  generator.generate(new ConstructsMakerProviderTarget(constraint, Language.TYPESCRIPT));

  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-gen-'));
  try {
    await generator.save(staging);
    const generated = path.join(staging, 'providers', 'proxyaccount');
    const schemaName = path.relative(PACKAGE_ROOT, options.schema).split(path.sep).join('/');
    const digest = crypto.createHash('sha256').update(raw).digest('hex');
    const header = `// Generated by constructs/scripts/generate.js from ${schemaName}: do not edit. Rerun \`npm run generate\`.\n`;

    for (const file of listFiles(generated)) {
      const name = path.basename(file);
      // The lazy index is plain CommonJS that jsii cannot compile, and the per-resource READMEs
      // only link to a registry page; the package README documents the resources instead.
      if (name === 'lazy-index.ts' || name === 'README.md') {
        fs.rmSync(file);
        continue;
      }
      if (name.endsWith('.ts')) {
        const text = fs.readFileSync(file, 'utf8').replace(/^\/\/ generated by cdkt[fn] get\n/, '');
        fs.writeFileSync(file, header + text);
      }
    }
    fs.writeFileSync(
      path.join(generated, 'README.md'),
      [
        '# Generated L1 bindings: do not edit',
        '',
        'Everything in this folder is written by `npm run generate` (constructs/scripts/generate.js)',
        `with @${options.flavor}/provider-generator from the provider schema, and is deleted and rewritten whole on`,
        'every run. Change the provider (or the schema file) and regenerate instead.',
        '',
        `- schema: \`${schemaName}\` (sha256 \`${digest}\`)`,
        `- provider source: \`${options.source}\`, version constraint: \`${options.version}\``,
        '',
      ].join('\n'),
    );

    fs.rmSync(options.out, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(options.out), { recursive: true });
    fs.cpSync(generated, options.out, { recursive: true });
    const count = listFiles(options.out).filter((f) => f.endsWith('.ts')).length;
    process.stdout.write(`generated ${count} files in ${path.relative(process.cwd(), options.out) || '.'} from ${schemaName}\n`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`generate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
