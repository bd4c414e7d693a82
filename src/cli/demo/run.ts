// `proxyaccount demo`, step by step: emulator (or a real account), synth, offline init, plan,
// apply, read back, out-of-band change and drift detection, converge, clean up. Whatever happens,
// the children are stopped, the emulator closed and a temporary work dir removed.
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { bundledProviderPath, installProvider, mirrorCliConfig, PROVIDER_NAMESPACE, PROVIDER_TYPE } from '../provider';
import { Interrupts, InterruptedError } from './interrupts';
import { changeOutOfBand, managedObjects } from './out-of-band';
import { driftMarkdown } from '../../gitops/drift-render';
import { type Plan, parsePlanJson } from '../../gitops/plan-json';
import { countChanges, describeChanges, describeDrift, effectiveChanges } from '../../gitops/plan-summary';
import { reviewPlan } from '../../gitops/review';
import { reviewMarkdown } from '../../gitops/review-render';
import { driftOfPlan } from '../../gitops/use-cases';

/** Markdown for the terminal: indented, without the HTML markers a CI job finds its comment by. */
function withoutMarkers(markdown: string): string[] {
  return markdown
    .trimEnd()
    .split('\n')
    .filter((l) => !l.startsWith('<!--'))
    .map((l) => `  ${l}`);
}
import { ProcessGroup } from './processes';
import { Progress } from './progress';
import { proxyStory } from './proxy-story';
import { formatReadBack, readBack } from './read-back';
import { readAppCommand, synthesize, type SynthResult } from './synth';
import { accountConfigured, accountTargetFromEnv, startEmulatorTarget, type DemoTarget } from './target';
import { checkTerraform, demoTerraform, type Terraform, TerraformError, terraformEnv } from './terraform';
import { WorkDir } from './work-dir';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Keep the work dir (stack, state, provider mirror) and print its path. @default false */
  readonly keep?: boolean;
  /** Work in this directory (new or empty) instead of a temporary one; it is kept. @default a temporary directory */
  readonly workDir?: string;
  /** The roster file for the example app. @default ROSTER_FILE, else the app's roster.yaml */
  readonly roster?: string;
  /** Against a real account: also apply, change out of band, re-apply and destroy. @default false (plan only) */
  readonly allowDestructive?: boolean;
  /** Use the embedded emulator even when PROXYACCOUNT_BASE_URL is set. @default false */
  readonly emulator?: boolean;
  /** Show terraform's whole output, indented. @default false */
  readonly verbose?: boolean;
  /** The terraform executable. @default 'terraform' */
  readonly terraform?: string;
  /** The environment read for PROXYACCOUNT_* and passed to the children. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The directory of cdktf.json. @default the package's root */
  readonly projectDir?: string;
  /** Receives the progress output. @default writes to stdout */
  readonly stdout?: (text: string) => void;
  /** Receives warnings and the failure message. @default writes to stderr */
  readonly stderr?: (text: string) => void;
}

/** Runs the demo; resolves to the exit code: 0 done, 1 a step failed, 130 interrupted. */
export function runDemo(options: DemoOptions = {}): Promise<number> {
  return new DemoRun(options).run();
}

const SKIPPED = 'skipped: it changes the real account (run with --allow-destructive)';

type LineSink = ((line: string) => void) | undefined;

/** One run of the demo, with everything its clean-up needs to know. */
class DemoRun {
  private readonly started = Date.now();
  private readonly env: NodeJS.ProcessEnv;
  private readonly progress: Progress;
  private readonly warn: (text: string) => void;
  private readonly processes = new ProcessGroup();
  private readonly interrupts: Interrupts;
  private readonly echo: LineSink;
  private target: DemoTarget | undefined;
  private work: WorkDir | undefined;
  private tf: Terraform | undefined;
  private applied = false;
  private destroyed = false;
  /** The last line of a successful run, printed after the clean-up. */
  private outcome = '';

  constructor(private readonly options: DemoOptions) {
    this.env = options.env ?? process.env;
    this.progress = new Progress(options.stdout ?? ((t) => process.stdout.write(t)));
    this.warn = options.stderr ?? ((t) => process.stderr.write(t));
    this.interrupts = new Interrupts(this.processes, (m) => this.warn(`${m}\n`));
    this.echo = options.verbose ? (line) => this.progress.line(`| ${line}`) : undefined;
  }

  async run(): Promise<number> {
    let code = 0;
    try {
      await this.steps();
    } catch (err) {
      code = this.interrupts.interrupted || err instanceof InterruptedError ? 130 : 1;
      this.reportFailure(err, code === 130);
      if (code === 1) await this.undoOnAccount();
    } finally {
      this.interrupts.dispose();
      this.processes.kill();
      this.processes.dispose();
      if (!(await this.cleanUp()) && code === 0) code = 1;
    }
    if (code === 0) this.progress.plain(`\nDone in ${this.elapsed()}: ${this.outcome}.`);
    return code;
  }

