// `proxyaccount export`: adopt a live account into code. Writes resources and import blocks to
// --out; the API cannot list sub-accounts, so they are named with --sub-account or a file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Command, Option } from 'commander';

interface ExportFlags {
  format: 'hcl' | 'roster';
  out: string;
  subAccount: string[];
  subAccountsFile?: string;
  lists: 'per-entry' | 'authoritative';
}

/** Reads a sub-accounts file: one username per line; blank lines and `#` comments are skipped. */
export function readSubAccountsFile(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '');
}

/** Adds the `export` subcommand to the program. */
export function register(program: Command): void {
  program
    .command('export')
    .description('Write a live account as configuration whose first plan adopts it: HCL with import blocks, or a roster file (see docs/gitops.md)')
    .addOption(
      new Option('--format <format>', 'hcl: account.tf and imports.tf; roster: roster.yaml for the AccountRoster construct')
        .choices(['hcl', 'roster'])
        .default('hcl'),
    )
    .requiredOption('--out <dir>', 'directory to write to (required; created if needed)')
    .option('--sub-account <name>', 'a sub-account to include (repeatable; the API cannot list them)', (v: string, prev: string[]) => [...prev, v], [])
    .option('--sub-accounts-file <file>', 'a file of sub-account usernames, one per line')
    .addOption(
      new Option('--lists <style>', 'per-entry resources or one authoritative list per account').choices(['per-entry', 'authoritative']).default('per-entry'),
    )
    .action(async (flags: ExportFlags) => {
      const [{ exportAccount }, { toHcl }, { toRoster }] = await Promise.all([
        import('../gitops/use-cases'),
        import('../gitops/export'),
        import('../gitops/export-roster'),
      ]);
      const names = [...flags.subAccount, ...(flags.subAccountsFile === undefined ? [] : readSubAccountsFile(flags.subAccountsFile))];
      const live = await exportAccount(names, { onStep: (what) => process.stderr.write(`proxyaccount: reading ${what}\n`) });
      // Rendered before anything is written: what the readers would refuse stops the command here.
      if (flags.format === 'roster') {
        const roster = toRoster(live, flags.lists);
        const file = path.join(flags.out, 'roster.yaml');
        mkdirSync(flags.out, { recursive: true });
        writeFileSync(file, roster['roster.yaml']);
        process.stderr.write(`proxyaccount: wrote ${file} (the parent and ${roster.members} of ${live.accounts.length - 1} sub-accounts, marked for import)\n`);
        for (const line of roster.skipped) process.stderr.write(`proxyaccount: warning: not in the roster: ${line}\n`);
      } else {
        const files = toHcl(live, flags.lists);
        mkdirSync(flags.out, { recursive: true });
        for (const name of ['account.tf', 'imports.tf'] as const) writeFileSync(path.join(flags.out, name), files[name]);
        const count = (files['imports.tf'].match(/^import \{/gm) ?? []).length;
        process.stderr.write(`proxyaccount: wrote ${count} resources with import blocks to ${path.join(flags.out, 'account.tf')} and imports.tf\n`);
        for (const line of files.skipped) process.stderr.write(`proxyaccount: warning: not exported: ${line}\n`);
      }
    });
}
