// `proxyaccount drift`'s options: a value option given twice is refused (commander would keep the
// last one silently, and a second --dir would scan one state while the user meant two), and
// --max-chars must leave room for the report's verdict and titles. All refused before terraform runs.
// --json-out writes the whole JSON report beside the Markdown, which names it where it cuts a list.
// --out and --json-out are refused before anything runs when they name one file (however spelt)
// or a place no file can be written.
import { existsSync, linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main';

/** Parses `proxyaccount drift ARGS`; resolves with commander's error message, or undefined when it parsed. */
async function parseError(...args: string[]): Promise<string | undefined> {
  const program = buildProgram();
  const drift = program.commands.find((c) => c.name() === 'drift') as Command;
  // Parsing only: the command's action would run terraform.
  drift.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  drift.action(() => undefined);
  try {
    await program.parseAsync(['node', 'proxyaccount', 'drift', ...args]);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('proxyaccount drift options', () => {
  it('refuses a repeated --dir, saying one run reads one state', async () => {
    expect(await parseError('--dir', 'ws1', '--dir', 'ws3')).toMatch(/--dir is given more than once; give it once: one run reads one state/);
    expect(await parseError('--dir', 'ws1')).toBeUndefined();
  });

  it('refuses a repeated --plan, --provider, --out or --json-out', async () => {
    expect(await parseError('--plan', 'a.tfplan', '--plan', 'b.tfplan')).toMatch(/--plan is given more than once/);
    expect(await parseError('--provider', 'proxyaccount', '--provider', 'proxyaccount.other')).toMatch(/--provider is given more than once/);
    expect(await parseError('--out', 'a.md', '--out', 'b.md')).toMatch(/--out is given more than once/);
    expect(await parseError('--json-out', 'a.json', '--json-out', 'b.json')).toMatch(/--json-out is given more than once/);
  });

  it('takes --max-chars of at least 4000 characters', async () => {
    expect(await parseError('--max-chars', '40000')).toBeUndefined();
    expect(await parseError('--max-chars', '100')).toMatch(/at least 4000/);
    expect(await parseError('--max-chars', 'lots')).toMatch(/a whole number of characters/);
  });

  describe('--json-out', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'drift-cli-'));
    });
    afterEach(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exitCode = undefined;
    });

    /** Runs `proxyaccount drift ARGS` for real (its own action); resolves with the error it stops with, if any. */
    async function drift(...args: string[]): Promise<Error | undefined> {
      const program = buildProgram();
      (program.commands.find((c) => c.name() === 'drift') as Command).exitOverride().configureOutput({ writeErr: () => undefined });
      return program.parseAsync(['node', 'proxyaccount', 'drift', ...args]).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    }

    it('writes the whole JSON report beside the Markdown, which names that file where it cuts a list (finding: pointer to a report nobody keeps)', async () => {
      // A plan with 100 changes not applied: more than 4000 characters of Markdown hold.
      const changes = Array.from({ length: 100 }, (_, i) => ({
        address: `proxyaccount_authorized_ip.ip${i}`,
        type: 'proxyaccount_authorized_ip',
        mode: 'managed',
        change: { actions: ['create'], before: null, after: { ip: `10.0.0.${i}`, label: 'x'.repeat(40) } },
      }));
      const plan = path.join(dir, 'plan.json');
      writeFileSync(plan, JSON.stringify({ resource_changes: changes, prior_state: { values: { root_module: { resources: [] } } } }));
      const [md, json] = [path.join(dir, 'drift.md'), path.join(dir, 'drift.json')];
      expect(await drift('--dir', dir, '--plan', plan, '--no-scan', '--max-chars', '4000', '--out', md, '--json-out', json)).toBeUndefined();
      expect(process.exitCode).toBe(2);
      const report = JSON.parse(readFileSync(json, 'utf8')) as { pending: unknown[] };
      expect(report.pending).toHaveLength(100);
      const text = readFileSync(md, 'utf8');
      expect(text.length).toBeLessThanOrEqual(4000);
      expect(text).toContain(`more, see the JSON report \`${json}\`._`);
    });

    it('refuses --json-out naming the file of --out, before terraform runs', async () => {
      const err = await drift('--dir', path.join(dir, 'nope'), '--out', path.join(dir, 'r'), '--json-out', path.join(dir, '.', 'r'));
      expect(err?.message).toMatch(/^--json-out and --out name the same file \(.*\); give the JSON report a file of its own\.$/);
      expect(existsSync(path.join(dir, 'r'))).toBe(false);
    });

    it('refuses one file under two names: a symbolic link (dangling too), a linked directory, a hard link (finding: the Markdown overwrote the JSON)', async () => {
      // --dir does not exist: an option let through would fail on it instead, before terraform runs.
      const run = (out: string, jsonOut: string) => drift('--dir', path.join(dir, 'nope'), '--out', path.join(dir, out), '--json-out', path.join(dir, jsonOut));
      const same = /^--json-out and --out name the same file \(.*\); give the JSON report a file of its own\.$/;
      symlinkSync('report.md', path.join(dir, 'report.json'));
      expect((await run('report.md', 'report.json'))?.message).toMatch(same);
      writeFileSync(path.join(dir, 'report.md'), 'old');
      expect((await run('report.json', 'report.md'))?.message).toMatch(same);
      symlinkSync(dir, path.join(dir, 'here'));
      expect((await run('a.md', 'here/a.md'))?.message).toMatch(same);
      linkSync(path.join(dir, 'report.md'), path.join(dir, 'hard.json'));
      expect((await run('report.md', 'hard.json'))?.message).toMatch(same);
      // Two files apart are not refused for it: the run goes on to --dir.
      expect((await run('report.md', 'other.json'))?.message).toMatch(/^--dir .*nope: no such directory$/);
      expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toBe('old');
    });

    it('refuses an --out or --json-out whose directory does not exist, or that is a directory, naming the option, before terraform runs', async () => {
      const run = (...args: string[]) => drift('--dir', path.join(dir, 'nope'), ...args);
      expect((await run('--json-out', path.join(dir, 'missing', 'd.json'), '--out', path.join(dir, 'x2.md')))?.message).toBe(
        `--json-out ${path.join(dir, 'missing', 'd.json')}: no such directory ${path.join(dir, 'missing')}`,
      );
      writeFileSync(path.join(dir, 'file'), '');
      expect((await run('--out', path.join(dir, 'file', 'r.md')))?.message).toBe(
        `--out ${path.join(dir, 'file', 'r.md')}: ${path.join(dir, 'file')} is not a directory`,
      );
      expect((await run('--out', dir))?.message).toBe(`--out ${dir}: it is a directory`);
      expect((await run('--out', path.join(dir, 'r.md')))?.message).toMatch(/^--dir .*nope: no such directory$/);
    });
  });
});
