// `proxyaccount review <plan>`: a saved plan as a pull-request comment a reviewer can trust.
// Exit codes: 0 no changes, 2 changes, 3 a change named by --fail-on, 1 an error.
import { writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';

interface ReviewFlags {
  format: 'markdown' | 'json';
  out?: string;
  dir?: string;
  failOn?: 'destroy' | 'replace' | 'attention';
  terraform: string;
}

/** Adds the `review` subcommand to the program. */
export function register(program: Command): void {
  program
    .command('review')
    .description('Summarize a saved plan per account, risky changes first, for a pull request (see docs/gitops.md)')
    .argument('<plan>', 'a saved plan file (terraform plan -out), a file of `terraform show -json` output, or - for that JSON on standard input')
    .addOption(new Option('--format <format>', 'output format').choices(['markdown', 'json']).default('markdown'))
    .option('--out <file>', 'write the review to this file instead of standard output')
    .option('--dir <dir>', "the plan's working directory for `terraform show` (default: the plan file's directory)")
    .addOption(new Option('--fail-on <what>', 'exit 3 when the plan holds such a change').choices(['destroy', 'replace', 'attention']))
    .option('--terraform <path>', 'the terraform executable', 'terraform')
    .action(async (source: string, flags: ReviewFlags) => {
      const [{ reviewPlanSource }, review, render] = await Promise.all([
        import('../gitops/use-cases'),
        import('../gitops/review'),
        import('../gitops/review-render'),
      ]);
      const r = await reviewPlanSource(source, { ...(flags.dir !== undefined ? { dir: flags.dir } : {}), terraform: flags.terraform });
      const text = flags.format === 'json' ? render.reviewJson(r) : render.reviewMarkdown(r);
      if (flags.out !== undefined) writeFileSync(flags.out, text);
      else process.stdout.write(text);
      process.exitCode = flags.failOn !== undefined && review.failsOn(r, flags.failOn) ? 3 : review.hasChanges(r) ? 2 : 0;
    });
}
