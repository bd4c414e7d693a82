// `toBeValidTerraform` runs the real `terraform init` + `terraform validate` on a synthesized
// stack. Terraform needs the provider's schema for that, so the test installs the built provider
// into a throwaway filesystem mirror. A plan also needs an account API: the emulator of the same
// build. Without terraform or a built provider it fails and says what to do: a test that needs
// terraform never skips itself.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Fn, Lazy, Op, TerraformOutput, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import { AccessListMode, AccountRoster, ParentAccess, SubAccount, l1 } from '../src';
import { FLAVOR } from './flavor';
import { AROUND_REFERENCE, aroundReference } from './helpers';

const REPO = path.join(__dirname, '..', '..');
const PROVIDER = process.env.PROXYACCOUNT_PROVIDER_BIN ?? path.join(REPO, 'dist', 'provider', 'terraform-provider-proxyaccount');
const CLI = path.join(REPO, 'bin', 'proxyaccount.js');

/** A running emulator (the built `proxyaccount emulator`, in memory, its default demo account). */
interface Emulator {
  /** Stops it and waits until it has exited. */
  readonly stop: () => Promise<void>;
  /** PROXYACCOUNT_* settings that point the provider at it. */
  readonly env: NodeJS.ProcessEnv;
}

/** Starts the emulator and waits for its ready line (JSON with its URL and CA file). */
async function startEmulator(): Promise<Emulator> {
  const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0', '--http-port', '0', '--no-proxies'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the emulator (${path.relative(REPO, CLI)} emulator) exited ${code} before it was ready:\n${stderr}`)));
  });
  const ready = JSON.parse(line) as { url: string; caFile: string };
  return {
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill();
    }),
    env: { PROXYACCOUNT_BASE_URL: ready.url, PROXYACCOUNT_CA_CERT_FILE: ready.caFile, PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 'demo-password' },
  };
}

