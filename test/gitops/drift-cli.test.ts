// `proxyaccount drift`'s options: a value option given twice is refused (commander would keep the
// last one silently, and a second --dir would scan one state while the user meant two), and
// --max-chars must leave room for the report's verdict and titles. All refused before terraform runs.
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

  it('refuses a repeated --plan, --provider or --out', async () => {
    expect(await parseError('--plan', 'a.tfplan', '--plan', 'b.tfplan')).toMatch(/--plan is given more than once/);
    expect(await parseError('--provider', 'proxyaccount', '--provider', 'proxyaccount.other')).toMatch(/--provider is given more than once/);
    expect(await parseError('--out', 'a.md', '--out', 'b.md')).toMatch(/--out is given more than once/);
  });

  it('takes --max-chars of at least 4000 characters', async () => {
    expect(await parseError('--max-chars', '40000')).toBeUndefined();
    expect(await parseError('--max-chars', '100')).toMatch(/at least 4000/);
    expect(await parseError('--max-chars', 'lots')).toMatch(/a whole number of characters/);
  });
});
