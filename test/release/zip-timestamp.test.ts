// The release zips are the same bytes whatever the build machine's time zone: a zip's DOS date and
// time has no zone, and yazl fills it from local time. Each zip is made by a child process with
// its own TZ, as a build machine would.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './helpers/release';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-zip-tz-'));
  fs.writeFileSync(path.join(dir, 'executable'), '#!/bin/sh\necho provider\n');
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Zips the same file with scripts/release.js's zip step under time zone `tz`; returns the zip's bytes. */
function zipUnder(tz: string, sourceDateEpoch?: number): Buffer {
  const out = path.join(dir, `${tz.replace('/', '_')}-${sourceDateEpoch ?? 'default'}.zip`);
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: tz };
  delete env.SOURCE_DATE_EPOCH;
  if (sourceDateEpoch !== undefined) env.SOURCE_DATE_EPOCH = String(sourceDateEpoch);
  const script = `require(${JSON.stringify(path.join(ROOT, 'scripts', 'release.js'))}).zipExecutable(process.argv[1], 'terraform-provider-proxyaccount_v0.1.0', process.argv[2])`;
  execFileSync(process.execPath, ['-e', script, path.join(dir, 'executable'), out], { env, stdio: 'pipe' });
  return fs.readFileSync(out);
}

/** The DOS date and time of the zip's first local header, as `YYYY-MM-DD hh:mm:ss`. */
function dosTimestamp(zip: Buffer): string {
  expect(zip.readUInt32LE(0)).toBe(0x04034b50);
  const time = zip.readUInt16LE(10);
  const date = zip.readUInt16LE(12);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${(date >> 9) + 1980}-${pad((date >> 5) & 0xf)}-${pad(date & 0x1f)} ${pad(time >> 11)}:${pad((time >> 5) & 0x3f)}:${pad((time & 0x1f) * 2)}`;
}

const ZONES = ['UTC', 'America/New_York', 'Asia/Tokyo'];

describe('release zips and time zones', () => {
  it('makes the same bytes in every time zone, dated 2020-01-01 00:00:00 (UTC) by default', () => {
    const [utc, ...others] = ZONES.map((tz) => zipUnder(tz));
    for (const other of others) expect(other.equals(utc!)).toBe(true);
    expect(dosTimestamp(utc!)).toBe('2020-01-01 00:00:00');
  });

  it('dates the zip with SOURCE_DATE_EPOCH in UTC, even at a time daylight saving skips in the local zone', () => {
    // 2024-03-10 02:30 UTC: in New York, local 02:30 of that day does not exist (clocks jump to 03:00).
    const epoch = Date.UTC(2024, 2, 10, 2, 30) / 1000;
    const [utc, ...others] = ZONES.map((tz) => zipUnder(tz, epoch));
    for (const other of others) expect(other.equals(utc!)).toBe(true);
    expect(dosTimestamp(utc!)).toBe('2024-03-10 02:30:00');
  });
});
