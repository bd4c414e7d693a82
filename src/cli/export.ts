// `proxyaccount export`: adopt a live account into code. Writes resources and import blocks to
// --out; the API cannot list sub-accounts, so they are named with --sub-account or a file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Command, Option } from 'commander';

interface ExportFlags {
  format: 'hcl';
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
    .description('Write a live account as Terraform configuration with import blocks, so a plan adopts it (see docs/gitops.md)')
    .addOption(new Option('--format <format>', 'output format').choices(['hcl']).default('hcl'))
    .requiredOption('--out <dir>', 'directory to write account.tf and imports.tf to (created if needed)')
    .option('--sub-account <name>', 'a sub-account to include (repeatable; the API cannot list them)', (v: string, prev: string[]) => [...prev, v], [])
    .option('--sub-accounts-file <file>', 'a file of sub-account usernames, one per line')
    .addOption(
      new Option('--lists <style>', 'per-entry resources or one authoritative list per account').choices(['per-entry', 'authoritative']).default('per-entry'),
    )
    .action(async (flags: ExportFlags) => {
      const [{ storeFromEnv }, exporter] = await Promise.all([import('../gitops/credentials'), import('../gitops/export')]);
      const names = [...flags.subAccount, ...(flags.subAccountsFile === undefined ? [] : readSubAccountsFile(flags.subAccountsFile))];
      const unique = [...new Set(names)];
      const store = storeFromEnv();
      try {
        const live = await exporter.readAccount(store, unique, (what) => process.stderr.write(`proxyaccount: reading ${what}\n`));
        const files = exporter.toHcl(live, flags.lists);
        mkdirSync(flags.out, { recursive: true });
        for (const [name, text] of Object.entries(files)) writeFileSync(path.join(flags.out, name), text);
        const count = (files['imports.tf'].match(/^import \{/gm) ?? []).length;
        process.stderr.write(`proxyaccount: wrote ${count} resources with import blocks to ${path.join(flags.out, 'account.tf')} and imports.tf\n`);
      } finally {
        await store.close();
      }
    });
}
