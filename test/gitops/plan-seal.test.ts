// A saved plan sealed for keeping between a CI's review and its apply: only the same secret opens
// it, any change to the sealed file is refused, and the CLI writes the result whole, mode 0600,
// with the secret taken from the environment and never printed.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main';
import { MIN_SECRET_LENGTH, PlanSealError, planSecretFrom, sealPlan, unsealPlan } from '../../src/gitops/plan-seal';

const SECRET = 'Zq3rV9yTb0nWc4mKp8sLd2fHj6gXa1eR5uIo7tYw';
/** A stand-in for a saved plan: a zip's first bytes and a state with a token in clear. */
const PLAN = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('{"token":"pxa_InTheStateOnly_123","password":"alice-Secret-9"}')]);

describe('sealPlan and unsealPlan', () => {
  it('give back the plan with the same secret, and hide its content', async () => {
    const sealed = await sealPlan(PLAN, SECRET);
    expect(sealed.includes(Buffer.from('pxa_InTheStateOnly_123'))).toBe(false);
    expect(sealed.includes(Buffer.from('alice-Secret-9'))).toBe(false);
    expect((await unsealPlan(sealed, SECRET)).equals(PLAN)).toBe(true);
    // A new salt and IV every time: sealing twice gives two different files.
    expect((await sealPlan(PLAN, SECRET)).equals(sealed)).toBe(false);
  });

  it('refuse another secret', async () => {
    const sealed = await sealPlan(PLAN, SECRET);
    await expect(unsealPlan(sealed, `${SECRET}x`)).rejects.toThrow(
      new PlanSealError('the sealed plan does not open with this secret: it was sealed with another one, or altered since'),
    );
  });

  it('refuse a sealed plan with any byte changed, or cut short', async () => {
    const sealed = await sealPlan(PLAN, SECRET);
    // The first and last byte of the salt, the IV, the tag and the encrypted plan, and one inside it.
    const magic = sealed.indexOf(0x0a) + 1;
    const header = magic + 16 + 12 + 16;
    const positions = [magic, magic + 15, magic + 16, magic + 27, magic + 28, header - 1, header, header + 20, sealed.length - 1];
    for (const i of positions) {
      const altered = Buffer.from(sealed);
      altered[i] = altered[i]! ^ 0x01;
      await expect(unsealPlan(altered, SECRET)).rejects.toThrow(PlanSealError);
    }
    await expect(unsealPlan(sealed.subarray(0, sealed.length - 1), SECRET)).rejects.toThrow(/does not open/);
    await expect(unsealPlan(sealed.subarray(0, magic + 10), SECRET)).rejects.toThrow(/not a sealed plan/);
    const otherFormat = Buffer.from(sealed);
    otherFormat[magic - 2] = 0x32; // "v1" → "v2"
    await expect(unsealPlan(otherFormat, SECRET)).rejects.toThrow(/not a sealed plan/);
  });

  it('seal only a saved plan, and only once', async () => {
    await expect(sealPlan(Buffer.from('{"format_version":"1.2"}'), SECRET)).rejects.toThrow(/not a saved plan \(terraform plan -out writes a zip file\)/);
    await expect(sealPlan(await sealPlan(PLAN, SECRET), SECRET)).rejects.toThrow(/sealed already/);
  });
});

describe('planSecretFrom', () => {
  it('takes a secret of at least 32 characters from the variable named', () => {
    expect(planSecretFrom({ PROXYACCOUNT_PLAN_KEY: SECRET })).toBe(SECRET);
    expect(planSecretFrom({ OTHER: SECRET }, 'OTHER')).toBe(SECRET);
  });

  it('refuses a missing, empty or short one, saying how long it is, never what it is', () => {
    expect(() => planSecretFrom({})).toThrow(/PROXYACCOUNT_PLAN_KEY is not set: .*openssl rand -base64 32/);
    expect(() => planSecretFrom({ PROXYACCOUNT_PLAN_KEY: '' })).toThrow(/is not set/);
    const short = 'short-secret-value';
    let caught: unknown;
    try {
      planSecretFrom({ PROXYACCOUNT_PLAN_KEY: short });
    } catch (err) {
      caught = err;
    }
    expect((caught as Error).message).toBe(
      `PROXYACCOUNT_PLAN_KEY is ${short.length} characters long; it must have at least ${MIN_SECRET_LENGTH} (openssl rand -base64 32 makes one)`,
    );
  });
});

