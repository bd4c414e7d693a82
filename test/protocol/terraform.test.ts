// The transport under the real terraform binary: the tiny provider, installed through
// dev_overrides in a temp dir, must survive plan, apply, a no-change plan and a validation error.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildTinyProvider } from './helpers';

jest.setTimeout(180_000);

function terraformVersion(): string {
  try {
    return execFileSync('terraform', ['version', '-json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CHECKPOINT_DISABLE: '1' },
    });
  } catch (err) {
    throw new Error(`The real terraform binary is required for this test (Terraform 1.11.4 on PATH) but could not be run: ${(err as Error).message}`);
  }
}

describe('tiny provider under real terraform', () => {
  let dir: string;
  let work: string;
  let env: NodeJS.ProcessEnv;

  const tf = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync('terraform', [...args], { cwd: work, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 120_000 });
    return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
  };

  beforeAll(() => {
    const version = JSON.parse(terraformVersion()) as { terraform_version: string };
    expect(version.terraform_version).toMatch(/^1\./);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-protocol-tf-'));
    const bin = path.join(dir, 'bin');
    work = path.join(dir, 'work');
    fs.mkdirSync(bin);
    fs.mkdirSync(work);
    buildTinyProvider(bin, 'terraform-provider-tiny');
    fs.writeFileSync(
      path.join(dir, 'cli.tfrc'),
      `provider_installation {\n  dev_overrides {\n    "example.com/test/tiny" = ${JSON.stringify(bin)}\n  }\n  direct {}\n}\n`,
    );
    env = { ...process.env, TF_CLI_CONFIG_FILE: path.join(dir, 'cli.tfrc'), CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
    delete env.TF_LOG;
    delete env.TF_LOG_PATH;
  });

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const writeConfig = (name: string): void =>
    fs.writeFileSync(
      path.join(work, 'main.tf'),
      [
        'terraform {',
        '  required_providers {',
        '    tiny = { source = "example.com/test/tiny" }',
        '  }',
        '}',
        '',
        'resource "tiny_thing" "a" {',
        `  name = ${JSON.stringify(name)}`,
        '}',
        '',
        'output "id" {',
        '  value = tiny_thing.a.id',
        '}',
        '',
      ].join('\n'),
    );

  it('plans, applies, and then sees no changes; the provider exits gracefully each time', () => {
    writeConfig('first');
    const logPath = path.join(dir, 'plan.log');
    const plan = tf(['plan', '-no-color', '-input=false'], { TF_LOG: 'DEBUG', TF_LOG_PATH: logPath });
    expect(plan.out).toContain('tiny_thing.a will be created');
    expect(plan.out).toMatch(/id\s+= \(known after apply\)/);
    expect(plan.out).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    expect(plan.code).toBe(0);
    const log = fs.readFileSync(logPath, 'utf8');
    // our hclog JSON line, parsed by go-plugin and re-logged at its own level
    expect(log).toMatch(/\[DEBUG\] provider\.terraform-provider-tiny: plugin serving: .*tls=true/);
    expect(log).not.toContain('plugin failed to exit gracefully'); // Shutdown is honoured

    const apply = tf(['apply', '-no-color', '-input=false', '-auto-approve']);
    expect(apply.out).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(apply.out).toContain('id = "thing-first"');
    expect(apply.code).toBe(0);

    const again = tf(['plan', '-no-color', '-input=false', '-detailed-exitcode']);
    expect(again.out).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('shows a provider diagnostic at the attribute in the configuration', () => {
    writeConfig('invalid');
    const plan = tf(['plan', '-no-color', '-input=false']);
    expect(plan.code).toBe(1);
    expect(plan.out).toContain('Error: Invalid name');
    expect(plan.out).toContain('on main.tf line 8, in resource "tiny_thing" "a":');
    expect(plan.out).toContain('The name "invalid" is reserved.');
  });
});
