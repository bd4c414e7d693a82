// `proxyaccount plan-file seal|unseal`: a saved plan encrypted for keeping between a CI's review
// and its apply (src/gitops/plan-seal.ts says why and how). The secret comes from an environment
// variable only; the output is written whole or not at all, readable by its owner alone.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';

interface PlanFileFlags {
  out: string;
  keyEnv: string;
}

/** Adds the `plan-file` command (with `seal` and `unseal`) to the program. */
export function register(program: Command): void {
  const planFile = program
    .command('plan-file')
    .description('Seal a saved plan for keeping between review and apply (it holds tokens and passwords in clear), or unseal it');
  const command = (name: 'seal' | 'unseal', description: string, argument: string): void => {
    planFile
      .command(name)
      .description(description)
      .argument(`<${argument}>`, argument === 'plan' ? 'the saved plan file' : 'the sealed plan file')
      .requiredOption('--out <file>', 'where to write the result (a new file, mode 0600; an existing one is replaced)')
      .option('--key-env <name>', 'the environment variable holding the secret (at least 32 characters)', 'PROXYACCOUNT_PLAN_KEY')
      .action(async (source: string, flags: PlanFileFlags) => {
        const seal = await import('../gitops/plan-seal');
        const secret = seal.planSecretFrom(process.env, flags.keyEnv);
        const input = readInput(source);
        writeWhole(flags.out, await (name === 'seal' ? seal.sealPlan(input, secret) : seal.unsealPlan(input, secret)));
        process.stderr.write(`proxyaccount: ${name}ed ${source} into ${flags.out}\n`);
      });
  };
  command('seal', 'Encrypt a saved plan (terraform plan -out) with AES-256-GCM under the secret', 'plan');
  command('unseal', 'Decrypt a sealed plan; refuses one that was altered or sealed with another secret', 'sealed');
}

function readInput(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * Writes through a new file beside the target, renamed over it: never a half-written plan. The
 * temporary name is random and made exclusively; only a file this call made is removed on failure.
 */
function writeWhole(file: string, data: Buffer): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let made = false;
  try {
    writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
    made = true;
    renameSync(temporary, file);
  } catch (err) {
    if (made) rmSync(temporary, { force: true });
    throw new Error(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