  private async steps(): Promise<void> {
    const { progress, interrupts } = this;
    // Prerequisites: everything that can be checked before anything starts.
    const projectDir = this.options.projectDir ?? path.resolve(__dirname, '..', '..', '..');
    const { app } = readAppCommand(projectDir);
    const roster = this.options.roster ?? (this.env.ROSTER_FILE || undefined);
    const rosterFile = roster === undefined ? undefined : path.resolve(roster);
    if (rosterFile !== undefined && !existsSync(rosterFile)) throw new Error(`roster file ${rosterFile} not found`);
    if (!existsSync(bundledProviderPath())) {
      throw new Error(`the provider is not built (${bundledProviderPath()} is missing): run \`npm run build\` first`);
    }
    const tfVersion = await checkTerraform(this.terraformBin, this.env);
    const onAccount = !this.options.emulator && accountConfigured(this.env);
    const destructive = !onAccount || this.options.allowDestructive === true;
    const work = WorkDir.open(this.options.workDir, this.options.keep === true);
    this.work = work;

    progress.plain(
      `proxyaccount demo: the CDKTF example app from code to a converged account, on ${onAccount ? 'the account of PROXYACCOUNT_BASE_URL' : 'the embedded emulator'}`,
    );
    progress.plain(`terraform ${tfVersion}; app \`${app}\` (cdktf.json); work dir ${work.root}`);
    if (!destructive) progress.plain('Plan only: nothing on the account is changed (--allow-destructive also applies, changes and destroys).');

    const target = await this.connect(onAccount);
    interrupts.check();
    const synth = await this.synth(projectDir, app, rosterFile);
    interrupts.check();
    const tf = await this.init(synth, target);
    interrupts.check();
    const plan = await this.plan(tf);
    interrupts.check();

    progress.step(5);
    if (!destructive) progress.line(SKIPPED);
    else if (effectiveChanges(plan).length === 0) progress.line('nothing to apply');
    else {
      progress.command(['terraform apply plan.tfplan']);
      this.applied = true;
      if (target.kind === 'account') work.mustKeep('its state is the only record of what the demo created on the account');
      await this.apply('plan.tfplan');
    }
    interrupts.check();

    await this.readBack(target, synth);
    interrupts.check();

    if (!destructive) {
      progress.step(7);
      progress.line(SKIPPED);
      progress.step(8);
      progress.line(SKIPPED);
      this.outcome = 'plan only, nothing on the account was changed';
      return;
    }
    await this.drift(tf, target, plan);
    interrupts.check();
    await this.converge(tf);
    this.outcome = 'planned, applied, drift detected and converged, destroyed';
  }

  /** Step 1: the emulator, or a first read on the real account to prove the settings. */
  private async connect(onAccount: boolean): Promise<DemoTarget> {
    if (onAccount) {
      this.progress.step(1, 'Connect to the account');
      this.target = accountTargetFromEnv(this.env);
      this.progress.line(this.target.description);
      await this.target.openStore(this.interrupts.signal).account(null).ips.list();
      this.progress.line('credentials accepted');
    } else {
      this.progress.step(1);
      this.target = await startEmulatorTarget(this.requireWork().root);
      this.progress.line(this.target.description);
    }
    return this.target;
  }

  /** Step 2: cdktf.json's app, as `cdktf synth` runs it. */
  private async synth(projectDir: string, app: string, rosterFile: string | undefined): Promise<SynthResult> {
    this.progress.step(2);
    const outDir = this.requireWork().path('cdktf.out');
    this.progress.command([`CDKTF_OUTDIR=${outDir}`, ...(rosterFile ? [`ROSTER_FILE=${rosterFile}`] : []), app]);
    const appEnv = Object.fromEntries(Object.entries(this.env).filter(([k]) => !k.startsWith('PROXYACCOUNT_')));
    const synth = await synthesize({ projectDir, outDir, rosterFile, env: appEnv, processes: this.processes });
    if (synth.output) this.progress.lines(synth.output.split('\n'));
    const total = [...synth.resourceCounts.values()].reduce((a, b) => a + b, 0);
    const counts = [...synth.resourceCounts].map(([type, n]) => `${n} ${type}`).join(', ');
    this.progress.line(`stack "${synth.stackName}" from ${rosterFile ?? "the app's roster.yaml"}: ${total} resources (${counts})`);
    this.progress.line(`sub-accounts: ${synth.subAccounts.join(', ') || 'none'}`);
    return synth;
  }

