// The release installed the ways a team without a registry would: `provider install --from`
// into a filesystem mirror for two platforms (the lock file then holds both platforms' hashes),
// and `provider mirror` served over HTTPS as a Provider Network Mirror. The real terraform, the
// single executable (PATH without Node) and the emulator. The release is built once and shared
// with test/release (see test/release/helpers/release.ts).
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { zipHash1 } from '../../src/packaging';
import { createSelfSignedCertificate } from '../../src/util/x509';
import { type BuiltRelease, runCli, sharedRelease, VERSION } from '../release/helpers/release';
import { type E2eAccount, startAccount } from './helpers/account';
import { pathWithoutNode, REQUIRED_PROVIDERS, requireTerraform, Workspace } from './helpers/terraform';

jest.setTimeout(300_000);

const SOURCE_DIR = path.join('registry.terraform.io', 'proxyaccount', 'proxyaccount');
const zipName = (platform: string): string => `terraform-provider-proxyaccount_${VERSION}_${platform}.zip`;

let release: BuiltRelease;
let account: E2eAccount;
let root: string;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  requireTerraform();
  release = await sharedRelease();
  account = await startAccount();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-mirrors-'));
});

afterAll(async () => {
  for (const ws of workspaces) ws.dispose();
  await account?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A workspace whose terraform uses `cliConfig` and has no Node on PATH. */
function workspace(cliConfig: string, extraEnv: NodeJS.ProcessEnv = {}): Workspace {
  const ws = new Workspace({ env: { ...account.env, TF_CLI_CONFIG_FILE: cliConfig, PATH: pathWithoutNode(root), ...extraEnv } });
  workspaces.push(ws);
  return ws;
}

/** The `h1:` hashes of the provider in a lock file. */
function lockedHashes(ws: Workspace): string[] {
  const lock = ws.read('.terraform.lock.hcl');
  expect(lock).toContain('provider "registry.terraform.io/proxyaccount/proxyaccount"');
  expect(lock).toContain(`version     = "${VERSION}"`);
  return [...lock.matchAll(/"(h1:[A-Za-z0-9+/=]+)"/g)].map((m) => m[1]!).sort();
}

/** The executable `terraform init` installed for linux_amd64. */
function installedExecutable(ws: Workspace): Buffer {
  return fs.readFileSync(path.join(ws.dir, '.terraform', 'providers', SOURCE_DIR, VERSION, 'linux_amd64', `terraform-provider-proxyaccount_v${VERSION}`));
}

const TINY_CONFIG = `
data "proxyaccount_proxies" "all" {}

resource "proxyaccount_sub_account" "mirrored" {
  username = "mirror-user"
}

output "proxies" {
  value = length(data.proxyaccount_proxies.all.proxies)
}
`;

describe('provider install --from --platform (filesystem mirror, packed layout)', () => {
  it('installs verified zips for linux_amd64 and linux_arm64; providers lock records both; init and plan run the single executable', async () => {
    const mirror = path.join(root, 'fs-mirror');
    const cliConfig = path.join(root, 'fs.tfrc');
    const res = await runCli([
      'provider',
      'install',
      '--from',
      release.dir,
      '--dir',
      mirror,
      '--platform',
      'linux_amd64',
      '--platform',
      'linux_arm64',
      '--cli-config',
      cliConfig,
    ]);
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toContain(`path    = ${JSON.stringify(mirror)}`);
    expect(fs.readdirSync(path.join(mirror, SOURCE_DIR)).sort()).toEqual([zipName('linux_amd64'), zipName('linux_arm64')]);

    const ws = workspace(cliConfig);
    ws.config(TINY_CONFIG);
    // `providers lock` does not read provider_installation from the CLI configuration: it asks
    // the origin registry unless told where the mirror is.
    await ws.expect(['providers', 'lock', '-no-color', `-fs-mirror=${mirror}`, '-platform=linux_amd64', '-platform=linux_arm64']);
    const expected = [await zipHash1(path.join(release.dir, zipName('linux_amd64'))), await zipHash1(path.join(release.dir, zipName('linux_arm64')))].sort();
    expect(expected[0]).not.toBe(expected[1]);
    expect(lockedHashes(ws)).toEqual(expected);

    const init = await ws.init();
    expect(init.stdout).toMatch(new RegExp(`Installing proxyaccount/proxyaccount v${VERSION.replace(/\./g, '\\.')}`));
    expect(installedExecutable(ws).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46])); // the SEA, not the script
    expect(lockedHashes(ws)).toEqual(expected); // init checked the package against the lock, kept both

    const plan = await ws.planExitCode();
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('proxyaccount_sub_account.mirrored will be created');
    expect(plan.stdout).toMatch(/Plan: 1 to add, 0 to change, 0 to destroy/);
    expect(plan.stdout).toMatch(/\+ proxies\s+= \d+/); // the data source was read from the emulator
  });

  it('refuses a zip that does not match the release SHA256SUMS, installing nothing', async () => {
    const tampered = path.join(root, 'tampered-release');
    fs.mkdirSync(tampered);
    for (const f of fs.readdirSync(release.dir)) fs.copyFileSync(path.join(release.dir, f), path.join(tampered, f));
    fs.appendFileSync(path.join(tampered, zipName('linux_arm64')), 'x');
    const mirror = path.join(root, 'refused-mirror');
    const res = await runCli(['provider', 'install', '--from', tampered, '--dir', mirror, '--platform', 'linux_amd64,linux_arm64']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`${zipName('linux_arm64')} does not match terraform-provider-proxyaccount_${VERSION}_SHA256SUMS`);
    expect(res.stderr).toContain('refusing to use it');
    expect(fs.existsSync(path.join(mirror, SOURCE_DIR))).toBe(false);
  });

  it('says which platforms the release has when asked for another', async () => {
    const res = await runCli(['provider', 'install', '--from', release.dir, '--dir', path.join(root, 'other'), '--platform', 'windows_amd64']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('has no windows_amd64 package');
    expect(res.stderr).toContain('lists linux_amd64, linux_arm64');
  });
});

describe('provider mirror (Provider Network Mirror Protocol over HTTPS)', () => {
  let server: Server;
  const requests: string[] = [];

  afterAll(async () => {
    if (server) await new Promise((r) => server.close(r));
  });

  it('lays out index.json, VERSION.json with h1 hashes and the zips; terraform init installs from it', async () => {
    const tree = path.join(root, 'net-mirror');
    const cert = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
    const certFile = path.join(root, 'mirror-ca.pem');
    fs.writeFileSync(certFile, cert.certPem);
    server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      requests.push(`${req.method} ${req.url}`);
      const file = path.join(tree, decodeURIComponent(new URL(req.url ?? '/', 'https://localhost').pathname));
      if (!file.startsWith(tree) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': file.endsWith('.json') ? 'application/json' : 'application/zip' });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://localhost:${(server.address() as AddressInfo).port}/`;

    const cliConfig = path.join(root, 'net.tfrc');
    const res = await runCli(['provider', 'mirror', '--dir', tree, '--from', release.dir, '--url', url, '--cli-config', cliConfig]);
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toContain(`url     = ${JSON.stringify(url)}`);
    const typeDir = path.join(tree, SOURCE_DIR);
    expect(JSON.parse(fs.readFileSync(path.join(typeDir, 'index.json'), 'utf8'))).toEqual({ versions: { [VERSION]: {} } });
    const amd64Hash = await zipHash1(path.join(release.dir, zipName('linux_amd64')));
    expect(JSON.parse(fs.readFileSync(path.join(typeDir, `${VERSION}.json`), 'utf8'))).toEqual({
      archives: {
        linux_amd64: { url: zipName('linux_amd64'), hashes: [amd64Hash] },
        linux_arm64: { url: zipName('linux_arm64'), hashes: [await zipHash1(path.join(release.dir, zipName('linux_arm64')))] },
      },
    });

    const ws = workspace(cliConfig, { SSL_CERT_FILE: certFile });
    ws.write('main.tf', REQUIRED_PROVIDERS);
    const init = await ws.init();
    expect(init.stdout).toMatch(new RegExp(`Installing proxyaccount/proxyaccount v${VERSION.replace(/\./g, '\\.')}`));
    expect(requests).toEqual(
      expect.arrayContaining([
        `GET /registry.terraform.io/proxyaccount/proxyaccount/index.json`,
        `GET /registry.terraform.io/proxyaccount/proxyaccount/${VERSION}.json`,
        `GET /registry.terraform.io/proxyaccount/proxyaccount/${zipName('linux_amd64')}`,
      ]),
    );
    expect(requests).not.toContain(`GET /registry.terraform.io/proxyaccount/proxyaccount/${zipName('linux_arm64')}`);
    expect(installedExecutable(ws).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    expect(lockedHashes(ws)).toContain(amd64Hash); // the mirror's hash, which terraform checked the zip against
    const schema = await ws.expect(['providers', 'schema', '-json']);
    expect(Object.keys((JSON.parse(schema.stdout) as { provider_schemas: Record<string, unknown> }).provider_schemas)).toEqual([
      'registry.terraform.io/proxyaccount/proxyaccount',
    ]);
  });
});
