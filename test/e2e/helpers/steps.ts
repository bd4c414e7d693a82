// The steps every end-to-end resource test takes, with their checks: no-change plans, plans
// that must show given changes, and the two ways of importing (CLI and `import {}` blocks with
// generated configuration).
import type { TerraformResult, Workspace } from './terraform';

/** `terraform plan -detailed-exitcode` must report no changes (exit 0). */
export async function expectNoChanges(ws: Workspace): Promise<TerraformResult> {
  const res = await ws.planExitCode();
  if (res.code !== 0) throw new Error(`expected a plan without changes, got exit ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return res;
}

/** `terraform plan -detailed-exitcode` must report changes (exit 2) and print every pattern. */
export async function expectChanges(ws: Workspace, ...patterns: RegExp[]): Promise<TerraformResult> {
  const res = await ws.planExitCode();
  if (res.code !== 2) throw new Error(`expected a plan with changes (exit 2), got exit ${res.code}:\n${res.stdout}\n${res.stderr}`);
  for (const p of patterns) {
    if (!p.test(res.stdout)) throw new Error(`the plan does not show ${p}:\n${res.stdout}`);
  }
  return res;
}

/** The "Plan: N to add, …" counts of a plan's output. */
export function planCounts(stdout: string): { import: number; add: number; change: number; destroy: number } | undefined {
  const m = /Plan: (?:(\d+) to import, )?(\d+) to add, (\d+) to change, (\d+) to destroy/.exec(stdout);
  if (m === null) return undefined;
  return { import: Number(m[1] ?? 0), add: Number(m[2]), change: Number(m[3]), destroy: Number(m[4]) };
}

/** Options of {@link importWithBlock}. */
export interface ImportBlockOptions {
  /** Resource address, e.g. `proxyaccount_sub_account.a`. */
  readonly address: string;
  /** Import ID. */
  readonly id: string;
  /** Blocks of the configuration other than the imported resource (kept while importing). */
  readonly otherBlocks?: readonly string[];
}

/**
 * Forgets the resource, imports it again with an `import {}` block and
 * `terraform plan -generate-config-out=generated.tf`, checks that the plan imports exactly one
 * object and changes nothing, applies it, and checks that the next plan is empty. Leaves the
 * generated configuration in place (the caller restores its own); returns its text.
 */
export async function importWithBlock(ws: Workspace, opts: ImportBlockOptions): Promise<string> {
  await ws.stateRm(opts.address);
  ws.remove('generated.tf');
  ws.config(...(opts.otherBlocks ?? []), `import {\n  to = ${opts.address}\n  id = ${JSON.stringify(opts.id)}\n}\n`);
  const plan = await ws.planExitCode(['-generate-config-out=generated.tf']);
  expectCounts(plan.stdout, { import: 1, add: 0, change: 0, destroy: 0 });
  const generated = ws.read('generated.tf');
  const apply = await ws.apply();
  if (!/Resources: 1 imported, 0 added, 0 changed, 0 destroyed/.test(apply.stdout)) {
    throw new Error(`applying the generated configuration did more than import:\n${apply.stdout}`);
  }
  await expectNoChanges(ws);
  return generated;
}

/** Forgets the resource and imports it with `terraform import`. */
export async function importWithCli(ws: Workspace, address: string, id: string): Promise<TerraformResult> {
  await ws.stateRm(address);
  const res = await ws.importCli(address, id);
  if (!/Import successful/.test(res.stdout)) throw new Error(`terraform import did not report success:\n${res.stdout}`);
  return res;
}

function expectCounts(stdout: string, want: NonNullable<ReturnType<typeof planCounts>>): void {
  const got = planCounts(stdout);
  if (got === undefined || JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`expected plan counts ${JSON.stringify(want)}, got ${JSON.stringify(got)}:\n${stdout}`);
  }
}

/** The attributes Terraform wrote for one resource in a generated configuration (`name = value` lines). */
export function generatedAttributes(generated: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of generated.split('\n')) {
    const m = /^\s+([a-z_]+)\s+=\s+(.*?)\s*$/.exec(line);
    if (m !== null) out[m[1]] = m[2];
  }
  return out;
}