  /** Step 3: the provider into a filesystem mirror of the work dir, and a CLI config that uses only it. */
  private async init(synth: SynthResult, target: DemoTarget): Promise<Terraform> {
    this.progress.step(3);
    const work = this.requireWork();
    const mirror = work.path('mirror');
    const installed = installProvider(mirror);
    const cliConfig = work.path('terraform.rc');
    writeFileSync(cliConfig, mirrorCliConfig(mirror));
    const env = terraformEnv(this.env, cliConfig, target.providerEnv);
    const tf = demoTerraform({ bin: this.terraformBin, cwd: synth.stackDir, env, processes: this.processes });
    this.tf = tf;
    this.progress.line(`${PROVIDER_NAMESPACE}/${PROVIDER_TYPE} ${installed.version} (${installed.platform}) copied into the mirror ${mirror}`);
    this.progress.command([`TF_CLI_CONFIG_FILE=${cliConfig}`, 'terraform init']);
    const init = await tf.run(['init', '-input=false', '-no-color'], [0], this.echo);
    const done = /Installed (proxyaccount\/proxyaccount v[0-9.]+)/.exec(init.stdout);
    this.progress.line(`${done ? `installed ${done[1]}` : 'initialized'} from the mirror, without network; .terraform.lock.hcl written`);
    return tf;
  }

  /** Step 4: a saved plan, shown one line per resource. */
  private async plan(tf: Terraform): Promise<Plan> {
    this.progress.step(4);
    this.progress.command(['terraform plan -out=plan.tfplan']);
    const run = await tf.run(['plan', '-input=false', '-no-color', '-out=plan.tfplan'], [0], this.echo);
    const plan = parsePlanJson(await tf.showPlan('plan.tfplan'));
    this.progress.lines(describeChanges(plan));
    this.progress.line(planLine(run.stdout, plan));
    this.progress.command(['proxyaccount review plan.tfplan']);
    this.progress.lines(withoutMarkers(reviewMarkdown(reviewPlan(plan))));
    return plan;
  }

  /** `terraform apply PLANFILE`: one line per object (every line with --verbose), then the summary. */
  private async apply(planFile: string): Promise<void> {
    const tf = this.requireTerraform();
    const perObject = (line: string): void => {
      if (/: (Creation|Modifications|Destruction) complete after /.test(line)) this.progress.line(line);
    };
    const result = await tf.run(['apply', '-input=false', '-no-color', planFile], [0], this.echo ?? perObject);
    const summary = /Apply complete![^\n]*/.exec(result.stdout);
    if (summary) this.progress.line(summary[0]);
  }

  /** Step 6: the roster's sub-accounts as the API reports them. */
  private async readBack(target: DemoTarget, synth: SynthResult): Promise<void> {
    this.progress.step(6);
    const reports = await readBack(target.openStore(this.interrupts.signal), synth.subAccounts, { listTokens: target.basicAuth });
    this.progress.lines(formatReadBack(reports));
    const missing = reports.filter((r) => !r.exists).map((r) => r.username);
    if (this.applied && missing.length > 0) throw new Error(`after the apply, the API does not know ${missing.join(', ')}`);
    this.progress.line('(token values are never shown: they are sensitive outputs of the stack)');
  }

  /** Step 7: change the account behind Terraform's back; a detailed-exitcode plan must exit 2. */
  private async drift(tf: Terraform, target: DemoTarget, plan: Plan): Promise<void> {
    this.progress.step(7);
    const changes = await changeOutOfBand(target.openStore(this.interrupts.signal), managedObjects(plan), { canManageTokens: target.basicAuth });
    for (const c of changes) this.progress.line(`a colleague, in the dashboard: ${c}`);
    this.interrupts.check();
    this.progress.command(['terraform plan -detailed-exitcode -out=drift.tfplan']);
    const args = ['plan', '-input=false', '-no-color', '-detailed-exitcode', '-out=drift.tfplan'];
    const run = await tf.run(args, [0, 2], this.echo);
    if (run.code !== 2) throw new TerraformError(args, run, 'drift NOT detected after the out-of-band changes');
    const json = await tf.showPlan('drift.tfplan');
    const drift = parsePlanJson(json);
    this.progress.line('exit code 2: drift detected. Changed outside Terraform:');
    this.progress.lines(describeDrift(drift).map((l) => `  ${l}`));
    this.progress.line('To put back:');
    this.progress.lines(describeChanges(drift).map((l) => `  ${l}`));
    this.progress.line(planLine(run.stdout, drift));
    // The scheduled job's view of the same moment: drift of managed objects, and what nobody manages.
    this.progress.command(['proxyaccount drift --plan drift.tfplan']);
    // The plan's JSON says which provider configuration manages each resource: without it, the scan
    // could not confirm its account. The demo made that plan itself, in the environment the scan
    // reads, so a configuration that takes its account from the environment is confirmed.
    const report = await driftOfPlan(drift, { store: target.openStore(this.interrupts.signal), scan: target.basicAuth, json, plannedHere: true });
    this.progress.lines(withoutMarkers(driftMarkdown(report)));
  }

