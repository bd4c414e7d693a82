// Chaos: the real terraform applies while the emulator plays the faults of a bad network — 503
// with Retry-After, dropped connections before and after the change was made, answers later
// than the request timeout — and while a Ctrl-C stops an apply half way. Whatever happens, the
// account never holds an object the state does not (0 orphaned), the state never holds one the
// account does not (0 lost) unless it keeps it tainted (a create whose outcome stays unknown: the
// API may still make it), and one more apply leaves an empty plan.
import { startAccount, type E2eAccount } from './helpers/account';
import type { TerraformShow, Workspace } from './helpers/terraform';

jest.setTimeout(240_000);

let account: E2eAccount;
let ws: Workspace;

const fault = (spec: Parameters<E2eAccount['em']['control']['fault']>[0]): Promise<void> => account.em.control.fault(spec);

beforeAll(async () => {
  account = await startAccount();
  // A request timeout of 2 s makes a 4 s late answer a timeout whose outcome is unknown.
  ws = await account.workspace({ env: { PROXYACCOUNT_REQUEST_TIMEOUT: '2', PROXYACCOUNT_MAX_RETRIES: '2' } });
});

afterAll(async () => {
  await account?.stop();
});

const ips = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `203.0.113.${from + i}`);

function config(ipList: string[]): string {
  return `
resource "proxyaccount_sub_account" "team" {
  username = "chaos-team"
}

resource "proxyaccount_authorized_ip" "ip" {
  for_each = toset(${JSON.stringify(ipList)})
  ip       = each.value
  username = proxyaccount_sub_account.team.username
}

resource "proxyaccount_authorized_hostname" "ci" {
  domain   = "ci.chaos.example.com"
  username = proxyaccount_sub_account.team.username
}

resource "proxyaccount_bearer_token" "deploy" {
  label    = "deploy"
  username = proxyaccount_sub_account.team.username
}
`;
}

/**
 * What the account holds (sub-account chaos-team) and what the state holds, side by side; `state`
 * leaves out what the state keeps tainted (objects that may exist), which `tainted` holds.
 */
async function compare(): Promise<{ account: Record<string, string[]>; state: Record<string, string[]>; tainted: Record<string, string[]> }> {
  const u = { username: 'chaos-team' };
  const live = {
    subAccounts: (await account.client.subAccounts
      .get('chaos-team')
      .then(() => ['chaos-team'])
      .catch(() => [])) as string[],
    ips: (await account.client.ips.list(u).catch(() => [] as string[])).sort(),
    hostnames: (await account.client.hostnames.list(u).catch(() => [] as string[])).sort(),
    tokens: (await account.client.tokens.list(u).catch(() => [])).map((t) => `${t.id}:${t.label}`).sort(),
  };
  const show: TerraformShow = await ws.state();
  const resources = show.values?.root_module?.resources ?? [];
  const side = (tainted: boolean) => {
    const of = (type: string, f: (v: Record<string, unknown>) => string): string[] =>
      resources
        .filter((r) => r.type === type && ((r as { tainted?: boolean }).tainted === true) === tainted)
        .map((r) => f(r.values))
        .sort();
    return {
      subAccounts: of('proxyaccount_sub_account', (v) => String(v['username'])),
      ips: of('proxyaccount_authorized_ip', (v) => String(v['ip'])),
      hostnames: of('proxyaccount_authorized_hostname', (v) => String(v['domain'])),
      tokens: of('proxyaccount_bearer_token', (v) => `${String(v['token_id'])}:${String(v['label'])}`),
    };
  };
  return { account: live, state: side(false), tainted: side(true) };
}

/** Objects of `a` that `b` lacks, per kind. */
function missing(a: Record<string, string[]>, ...b: Record<string, string[]>[]): Record<string, string[]> {
  return Object.fromEntries(Object.entries(a).map(([k, xs]) => [k, xs.filter((x) => !b.some((o) => o[k]?.includes(x)))]));
}

const NONE = { subAccounts: [], ips: [], hostnames: [], tokens: [] };

describe('an apply on a bad network', () => {
  it('loses nothing and orphans nothing, and one more apply leaves an empty plan', async () => {
    ws.config(config(ips(10, 6)));
    // The change is made, then the connection drops before the answer (a lost answer).
    await fault({ path: '/api/sub/create/', method: 'POST', dropResponse: true });
    await fault({ path: '/api/ip/add/', method: 'POST', dropResponse: true, count: 2 });
    await fault({ path: '/api/token/create/', method: 'POST', dropResponse: true });
    // The change is made, the answer comes after the request timeout.
    await fault({ path: '/api/hostname/add/', method: 'POST', delayAfterMs: 4000 });
    // Reads answer 503 with Retry-After first: the SDK waits and retries them.
    await fault({ path: '/api/ip_labels/', method: 'GET', status: 503, retryAfterSeconds: 1, count: 2 });
    // A connection dropped before the request was served: the API may still have it on its way, so
    // this one create fails, says so, and is kept tainted.
    await fault({ path: '/api/ip/add/', method: 'POST', reset: true });

    const first = await ws.run(['apply', '-no-color', '-input=false', '-auto-approve', '-parallelism=4']);
    expect([0, 1]).toContain(first.code);
    let { account: live, state, tainted } = await compare();
    // Whatever failed, nothing exists that the state does not hold (tainted or not), and the state
    // holds nothing the account does not, but for what it keeps tainted.
    expect(missing(live, state, tainted)).toEqual(NONE);
    expect(missing(state, live)).toEqual(NONE);
    // Terraform frames and may wrap a diagnostic's lines.
    const said = (first.stdout + first.stderr).replace(/[│╵╷]/g, ' ').replace(/\s+/g, ' ');
    expect(said).toMatch(/does not hold it yet, but the API may still carry the request out/);
    expect(said).not.toMatch(/Check base_url/);
    // Exactly one token with the label: the lost answer did not leave a second, unusable one.
    expect(live.tokens).toHaveLength(1);

    await ws.apply();
    ({ account: live, state, tainted } = await compare());
    expect(live).toEqual(state);
    expect(tainted).toEqual(NONE);
    expect(live.ips).toEqual(ips(10, 6).sort());
    expect((await ws.planExitCode()).code).toBe(0);
  });
});

describe('Ctrl-C during an apply', () => {
  it('lets the writes already sent finish and records them: nothing orphaned, and a re-apply converges', async () => {
    ws.config(config(ips(10, 22)));
    // Slow adds, so the interrupt lands while several are in flight.
    await fault({ path: '/api/ip/add/', method: 'POST', delayMs: 700, count: 16 });
    const child = ws.spawnDetached(['apply', '-no-color', '-input=false', '-auto-approve', '-parallelism=4']);
    let out = '';
    const interrupted = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/Creation complete/.test(out)) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await interrupted;
    // As a terminal does: the whole process group gets SIGINT (terraform and the provider).
    process.kill(-child.pid!, 'SIGINT');
    const code = await exited;
    expect(code).not.toBe(0);
    expect(out).toMatch(/Interrupt received|Stopping operation/i);

    const { account: live, state } = await compare();
    expect(live).toEqual(state);
    expect(live.ips.length).toBeLessThan(22);

    await ws.apply();
    const after = await compare();
    expect(after.account).toEqual(after.state);
    expect(after.account.ips).toHaveLength(22);
    expect((await ws.planExitCode()).code).toBe(0);
  });
});
