// `proxyaccount drift`: the scheduled drift run. A refresh-only plan (or a given plan) for drift
// of managed objects, then a scan of the live account for objects nobody manages.
// Exit codes: 0 no drift, 2 drift, 1 an error.
import { writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';

interface DriftFlags {
  dir: string;
  plan?: string;
  format: 'markdown' | 'json';
  out?: string;
  scan: boolean;
  terraform: string;
}

/** Adds the `drift` subcommand to the program. */
export function register(program: Command): void {
  program
    .command('drift')
    .description('Report drift of the managed objects and every object of the account no resource manages (see docs/gitops.md)')
    .option('--dir <dir>', 'the Terraform working directory', '.')
    .option('--plan <file>', 'use this refresh-only plan (saved, or its `terraform show -json` output) instead of running terraform')
    .addOption(new Option('--format <format>', 'output format').choices(['markdown', 'json']).default('markdown'))
    .option('--out <file>', 'write the report to this file instead of standard output')
    .option('--no-scan', 'skip the scan for objects no resource manages (needs no API credentials)')
    .option('--terraform <path>', 'the terraform executable', 'terraform')
    .action(async (flags: DriftFlags) => {
      const [{ runDrift }, render, { progressReporter }] = await Promise.all([
        import('../gitops/use-cases'),
        import('../gitops/drift-render'),
        import('../gitops/progress'),
      ]);
      const report = await runDrift({
        dir: flags.dir,
        ...(flags.plan !== undefined ? { plan: flags.plan } : {}),
        scan: flags.scan,
        terraform: flags.terraform,
        progress: progressReporter(),
      });
      const text = flags.format === 'json' ? render.driftJson(report) : render.driftMarkdown(report);
      if (flags.out !== undefined) writeFileSync(flags.out, text);
      else process.stdout.write(text);
      process.exitCode = report.drifted ? 2 : 0;
    });
}
