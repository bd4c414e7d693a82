// Synthesizes the example app the way `cdktf synth` does: runs the `app` command of the
// repository's cdktf.json with CDKTF_OUTDIR (and the file's context) in the environment, then
// reads the manifest to find the stack Terraform will work in.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { RESOURCE_TYPES } from '../../resource-types';
import type { ProcessGroup } from './processes';

/** What the app synthesized. */
export interface SynthResult {
  /** The app command, as cdktf.json gives it. */
  readonly app: string;
  /** The stack's name and working directory (where cdk.tf.json is). */
  readonly stackName: string;
  readonly stackDir: string;
  /** Resource counts by type, in the order of the synthesized JSON. */
  readonly resourceCounts: ReadonlyMap<string, number>;
  /** Usernames of the sub-accounts the stack declares. */
  readonly subAccounts: readonly string[];
  /** What the app printed (warnings, say). */
  readonly output: string;
}

/** Options of {@link synthesize}. */
export interface SynthOptions {
  /** The directory of cdktf.json (the repository's root). */
  readonly projectDir: string;
  /** Where to synthesize (CDKTF_OUTDIR). */
  readonly outDir: string;
  /** The roster file (ROSTER_FILE), absolute. @default the app's own default */
  readonly rosterFile?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly processes: ProcessGroup;
}

interface CdktfJson {
  readonly app?: unknown;
  readonly context?: unknown;
}

interface Manifest {
  readonly stacks?: Record<string, { readonly workingDirectory?: string; readonly synthesizedStackPath?: string }>;
}

interface StackJson {
  readonly resource?: Record<string, Record<string, { readonly username?: unknown }>>;
}

/** Reads cdktf.json's `app` command; fails with a message saying what is missing. */
export function readAppCommand(projectDir: string): { app: string; context: Record<string, unknown> } {
  const file = path.join(projectDir, 'cdktf.json');
  if (!existsSync(file)) {
    throw new Error(`${file} not found: the demo runs from a checkout of the proxyaccount repository`);
  }
  let json: CdktfJson;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as CdktfJson;
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof json.app !== 'string' || json.app.trim() === '') throw new Error(`${file} has no "app" command`);
  const context = typeof json.context === 'object' && json.context !== null ? (json.context as Record<string, unknown>) : {};
  return { app: json.app, context };
}

/** Runs the app and describes the one stack it synthesized. */
export async function synthesize(opts: SynthOptions): Promise<SynthResult> {
  const { app, context } = readAppCommand(opts.projectDir);
  const env: NodeJS.ProcessEnv = {
    ...opts.env,
    CDKTF_OUTDIR: opts.outDir,
    CDKTF_CONTEXT_JSON: JSON.stringify(context),
    // The state goes beside the stack, inside the work dir, whatever the caller's environment says.
    ROSTER_STATE_FILE: 'terraform.tfstate',
  };
  if (opts.rosterFile !== undefined) env.ROSTER_FILE = opts.rosterFile;
  const result = await opts.processes.run(app, [], { cwd: opts.projectDir, env, shell: true });
  const output = `${result.stdout}${result.stderr}`.trim();
  if (result.code !== 0) {
    const ended = result.code === null ? `was stopped by ${result.signal ?? 'a signal'}` : `exited with ${result.code}`;
    throw new Error(`the app (${app}) ${ended}${output ? `:\n${output.replace(/^/gm, '  ')}` : ''}`);
  }

  const manifestFile = path.join(opts.outDir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error(`the app (${app}) wrote no ${manifestFile}: is CDKTF_OUTDIR honoured?`);
  const stacks = Object.entries((JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest).stacks ?? {});
  if (stacks.length !== 1) {
    throw new Error(`the demo drives one stack, but the app synthesized ${stacks.length} (${stacks.map(([n]) => n).join(', ') || 'none'})`);
  }
  const [stackName, stack] = stacks[0];
  const stackDir = path.join(opts.outDir, stack.workingDirectory ?? path.join('stacks', stackName));
  const stackFile = path.join(opts.outDir, stack.synthesizedStackPath ?? path.join('stacks', stackName, 'cdk.tf.json'));
  const json = JSON.parse(readFileSync(stackFile, 'utf8')) as StackJson;
  const resourceCounts = new Map<string, number>();
  const subAccounts: string[] = [];
  for (const [type, resources] of Object.entries(json.resource ?? {})) {
    resourceCounts.set(type, Object.keys(resources).length);
    if (RESOURCE_TYPES.get(type)?.shape !== 'account') continue;
    for (const r of Object.values(resources)) if (typeof r.username === 'string') subAccounts.push(r.username);
  }
  return { app, stackName, stackDir, resourceCounts, subAccounts, output };
}
