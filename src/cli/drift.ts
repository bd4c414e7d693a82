// `proxyaccount drift`: the scheduled drift run. A plan of the code (or a given plan) for drift of
// managed objects and changes not applied yet, then a scan of the live account for objects nobody
// manages.
// Exit codes: 0 no drift, 2 drift, 3 no drift found but the check was incomplete, 1 an error.
import { readlinkSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { DRIFT_MARKDOWN_LIMIT, MIN_DRIFT_MARKDOWN_LIMIT } from '../gitops/drift-render';

interface DriftFlags {
  dir?: string;
  plan?: string;
  provider?: string;
  format: 'markdown' | 'json';
  out?: string;
  jsonOut?: string;
  maxChars?: number;
  scan: boolean;
  terraform: string;
}

/**
 * A value option given once: commander keeps the last of a repeated option silently, and a second
 * `--dir` would scan one state while the user meant two (one scan reads one state).
 */
function once(flag: string, hint = '') {
  return (value: string, previous: string | undefined): string => {
    if (previous !== undefined) throw new InvalidArgumentError(`${flag} is given more than once; give it once${hint}.`);
    return value;
  };
}

/** `--max-chars`: a whole number, at least the Markdown's minimum. */
function maxChars(min: number) {
  return (value: string, previous: number | undefined): number => {
    if (previous !== undefined) throw new InvalidArgumentError('--max-chars is given more than once; give it once.');
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`it must be a whole number of characters, at least ${min}.`);
    return n;
  };
}

/**
 * Why an output file cannot be written, or undefined: its directory must exist (the report is
 * written after the plan and the scan, and a run that cannot write it loses what it found), and
 * the file must not be a directory.
 */
function unwritable(file: string): string | undefined {
  const dir = path.dirname(path.resolve(file));
  const code = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    if (code(err) === 'ENOENT') return `no such directory ${dir}`;
    if (code(err) !== 'ENOTDIR') return `its directory ${dir} cannot be read (${code(err)})`;
    isDir = false;
  }
  if (!isDir) return `${dir} is not a directory`;
  try {
    return statSync(file, { throwIfNoEntry: false })?.isDirectory() === true ? 'it is a directory' : undefined;
  } catch (err) {
    return `it cannot be written (${code(err)})`;
  }
}

/**
 * Where writing `file` lands: the real path of its directory, and of the file when it is a
 * symbolic link (a dangling one lands where it points, and the write creates that file).
 */
function landsAt(file: string, hops = 0): string {
  const abs = path.resolve(file);
  let at: string;
  try {
    at = path.join(realpathSync(path.dirname(abs)), path.basename(abs));
  } catch {
    return abs;
  }
  let link: string;
  try {
    link = readlinkSync(at);
  } catch {
    return at;
  }
  // Past Linux's own limit a write fails (ELOOP) anyway.
  return hops >= 40 ? at : landsAt(path.resolve(path.dirname(at), link), hops + 1);
}

/** Whether two paths name one file: the same place once links are followed, or one file under two names (a hard link). */
function sameFile(a: string, b: string): boolean {
  if (landsAt(a) === landsAt(b)) return true;
  const [x, y] = [statSync(a, { throwIfNoEntry: false }), statSync(b, { throwIfNoEntry: false })];
  return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
}

/**
 * `--out` and `--json-out`, refused before anything runs: each in a directory that exists, and
 * not one file for both (the second would overwrite the first), however the two paths spell it
 * (`./a` and `a`, a symbolic link, a hard link).
 */
function checkOutputs(flags: DriftFlags): void {
  for (const [flag, file] of [
    ['--out', flags.out],
    ['--json-out', flags.jsonOut],
  ] as const) {
    const why = file === undefined ? undefined : unwritable(file);
    if (why !== undefined) throw new InvalidArgumentError(`${flag} ${file}: ${why}`);
  }
  if (flags.jsonOut !== undefined && flags.out !== undefined && sameFile(flags.jsonOut, flags.out)) {
    throw new InvalidArgumentError(`--json-out and --out name the same file (${flags.out}); give the JSON report a file of its own.`);
  }
}

/** Adds the `drift` subcommand to the program. */
export function register(program: Command): void {
  program
    .command('drift')
    .description('Report drift of the managed objects, changes not applied, and every object of the account no resource manages (see docs/gitops.md)')
    .option(
      '--dir <dir>',
      'the Terraform working directory (default: ".")',
      once('--dir', ': one run reads one state; run drift once per working directory, and see docs/gitops.md for an account several states manage'),
    )
    .option('--plan <file>', 'use this plan (saved, or its `terraform show -json` output), made in --dir, instead of running terraform', once('--plan'))
    .option(
      '--provider <config>',
      'the provider configuration whose account PROXYACCOUNT_* names, e.g. proxyaccount.other; given, the other configurations count as checked by runs of their own (default: the default, unaliased one; the others then leave the check incomplete)',
      once('--provider', ': one run scans one account'),
    )
    .addOption(new Option('--format <format>', 'output format').choices(['markdown', 'json']).default('markdown'))
    .option('--out <file>', 'write the report to this file instead of standard output', once('--out'))
    .option('--json-out <file>', 'also write the JSON report, never cut, to this file (a cut Markdown report names it)', once('--json-out'))
    .option(
      '--max-chars <n>',
      `the most characters the Markdown report may have, at least ${MIN_DRIFT_MARKDOWN_LIMIT} (default: ${DRIFT_MARKDOWN_LIMIT}, GitHub's limit on an issue body)`,
      maxChars(MIN_DRIFT_MARKDOWN_LIMIT),
    )
    .option('--no-scan', 'skip the scan for objects no resource manages (needs no API credentials)')
    .option('--terraform <path>', 'the terraform executable', 'terraform')
    .action(async (flags: DriftFlags) => {
      checkOutputs(flags);
      const [{ runDrift }, render, { progressReporter }] = await Promise.all([
        import('../gitops/use-cases'),
        import('../gitops/drift-render'),
        import('../gitops/progress'),
      ]);
      const report = await runDrift({
        dir: flags.dir ?? '.',
        ...(flags.plan !== undefined ? { plan: flags.plan } : {}),
        ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
        scan: flags.scan,
        terraform: flags.terraform,
        progress: progressReporter(),
      });
      const json = render.driftJson(report);
      // The JSON first: the Markdown names it, so it is there when the Markdown is.
      if (flags.jsonOut !== undefined) writeFileSync(flags.jsonOut, json);
      const text =
        flags.format === 'json'
          ? json
          : render.driftMarkdown(report, flags.maxChars ?? DRIFT_MARKDOWN_LIMIT, flags.jsonOut !== undefined ? { jsonFile: flags.jsonOut } : {});
      if (flags.out !== undefined) writeFileSync(flags.out, text);
      else process.stdout.write(text);
      process.exitCode = report.drifted ? 2 : report.complete ? 0 : 3;
    });
}