  /** Step 8: apply the drift plan, check that a new plan is empty, destroy. */
  private async converge(tf: Terraform): Promise<void> {
    this.progress.step(8);
    this.progress.command(['terraform apply drift.tfplan']);
    await this.apply('drift.tfplan');
    this.interrupts.check();
    this.progress.command(['terraform plan -detailed-exitcode']);
    const args = ['plan', '-input=false', '-no-color', '-detailed-exitcode'];
    const run = await tf.run(args, [0, 2], this.echo);
    if (run.code !== 0) throw new TerraformError(args, run, 'not converged: the plan after the re-apply still has changes');
    this.progress.line('exit code 0: converged, the account matches the code again');
    this.interrupts.check();
    await proxyStory({
      target: this.target!,
      tf,
      progress: this.progress,
      processes: this.processes,
      env: this.env,
      options: this.options,
      work: this.requireWork(),
      apply: (f) => this.apply(f),
      signal: this.interrupts.signal,
    });
    await this.destroy();
  }

  private async destroy(): Promise<void> {
    const tf = this.requireTerraform();
    this.progress.command(['terraform destroy -auto-approve']);
    const result = await tf.run(['destroy', '-input=false', '-no-color', '-auto-approve'], [0], this.echo);
    const summary = /Destroy complete![^\n]*/.exec(result.stdout);
    this.progress.line(summary ? summary[0] : 'destroyed');
    this.destroyed = true;
    this.work?.release();
  }

  private reportFailure(err: unknown, interrupted: boolean): void {
    const where = this.progress.where();
    if (interrupted) {
      this.warn(`\nproxyaccount demo: interrupted during ${where}\n`);
      return;
    }
    this.warn(`\nproxyaccount demo: failed at ${where}: ${err instanceof Error ? err.message : String(err)}\n`);
    if (err instanceof TerraformError && err.outputTail) this.warn(indent(err.outputTail, 2));
    const log = this.target?.logTail?.() ?? [];
    if (log.length > 0) this.warn(`  the emulator's last requests:\n${indent(log.join('\n'), 4)}`);
  }

  /** After a failure on a real account, destroys what the demo created (not after an interrupt). */
  private async undoOnAccount(): Promise<void> {
    if (this.target?.kind !== 'account' || !this.applied || this.destroyed || !this.tf) return;
    this.progress.line('destroying what the demo created on the account');
    try {
      await this.destroy();
    } catch (err) {
      this.warn(`proxyaccount demo: the clean-up destroy failed too: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }

  /** Closes the target and removes (or keeps) the work dir; false when something could not be closed. */
  private async cleanUp(): Promise<boolean> {
    let ok = true;
    if (this.target) {
      try {
        await this.target.close();
        if (this.target.kind === 'emulator') this.progress.line('emulator stopped');
      } catch (err) {
        ok = false;
        this.warn(`proxyaccount demo: could not stop cleanly: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
    const work = this.work;
    if (work) {
      const reason = work.keptBecause;
      if (work.finish()) {
        this.progress.line(`work dir removed`);
      } else {
        this.progress.line(`work dir kept (${reason ?? 'kept'}): ${work.root}`);
        if (this.tf && this.target?.kind === 'account' && this.applied && !this.destroyed) {
          this.progress.line(`to destroy what it created: cd ${this.tf.cwd} && TF_CLI_CONFIG_FILE=${work.path('terraform.rc')} terraform destroy`);
        }
      }
    }
    return ok;
  }

  /** The terraform executable; a relative path is resolved now, as terraform runs in the stack's directory. */
  private get terraformBin(): string {
    const bin = this.options.terraform ?? 'terraform';
    return bin.includes(path.sep) ? path.resolve(bin) : bin;
  }

  private requireWork(): WorkDir {
    if (!this.work) throw new Error('internal: no work dir yet');
    return this.work;
  }

  private requireTerraform(): Terraform {
    if (!this.tf) throw new Error('internal: terraform is not initialized yet');
    return this.tf;
  }

  private elapsed(): string {
    return `${((Date.now() - this.started) / 1000).toFixed(1)} s`;
  }
}

/** Terraform's own summary line, or the same counts computed from the plan. */
function planLine(stdout: string, plan: Plan): string {
  const m = /Plan: [^\n]*|No changes\.[^\n]*/.exec(stdout);
  if (m) return m[0];
  const c = countChanges(plan);
  return `Plan: ${c.add} to add, ${c.change} to change, ${c.destroy} to destroy.`;
}

function indent(text: string, spaces: number): string {
  return `${text
    .split('\n')
    .map((l) => `${' '.repeat(spaces)}${l}`.trimEnd())
    .join('\n')}\n`;
}