describe('proxyaccount plan-file', () => {
  let dir: string;
  const saved = { ...process.env };
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'plan-seal-'));
    writeFileSync(path.join(dir, 'plan.tfplan'), PLAN);
    printed = '';
  });
  afterEach(() => {
    process.env = { ...saved };
    rmSync(dir, { recursive: true, force: true });
  });
  /** What the command wrote to stderr, all runs of the test. */
  let printed = '';
  const realWrite = process.stderr.write;
  const run = async (...args: string[]): Promise<unknown> => {
    // Subcommands made before exitOverride() would still exit the process: set it on each.
    const program = buildProgram();
    const throwInstead = (c: Command): void => {
      c.exitOverride().configureOutput({
        writeErr: (text) => {
          printed += text;
        },
      });
      for (const sub of c.commands) throwInstead(sub);
    };
    throwInstead(program);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      printed += String(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      return await program.parseAsync(['node', 'proxyaccount', 'plan-file', ...args]);
    } finally {
      process.stderr.write = realWrite;
    }
  };
  const at = (name: string): string => path.join(dir, name);

  it('seals and unseals through files readable by their owner alone, replacing an old output', async () => {
    process.env.PROXYACCOUNT_PLAN_KEY = SECRET;
    writeFileSync(at('plan.sealed'), 'an older artifact');
    await run('seal', at('plan.tfplan'), '--out', at('plan.sealed'));
    expect(statSync(at('plan.sealed')).mode & 0o777).toBe(0o600);
    await run('unseal', at('plan.sealed'), '--out', at('opened.tfplan'));
    expect(statSync(at('opened.tfplan')).mode & 0o777).toBe(0o600);
    expect(readFileSync(at('opened.tfplan')).equals(PLAN)).toBe(true);
    // Nothing else is left in the directory (no temporary file).
    expect(require('node:fs').readdirSync(dir).sort()).toEqual(['opened.tfplan', 'plan.sealed', 'plan.tfplan']);
  });

  it('reads the secret from --key-env, and never prints it', async () => {
    process.env.REVIEW_PLAN_SECRET = SECRET;
    delete process.env.PROXYACCOUNT_PLAN_KEY;
    await run('seal', at('plan.tfplan'), '--out', at('plan.sealed'), '--key-env', 'REVIEW_PLAN_SECRET');
    await expect(run('unseal', at('plan.sealed'), '--out', at('x'))).rejects.toThrow(/PROXYACCOUNT_PLAN_KEY is not set/);
    process.env.PROXYACCOUNT_PLAN_KEY = `${SECRET.slice(1)}0`;
    const refused = await run('unseal', at('plan.sealed'), '--out', at('x')).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/does not open with this secret/);
    expect((refused as Error).message).not.toContain(SECRET.slice(1));
    expect(existsSync(at('x'))).toBe(false);
    expect(printed).toContain('sealed');
    expect(printed).not.toContain(SECRET);
  });

  it('needs --out, and says what cannot be read', async () => {
    process.env.PROXYACCOUNT_PLAN_KEY = SECRET;
    await expect(run('seal', at('plan.tfplan'))).rejects.toThrow(/required option '--out <file>'/);
    await expect(run('seal', at('missing.tfplan'), '--out', at('y'))).rejects.toThrow(`cannot read ${at('missing.tfplan')}: ENOENT`);
  });
});
