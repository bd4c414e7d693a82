// Validation errors under the real terraform binary point at the offending line: one
// configuration with a bad value for an attribute of every type, spread over two files, then a
// bad provider setting, then missing credentials; each is reported on its file and line.
import { startAccount, type E2eAccount } from './helpers/account';
import { REQUIRED_PROVIDERS, type TerraformResult, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

let account: E2eAccount;
let ws: Workspace;

/** One bad attribute: the block it is in, the attribute, its bad value (HCL), and what the detail must say. */
interface BadValue {
  readonly block: string;
  readonly address: string;
  readonly attribute: string;
  readonly value: string;
  readonly message: RegExp;
}

const BAD: readonly BadValue[] = [
  {
    block: 'resource "proxyaccount_sub_account" "name"',
    address: 'proxyaccount_sub_account.name',
    attribute: 'username',
    value: '"bad name!"',
    message: /username may contain only letters/,
  },
  {
    block: 'resource "proxyaccount_sub_account" "mail"',
    address: 'proxyaccount_sub_account.mail',
    attribute: 'email',
    value: '"not-an-email"',
    message: /email must be an email address/,
  },
  {
    block: 'resource "proxyaccount_sub_account" "limit"',
    address: 'proxyaccount_sub_account.limit',
    attribute: 'monthly_limit',
    value: '-1',
    message: /monthly_limit must be at least 0/,
  },
  {
    block: 'resource "proxyaccount_authorized_ip" "ip"',
    address: 'proxyaccount_authorized_ip.ip',
    attribute: 'ip',
    value: '"300.1.2.3"',
    message: /ip must be an IPv4 address/,
  },
  {
    block: 'resource "proxyaccount_authorized_hostname" "host"',
    address: 'proxyaccount_authorized_hostname.host',
    attribute: 'domain',
    value: '"not a host"',
    message: /domain must be a host name/,
  },
  {
    block: 'resource "proxyaccount_authorized_proxy" "proxy"',
    address: 'proxyaccount_authorized_proxy.proxy',
    attribute: 'proxy',
    value: '"us ny"',
    message: /proxy must be a bare proxy host/,
  },
  {
    block: 'resource "proxyaccount_bearer_token" "date"',
    address: 'proxyaccount_bearer_token.date',
    attribute: 'expires_at',
    value: '"2030-13-45"',
    message: /expires_at must be a date written YYYY-MM-DD/,
  },
  {
    block: 'resource "proxyaccount_bearer_token" "label"',
    address: 'proxyaccount_bearer_token.label',
    attribute: 'label',
    value: `"${'x'.repeat(101)}"`,
    message: /label must be at most 100 characters/,
  },
  {
    block: 'resource "proxyaccount_authorized_ips" "list"',
    address: 'proxyaccount_authorized_ips.list',
    attribute: 'entries',
    value: '[{ ip = "1.2.3" }]',
    message: /ip must be an IPv4 address/,
  },
  {
    block: 'resource "proxyaccount_authorized_hostnames" "list"',
    address: 'proxyaccount_authorized_hostnames.list',
    attribute: 'domains',
    value: '["bad host"]',
    message: /domains must be a host name/,
  },
  {
    block: 'resource "proxyaccount_authorized_proxies" "list"',
    address: 'proxyaccount_authorized_proxies.list',
    attribute: 'proxies',
    value: '["no such!"]',
    message: /proxies must be a bare proxy host/,
  },
  {
    block: 'data "proxyaccount_geoips" "pool"',
    address: 'data.proxyaccount_geoips.pool',
    attribute: 'pool',
    value: '"moon"',
    message: /pool must be one of "open", "world"/,
  },
  {
    block: 'data "proxyaccount_sub_account" "sub"',
    address: 'data.proxyaccount_sub_account.sub',
    attribute: 'username',
    value: '"x y"',
    message: /username may contain only letters/,
  },
  {
    block: 'data "proxyaccount_authorized_ips" "ips"',
    address: 'data.proxyaccount_authorized_ips.ips',
    attribute: 'username',
    value: '"bad user!"',
    message: /username may contain only letters/,
  },
];

/** The file a bad value is written to: a second file checks that the file name is right too. */
const fileOf = (i: number): string => (i % 2 === 0 ? 'main.tf' : 'more.tf');

/** Writes the configuration; returns the line each bad value sits on. */
function writeConfig(): number[] {
  const files: Record<string, string[]> = {
    'main.tf': REQUIRED_PROVIDERS.split('\n'),
    'more.tf': [],
  };
  const lines = BAD.map((b, i) => {
    const f = files[fileOf(i)];
    // A valid attribute first, so the bad one is not on the block's own line.
    const filler = b.attribute === 'username' && b.block.startsWith('data') ? [] : fillerFor(b);
    f.push(`${b.block} {`, ...filler);
    f.push(`  ${b.attribute} = ${b.value}`);
    const line = f.length;
    f.push('}', '');
    return line;
  });
  for (const [name, content] of Object.entries(files)) ws.write(name, content.join('\n'));
  return lines;
}

/** Valid required attributes besides the bad one. */
function fillerFor(b: BadValue): string[] {
  const required: Record<string, string> = {
    proxyaccount_sub_account: '  username = "valid-user"',
    proxyaccount_authorized_ip: '  ip = "203.0.113.1"',
    proxyaccount_bearer_token: '  active = true',
    proxyaccount_authorized_ips: '  username = "valid-user"',
    proxyaccount_authorized_hostnames: '  username = "valid-user"',
  };
  const type = /"(proxyaccount_[a-z_]+)"/.exec(b.block)![1];
  const line = required[type];
  return line === undefined || line.includes(`${b.attribute} =`) ? [] : [line];
}

/** Terraform's diagnostics as text blocks, one per "Error:". */
function diagnostics(res: TerraformResult): string[] {
  return `${res.stdout}\n${res.stderr}`.split(/^(?=Error: )/m).filter((d) => d.startsWith('Error: '));
}

/** A diagnostic's detail: what follows the summary and the source excerpt, unwrapped. */
function detailOf(diagnostic: string): string {
  return diagnostic
    .split(/\n\s*\n/)
    .slice(2)
    .join(' ')
    .replace(/\s+/g, ' ');
}

beforeAll(async () => {
  account = await startAccount();
  ws = await account.workspace();
});

afterAll(async () => {
  await account?.stop();
});

describe('validation errors', () => {
  it('terraform validate reports every bad value on its file and line', async () => {
    const lines = writeConfig();
    const res = await ws.run(['validate', '-no-color']);
    expect(res.code).toBe(1);
    const diags = diagnostics(res);

    const unmatched: string[] = [];
    BAD.forEach((b, i) => {
      const at = `on ${fileOf(i)} line ${lines[i]}`;
      const d = diags.find((text) => text.includes(`with ${b.address},`) && text.includes(at));
      if (d === undefined || !b.message.test(detailOf(d))) unmatched.push(`${b.address}.${b.attribute} (${at})`);
      else expect(d).toContain(`${b.attribute} = ${b.value}`);
    });
    expect(unmatched).toEqual([]);
    // Nothing else: one diagnostic per bad value.
    expect(diags).toHaveLength(BAD.length);
  });

  it('terraform validate reports a bad provider setting on its line (and stops there, as Terraform does)', async () => {
    ws.remove('more.tf');
    const lines = [
      ...REQUIRED_PROVIDERS.split('\n'),
      'provider "proxyaccount" {',
      '  insecure = false',
      '  base_url = "http://api.example.com"',
      '}',
      '',
      // Terraform validates a provider block only when something uses the provider.
      'data "proxyaccount_proxies" "all" {}',
      '',
    ];
    ws.write('main.tf', lines.join('\n'));
    const res = await ws.run(['validate', '-no-color']);
    expect(res.code).toBe(1);
    const [d, ...rest] = diagnostics(res);
    expect(rest).toEqual([]);
    expect(d).toContain(`on main.tf line ${lines.indexOf('  base_url = "http://api.example.com"') + 1}, in provider "proxyaccount"`);
    expect(d).toMatch(/base_url/);
    expect(d).toMatch(/https/);
  });

  it('a provider block with a username but no password fails the plan on the provider block, naming the variable', async () => {
    ws.remove('more.tf');
    ws.write('main.tf', `${REQUIRED_PROVIDERS}\nprovider "proxyaccount" {\n  username = "someone"\n}\n\ndata "proxyaccount_proxies" "all" {}\n`);
    const res = await ws.run(['plan', '-no-color', '-input=false'], { PROXYACCOUNT_PASSWORD: '' });
    expect(res.code).toBe(1);
    const [d, ...rest] = diagnostics(res);
    expect(rest).toEqual([]);
    expect(d).toContain('Error: Missing password');
    expect(d).toContain('PROXYACCOUNT_PASSWORD');
    expect(d).toMatch(new RegExp(`on main\\.tf line ${REQUIRED_PROVIDERS.split('\n').length + 1}, in provider "proxyaccount"`));
  });
});
