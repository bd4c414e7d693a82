// Runs the terraform CLI for review and drift: one command at a time in the user's working
// directory, with the user's own environment (their CLI configuration, mirrors, credentials),
// output kept for the error message.
import { execFile } from 'node:child_process';

/** Runs `terraform ARGS` in `dir`; resolves with stdout, rejects with what terraform said. */
export function terraform(
  args: readonly string[],
  dir: string,
  opts: { bin?: string; env?: NodeJS.ProcessEnv; okCodes?: readonly number[] } = {},
): Promise<{ stdout: string; code: number }> {
  const bin = opts.bin ?? 'terraform';
  const ok = opts.okCodes ?? [0];
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      [`-chdir=${dir}`, ...args],
      { env: { ...(opts.env ?? process.env), TF_IN_AUTOMATION: '1', TF_INPUT: '0' }, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1;
        if (err !== null && (err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new Error(`${bin} was not found on PATH: install Terraform 1.5 or later`));
        } else if (!ok.includes(code)) {
          const said = `${String(stderr).trim() || String(stdout).trim()}`.split('\n').slice(-15).join('\n');
          reject(new Error(`\`terraform ${args.join(' ')}\` in ${dir} exited ${code}:\n${said}`));
        } else {
          resolve({ stdout: String(stdout), code });
        }
      },
    );
  });
}

/** `terraform show -json PLANFILE`, parsed. */
export async function showPlanJson(planFile: string, dir: string, bin?: string): Promise<unknown> {
  const { stdout } = await terraform(['show', '-json', '-no-color', planFile], dir, { bin });
  return JSON.parse(stdout) as unknown;
}
