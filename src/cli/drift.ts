// `proxyaccount drift`: the scheduled drift run. A refresh-only plan (or a given plan) for drift
// of managed objects, then a scan of the live account for objects nobody manages.
// Exit codes: 0 no drift, 2 drift, 1 an error.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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
      const [{ loadPlan }, { parsePlanJson }, drift, render, { terraform }, { progressReporter }] = await Promise.all([
        import('../gitops/plan-input'),
        import('../gitops/plan-json'),
        import('../gitops/drift'),
        import('../gitops/drift-render'),
        import('../gitops/terraform'),
        import('../gitops/progress'),
      ]);
      const progress = progressReporter();
      let json: unknown;
      if (flags.plan !== undefined) {
        json = await loadPlan(flags.plan, { dir: flags.dir, terraform: flags.terraform });
      } else {
        const opts = { bin: flags.terraform };
        if (!existsSync(path.join(flags.dir, '.terraform'))) {
          progress.note(`terraform init in ${flags.dir}`);
          await terraform(['init', '-input=false', '-no-color'], flags.dir, opts);
        }
        const tmp = mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-drift-'));
        try {
          progress.note('terraform plan -refresh-only');
          await terraform(['plan', '-refresh-only', '-input=false', '-no-color', `-out=${path.join(tmp, 'drift.tfplan')}`], flags.dir, opts);
          json = JSON.parse((await terraform(['show', '-json', '-no-color', path.join(tmp, 'drift.tfplan')], flags.dir, opts)).stdout) as unknown;
        } finally {
          rmSync(tmp, { recursive: true, force: true });
        }
      }
      const plan = parsePlanJson(json);
      const { changed, deleted } = drift.planDrift(plan);
      let scan: Awaited<ReturnType<typeof drift.scanUnmanaged>> = { unmanaged: [], expired: [], leftovers: [] };
      if (flags.scan) {
        const { storeFromEnv } = await import('../gitops/credentials');
        const store = storeFromEnv();
        try {
          scan = await drift.scanUnmanaged(store, plan.priorState, progress);
        } finally {
          await store.close();
        }
      }
      const report = drift.driftReport({ changed, deleted, unmanaged: scan.unmanaged, expired: scan.expired, leftovers: scan.leftovers, scanned: flags.scan });
      const text = flags.format === 'json' ? render.driftJson(report) : render.driftMarkdown(report);
      if (flags.out !== undefined) writeFileSync(flags.out, text);
      else process.stdout.write(text);
      process.exitCode = report.drifted ? 2 : 0;
    });
}
