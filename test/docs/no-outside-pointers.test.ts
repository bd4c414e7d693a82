// A user of the repository has only the repository: no document or source comment may send them to
// the project's private notes (the API contract file, the architecture notes, an issue tracker's
// "the issue"). The contract is described in docs/emulator.md, "The API it implements".
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** Tracked files worth reading: documentation and sources, not generated references or lockfiles. */
function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((f) => /\.(md|ts|js|cjs|tf|yml|yaml|json)$/.test(f))
    .filter(
      (f) => f !== 'test/docs/no-outside-pointers.test.ts' && f !== 'package-lock.json' && !f.startsWith('constructs/src/gen/') && f !== 'constructs/API.md',
    )
    .filter((f) => fs.existsSync(path.join(ROOT, f)));
}

const POINTERS: ReadonlyArray<[string, RegExp]> = [
  ['the API contract file', /API\.md/],
  ['the project notes', /\b(PROVIDER-SCHEMA|ARCHITECTURE|STYLE|EMULATOR-CHOICES)(\.md)?\b/],
  ['the architecture notes', /architecture notes/i],
  ['"the issue"', /\bthe issue\b/i],
];

/** constructs/API.md is the package's own generated reference, which its scripts and tests name. */
function ownApiReference(file: string, line: string): boolean {
  return /constructs\/API\.md/.test(line) || (/^constructs\/(scripts|test|README\.md)/.test(file) && /API\.md/.test(line));
}

it('no file points at documents a user of the repository does not have', () => {
  const found: string[] = [];
  for (const file of trackedFiles()) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [what, re] of POINTERS) {
        if (what === 'the API contract file' && ownApiReference(file, line)) continue;
        if (re.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 100)}`);
      }
    });
  }
  expect(found).toEqual([]);
});

it('the contract is described in the repository itself', () => {
  const emulator = fs.readFileSync(path.join(ROOT, 'docs', 'emulator.md'), 'utf8');
  expect(emulator).toMatch(/^## The API it implements$/m);
  for (const endpoint of ['/api/sub/create/', '/api/ips/', '/api/hostnames/', '/api/proxies/', '/api/tokens/', '/api/geoips/open/'])
    expect(emulator).toContain(endpoint);
  expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('docs/emulator.md#the-api-it-implements');
});