/** Throws, saying what to install or build, unless terraform runs and the provider is built. */
function requireTerraformAndProvider(): void {
  try {
    execFileSync('terraform', ['version'], { stdio: 'ignore', env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
  } catch (err) {
    throw new Error(
      `This test needs the terraform CLI (>= 1.5) on PATH and could not run it (${err instanceof Error ? err.message : String(err)}). ` +
        'Install Terraform and run the tests again.',
    );
  }
  if (!fs.existsSync(PROVIDER)) {
    throw new Error(`This test needs the built provider at ${path.relative(REPO, PROVIDER)}: run \`npm run build\` at the repository root first.`);
  }
}

describe('synthesized stack with the real terraform CLI', () => {
  let tmp = '';
  let savedConfig: string | undefined;

  beforeAll(() => {
    requireTerraformAndProvider();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-tf-'));
    const version = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    const platform = `${os.platform()}_${({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[os.arch()] ?? os.arch()}`;
    const target = path.join(tmp, 'mirror', 'registry.terraform.io', 'proxyaccount', 'proxyaccount', version, platform);
    fs.mkdirSync(target, { recursive: true });
    fs.copyFileSync(PROVIDER, path.join(target, `terraform-provider-proxyaccount_v${version}`));
    fs.chmodSync(path.join(target, `terraform-provider-proxyaccount_v${version}`), 0o755);
    const config = path.join(tmp, 'terraformrc');
    fs.writeFileSync(config, [
      'provider_installation {',
      `  filesystem_mirror {\n    path = ${JSON.stringify(path.join(tmp, 'mirror'))}\n    include = ["registry.terraform.io/proxyaccount/proxyaccount"]\n  }`,
      '  direct {\n    exclude = ["registry.terraform.io/proxyaccount/proxyaccount"]\n  }',
      '}',
      '',
    ].join('\n'));
    savedConfig = process.env.TF_CLI_CONFIG_FILE;
    process.env.TF_CLI_CONFIG_FILE = config;
  });

  afterAll(() => {
    if (tmp === '') return;
    if (savedConfig === undefined) delete process.env.TF_CLI_CONFIG_FILE;
    else process.env.TF_CLI_CONFIG_FILE = savedConfig;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('toBeValidTerraform: a roster stack inits offline and validates', () => {
    const stack = new TerraformStack(Testing.app(), 'roster');
    new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', { baseUrl: 'https://127.0.0.1:1', token: 'unused' });
    new ParentAccess(stack, 'Parent', { accessList: AccessListMode.AUTHORITATIVE, proxies: ['us-ny'] });
    const roster = new AccountRoster(stack, 'Roster', {
      roster: {
        teams: [{
          name: 'data',
          defaults: { monthlyLimitGb: 10 },
          members: [
            { username: 'alice', ips: [{ ip: '203.0.113.7' }], tokens: [{ label: 'ci', expiresAt: '2030-01-31' }] },
            { username: 'bob', accessList: AccessListMode.AUTHORITATIVE, hostnames: ['ci.example.com'] },
          ],
        }],
      },
    });
    const token = roster.subAccount('alice')?.token('ci');
    if (token) new TerraformOutput(stack, 'alice-ci-token', { value: token.token, sensitive: true });
    const dir = Testing.fullSynth(stack);
    try {
      expect(dir).toBeValidTerraform();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a roster label written as a Terraform expression is planned as the text written, not evaluated', async () => {
    const written = '${upper("x")} %{ if true }y%{ endif }';
    const stack = new TerraformStack(Testing.app(), 'literal');
    new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
    new AccountRoster(stack, 'Roster', {
      roster: { teams: [{ name: 't', members: [{ username: 'ada', ips: [{ ip: '203.0.113.7', label: written }], tokens: [{ label: written }] }] }] },
    });
    const dir = Testing.fullSynth(stack);
    const emulator = await startEmulator();
    try {
      const opts = { cwd: path.join(dir, 'stacks', 'literal'), env: { ...process.env, ...emulator.env, CHECKPOINT_DISABLE: '1' }, stdio: 'pipe' as const };
      execFileSync('terraform', ['init', '-input=false', '-no-color'], opts);
      execFileSync('terraform', ['plan', '-input=false', '-no-color', '-out=plan.bin'], opts);
      const plan = JSON.parse(execFileSync('terraform', ['show', '-json', 'plan.bin'], opts).toString()) as {
        resource_changes: Array<{ type: string; change: { after: { label?: string } } }>;
      };
      const labels = (type: string): Array<string | undefined> => plan.resource_changes.filter((r) => r.type === type).map((r) => r.change.after.label);
      expect(labels('proxyaccount_authorized_ip')).toEqual([written]);
      expect(labels('proxyaccount_bearer_token')).toEqual([written]);
    } finally {
      await emulator.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a password with `${`, `%{`, `$${` or `%%{` validates, and Terraform plans it exactly as given', async () => {
    // Unescaped, `%{` failed `terraform validate` with the password in Terraform's error, and `$${`
    // reached the account as `${`.
    const passwords: Record<string, string> = {
      ada: 'S3cr%{et-Pass',
      bob: 'Pa$${ss-word1',
      cy: 'Pa${upper("x")}ss',
      dee: 'x%%{ if true }y%{ endif }',
      eve: '$$$${%%%{}',
    };
    const stack = new TerraformStack(Testing.app(), 'passwords');
    new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
    for (const [username, password] of Object.entries(passwords)) new SubAccount(stack, username, { username, password });
    const dir = Testing.fullSynth(stack);
    const emulator = await startEmulator();
    try {
      const opts = { cwd: path.join(dir, 'stacks', 'passwords'), env: { ...process.env, ...emulator.env, CHECKPOINT_DISABLE: '1' }, stdio: 'pipe' as const };
      execFileSync('terraform', ['init', '-input=false', '-no-color'], opts);
      execFileSync('terraform', ['validate', '-no-color'], opts);
      execFileSync('terraform', ['plan', '-input=false', '-no-color', '-out=plan.bin'], opts);
      // The JSON form of a plan holds sensitive values as they are.
      const plan = JSON.parse(execFileSync('terraform', ['show', '-json', 'plan.bin'], opts).toString()) as {
        resource_changes: Array<{ type: string; change: { after: { username: string; password?: string } } }>;
      };
      const planned = plan.resource_changes.filter((r) => r.type === 'proxyaccount_sub_account').map((r) => [r.change.after.username, r.change.after.password]);
      expect(Object.fromEntries(planned)).toEqual(passwords);
    } finally {
      await emulator.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a `$` or `%` just before a reference stays text, and Terraform plans the reference\'s value after it: passwords and roster strings', async () => {
    // `'Pre$' + variable` reached Terraform as `Pre$${var.x}`, its escape: the account got the
    // guessable text `Pre${var.x}`. A reference after a `${` of the text lost its braces.
    const stack = new TerraformStack(Testing.app(), 'references');
    new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
    const secret = new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true, default: 'Secret-123' }).stringValue;
    const pin = new TerraformVariable(stack, 'pin', { type: 'number', default: 4711 }).numberValue;
    const office = new TerraformVariable(stack, 'office', { type: 'string', default: 'HQ' }).stringValue;
    const expected: Record<string, { password: string; first_name?: string; label?: string }> = {};
    AROUND_REFERENCE.forEach((pattern, i) => {
      new SubAccount(stack, `S${i}`, { username: `s${i}`, password: aroundReference(pattern, secret) });
      expected[`s${i}`] = { password: aroundReference(pattern, 'Secret-123') };
      expected[`r${i}`] = { password: aroundReference(pattern, 'Secret-123'), first_name: aroundReference(pattern, 'HQ'), label: aroundReference(pattern, 'HQ') };
    });
    new SubAccount(stack, 'Pin', { username: 'pin', password: `pin$${pin}$` });
    expected.pin = { password: 'pin$4711$' };
    new AccountRoster(stack, 'Roster', {
      allowReferences: true,
      roster: {
        teams: [{
          name: 't',
          members: AROUND_REFERENCE.map((pattern, i) => ({
            username: `r${i}`, firstName: aroundReference(pattern, office), ips: [{ ip: '203.0.113.7', label: aroundReference(pattern, office) }],
          })),
        }],
      },
      passwords: Object.fromEntries(AROUND_REFERENCE.map((pattern, i) => [`r${i}`, aroundReference(pattern, secret)])),
    });
    const dir = Testing.fullSynth(stack);
    const emulator = await startEmulator();
    try {
      const opts = { cwd: path.join(dir, 'stacks', 'references'), env: { ...process.env, ...emulator.env, CHECKPOINT_DISABLE: '1' }, stdio: 'pipe' as const };
      execFileSync('terraform', ['init', '-input=false', '-no-color'], opts);
      execFileSync('terraform', ['plan', '-input=false', '-no-color', '-out=plan.bin'], opts);
      // The JSON form of a plan holds sensitive values as they are.
      const plan = JSON.parse(execFileSync('terraform', ['show', '-json', 'plan.bin'], opts).toString()) as {
        resource_changes: Array<{ type: string; change: { after: { username: string; password?: string; first_name?: string | null; label?: string } } }>;
      };
      const planned: Record<string, { password?: string; first_name?: string; label?: string }> = {};
      for (const { type, change: { after } } of plan.resource_changes) {
        if (type === 'proxyaccount_sub_account') {
          planned[after.username] = { ...planned[after.username], password: after.password, first_name: after.first_name ?? undefined };
        }
        if (type === 'proxyaccount_authorized_ip') planned[after.username] = { ...planned[after.username], label: after.label };
      }
      expect(planned).toEqual(expected);
    } finally {
      await emulator.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a password holding an expression the synth check keeps (an Fn.* call, say) is planned exactly as the code says', async () => {
    // The check refuses only text that cdktf would write into the expression unreadably; this is
    // what it keeps, and the plan shows the account would get exactly the code's text and values.
    const stack = new TerraformStack(Testing.app(), 'expressions');
    new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
    const variable = new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true, default: 'Secret-123' });
    const secret = variable.stringValue;
    const empty = new TerraformVariable(stack, 'empty', { type: 'string', sensitive: true, default: '' }).stringValue;
    const pws = new TerraformVariable(stack, 'pws', { type: 'map(string)', sensitive: true, default: { alice: 'Alice-pw' } }).value as Record<string, string>;
    const pin = new TerraformVariable(stack, 'pin', { type: 'number', default: 42 }).numberValue;
    const unset: { suffix?: string } = {};
    const passwords: Record<string, [string, string]> = {
      a: [Fn.join('', ['a$${', secret]), 'a$${Secret-123'],
      b: [Fn.join('', ['x${y', secret]), 'x${ySecret-123'],
      c: [Fn.join('', ['$', secret, '$']), '$Secret-123$'],
      d: [`Pa%{${Fn.lower(secret)}`, 'Pa%{secret-123'],
      e: [Fn.join('-', ['Pa$${ss', secret, '%%']), 'Pa$${ss-Secret-123-%%'],
      f: [Token.asString(variable.value), 'Secret-123'],
      // Plain strings that cdktf quotes itself (list and variadic arguments), and Lazy text kept.
      g: [Fn.coalesce([empty, 'Default-pw!']), 'Default-pw!'],
      h: [Fn.format('%s-%s', [secret, 'x']), 'Secret-123-x'],
      i: [Fn.try([Fn.lookupNested(pws, ['bob']), 'Try-pw']), 'Try-pw'],
      j: [Fn.lookup(pws, 'alice', 'Fallback-pw'), 'Alice-pw'],
      k: [Fn.lookup(pws, 'bob', 'Fallback-pw'), 'Fallback-pw'],
      l: [Fn.join('+', Fn.sort(['b-pw', secret])), 'Secret-123+b-pw'],
      m: [`${Lazy.stringValue({ produce: () => '0123' })}${secret}`, '0123Secret-123'],
      n: [Fn.join('', [Token.asString(variable.value), '-x']), 'Secret-123-x'],
      // Neighbours of what is refused: a falsy left operand, an optional value left out of a map
      // (or dropped by Fn.compact), lists without gaps, a null branch beside a taken one.
      o: [Fn.conditional(Op.neq('', secret), secret, 'Fallback-pw'), 'Secret-123'],
      p: [Fn.conditional(Op.neq('', empty), empty, 'Fallback-pw'), 'Fallback-pw'],
      q: [Fn.lookup({ a: unset.suffix, b: secret }, 'b', 'x'), 'Secret-123'],
      r: [Fn.join('-', Fn.compact([secret, unset.suffix, 'Tail9'] as string[])), 'Secret-123-Tail9'],
      s: [Fn.join('-', Fn.concat([[secret], ['Tail9']])), 'Secret-123-Tail9'],
      t: [Fn.conditional(Op.eq(secret, 'x'), null, secret), 'Secret-123'],
      // CDK Terrain writes a falsy right operand as given (cdktf's writer, which drops it, is refused).
      ...(FLAVOR.lib === 'cdktn' ? {
        u: [Fn.conditional(Op.neq(secret, ''), secret, 'Fallback-pw'), 'Secret-123'],
        v: [Fn.conditional(Op.eq(empty, ''), 'Fallback-pw', secret), 'Fallback-pw'],
        w: [Fn.format('%s%d', [secret, Op.sub(pin, 0)]), 'Secret-12342'],
      } satisfies Record<string, [string, string]> : {}),
    };
    for (const [username, [password]] of Object.entries(passwords)) new SubAccount(stack, username, { username, password });
    const dir = Testing.fullSynth(stack);
    const emulator = await startEmulator();
    try {
      const opts = { cwd: path.join(dir, 'stacks', 'expressions'), env: { ...process.env, ...emulator.env, CHECKPOINT_DISABLE: '1' }, stdio: 'pipe' as const };
      execFileSync('terraform', ['init', '-input=false', '-no-color'], opts);
      execFileSync('terraform', ['plan', '-input=false', '-no-color', '-out=plan.bin'], opts);
      // The JSON form of a plan holds sensitive values as they are.
      const plan = JSON.parse(execFileSync('terraform', ['show', '-json', 'plan.bin'], opts).toString()) as {
        resource_changes: Array<{ type: string; change: { after: { username: string; password?: string } } }>;
      };
      const planned = plan.resource_changes.filter((r) => r.type === 'proxyaccount_sub_account').map((r) => [r.change.after.username, r.change.after.password]);
      expect(Object.fromEntries(planned)).toEqual(Object.fromEntries(Object.entries(passwords).map(([username, [, expected]]) => [username, expected])));
    } finally {
      await emulator.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // toPlanSuccessfully runs `terraform plan` without showing what it planned; the test above reads
  // the plan itself, and the example app's end-to-end test covers plan and apply.
});
