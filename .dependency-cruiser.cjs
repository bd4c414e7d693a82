// The layer arrows of README.md's architecture section, as rules `npm run lint` enforces:
// protocol knows no API, the SDK knows no Terraform, the framework knows no product, the
// account store knows no Terraform, the resource-type catalogue imports nothing of ours, the emulator is an independent reading of the API contract, the SDK
// and the emulator keep to the one dependency their own packages have, and resources never
// import each other.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Cycles make load order and laziness fragile.', from: {}, to: { circular: true } },
    {
      name: 'protocol-knows-no-api',
      severity: 'error',
      comment: 'src/protocol speaks tfplugin6 only: it never imports the SDK, the account store, the provider or the CLI.',
      from: { path: '^src/protocol/' },
      to: { path: '^src/(sdk|account|provider|cli|emulator|gitops)/' },
    },
    {
      name: 'sdk-knows-no-terraform',
      severity: 'error',
      comment: 'src/sdk is a client of the account API alone (it installs on its own, with undici only).',
      from: { path: '^src/sdk/' },
      to: { path: '^src/(?!sdk/)' },
    },
    {
      name: 'sdk-depends-on-undici-only',
      severity: 'error',
      comment: '@proxyaccount/sdk is published with undici as its only dependency (scripts/pack.js): node builtins and undici, nothing else.',
      from: { path: '^src/sdk/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'], pathNot: '(^|/)node_modules/undici/' },
    },
    {
      name: 'emulator-package-stands-alone',
      severity: 'error',
      comment: '@proxyaccount/emulator is published from src/emulator and src/util with better-sqlite3 as its only dependency (scripts/pack.js).',
      from: { path: '^src/(emulator|util)/' },
      to: { pathNot: '^src/(emulator|util)/|(^|/)node_modules/(@types/)?better-sqlite3/', dependencyTypes: ['local', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'account-store-knows-no-terraform',
      severity: 'error',
      comment: 'src/account sits over the SDK and is shared by the provider and the CLI: it imports neither.',
      from: { path: '^src/account/' },
      to: { path: '^src/(protocol|provider|cli|emulator|gitops)/' },
    },
    {
      name: 'framework-knows-no-product',
      severity: 'error',
      comment: 'src/provider/framework could be its own package: only the protocol layer below it.',
      from: { path: '^src/provider/framework/' },
      to: { path: '^src/(?!provider/framework/|protocol/)' },
    },
    {
      name: 'emulator-is-independent',
      severity: 'error',
      comment: 'The emulator is a second reading of the API contract, so SDK tests against it compare two readings.',
      from: { path: '^src/emulator/' },
      to: { path: '^src/(sdk|account|protocol|provider|cli|gitops)/' },
    },
    {
      name: 'resources-stand-alone',
      severity: 'error',
      comment: 'Each resource, data source and ephemeral resource is one module; shared code lives in src/provider/access/.',
      from: { path: '^src/provider/(resources|data-sources|ephemeral-resources)/([^/]+)\\.ts$' },
      to: { path: '^src/provider/(resources|data-sources|ephemeral-resources)/', pathNot: '^src/provider/(resources|data-sources|ephemeral-resources)/$2\\.ts$' },
    },
    {
      name: 'provider-not-from-cli',
      severity: 'error',
      comment: 'The provider never depends on the CLI, the emulator, the GitOps commands or the release packaging.',
      from: { path: '^src/(provider|protocol)/' },
      to: { path: '^src/(cli|emulator|gitops|packaging)/' },
    },
    {
      name: 'packaging-stands-alone',
      severity: 'error',
      comment: 'src/packaging (release file names, SHA256SUMS, zip hashes, mirror layouts) knows no protocol and no API: the CLI and scripts/release.js use it.',
      from: { path: '^src/packaging/' },
      to: { path: '^src/(?!packaging/)' },
    },
    {
      name: 'resource-types-on-the-ground-floor',
      severity: 'error',
      comment: 'src/resource-types (the resource-type catalogue) imports nothing of ours: the provider, the store, the GitOps commands and the constructs generator all read it.',
      from: { path: '^src/resource-types/' },
      to: { path: '^src/(?!resource-types/)' },
    },
    {
      name: 'gitops-reads-through-the-store',
      severity: 'error',
      comment: 'review, drift and export read the account through src/account, never through the provider or the demo.',
      from: { path: '^src/gitops/' },
      to: { path: '^src/(provider|protocol|cli|emulator)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/protocol/gen/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
