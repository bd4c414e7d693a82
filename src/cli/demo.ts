// `proxyaccount demo` (what `npm start` runs): the CDKTF example app from code to a converged
// account, step by step, on the embedded emulator or, plan-only unless allowed, a real account.
import type { Command } from 'commander';

interface DemoFlags {
  keep?: boolean;
  workDir?: string;
  roster?: string;
  allowDestructive?: boolean;
  emulator?: boolean;
  verbose?: boolean;
  terraform?: string;
}

/** Adds the `demo` subcommand to the program. */
export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'Run the example app end to end: emulator, synth, offline terraform init, plan, apply, read-back, ' +
        'out-of-band change and drift detection, converge, clean up (see docs/demo.md)',
    )
    .option('--keep', 'keep the work dir (stack, state, provider mirror) and print its path')
    .option('--work-dir <dir>', 'work in this new or empty directory instead of a temporary one (it is kept)')
    .option('--roster <file>', "roster file for the example app (YAML or JSON; default: ROSTER_FILE, else the example's roster.yaml)")
    .option('--allow-destructive', 'with PROXYACCOUNT_BASE_URL set: also apply, change out of band, re-apply and destroy (default: plan only)')
    .option('--emulator', 'use the embedded emulator even when PROXYACCOUNT_BASE_URL is set')
    .option('--verbose', "show terraform's whole output")
    .option('--terraform <path>', 'the terraform executable', 'terraform')
    .action(async (flags: DemoFlags) => {
      // Loaded here, not at the top, so that `proxyaccount --help` stays fast.
      const { runDemo } = await import('./demo/run');
      process.exitCode = await runDemo({
        keep: flags.keep === true,
        workDir: flags.workDir,
        roster: flags.roster,
        allowDestructive: flags.allowDestructive === true,
        emulator: flags.emulator === true,
        verbose: flags.verbose === true,
        terraform: flags.terraform,
      });
    });
}
