// Bad inputs to the release scripts get a clear error before anything is built, instead of being
// ignored: platform lists, SOURCE_DATE_EPOCH and --out.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './helpers/release';

const sea = require('../../scripts/sea.js') as { parsePlatforms: (list: string[]) => string[]; DEFAULT_PLATFORMS: string[] };
const { zipDate } = require('../../scripts/release.js') as { zipDate: (env: NodeJS.ProcessEnv) => Date };

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-release-inputs-'));
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs scripts/release.js; resolves with its exit code and stderr. */
function release(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.PROXYACCOUNT_GPG_KEY_ID;
  delete childEnv.PROXYACCOUNT_GPG_PASSPHRASE;
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'scripts', 'release.js'), ...args], { env: childEnv }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stderr: String(stderr) }),
    );
  });
}

describe('--platform', () => {
  it('checks every name, also beside all', () => {
    expect(() => sea.parsePlatforms(['all,bogus'])).toThrow(
      'unknown platform bogus; supported: linux_amd64, linux_arm64, darwin_amd64, darwin_arm64, windows_amd64 (or all)',
    );
  });

  it('adds a platform named beside all instead of dropping it', () => {
    expect(sea.parsePlatforms(['all', 'darwin_arm64'])).toEqual([...sea.DEFAULT_PLATFORMS, 'darwin_arm64']);
    expect(sea.parsePlatforms(['linux_arm64,all'])).toEqual(['linux_arm64', ...sea.DEFAULT_PLATFORMS.filter((p) => p !== 'linux_arm64')]);
  });
});

describe('SOURCE_DATE_EPOCH', () => {
  it('takes 0, a valid value, as 1970-01-01', () => {
    expect(zipDate({ SOURCE_DATE_EPOCH: '0' }).getTime()).toBe(0);
    expect(zipDate({ SOURCE_DATE_EPOCH: '1700000000' }).getTime()).toBe(1_700_000_000_000);
  });

  it('uses the fixed date when unset or empty', () => {
    expect(zipDate({}).toISOString()).toBe('2020-01-01T00:00:00.000Z');
    expect(zipDate({ SOURCE_DATE_EPOCH: '' }).toISOString()).toBe('2020-01-01T00:00:00.000Z');
  });

  it.each(['abc', '-5', '1.5', '1e9', ' 12'])('refuses %j', (value) => {
    expect(() => zipDate({ SOURCE_DATE_EPOCH: value })).toThrow(`SOURCE_DATE_EPOCH=${JSON.stringify(value)} is not a non-negative integer`);
  });

  it('fails the release before building anything', async () => {
    const res = await release(['--platform', 'linux_amd64', '--out', path.join(dir, 'epoch')], { SOURCE_DATE_EPOCH: 'abc' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('release: SOURCE_DATE_EPOCH="abc" is not a non-negative integer');
    expect(res.stderr).not.toContain('sea:');
    expect(fs.existsSync(path.join(dir, 'epoch'))).toBe(false);
  });
});

describe('--out', () => {
  it('is checked before anything is built', async () => {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, '');
    const res = await release(['--platform', 'linux_amd64', '--out', file]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`release: --out ${file} is not a directory`);
    const under = path.join(file, 'release');
    const res2 = await release(['--platform', 'linux_amd64', '--out', under]);
    expect(res2.stderr).toContain(`release: --out ${under} cannot be used as the release directory (ENOTDIR)`);
    for (const r of [res, res2]) expect(r.stderr).not.toContain('sea:');
  });
});
