// What a plan cannot see, under the real terraform binary. A token create whose answer was lost
// while the token listing failed too: the token may exist, so the object is saved tainted with, as
// its id, the span of the API's time in which the create ran, and the next plan (or the delete of
// a replacement planned without a refresh) finds the token created in that span and replaces it. A new authoritative
// list whose username is known only at apply: the plan cannot read the account's list, so it
// promises to remove nothing, and Terraform's plan while applying holds the apply to that.
import { request } from 'undici';
import { useAccount } from './helpers/account';
import type { Workspace } from './helpers/terraform';

jest.setTimeout(180_000);

const account = useAccount();

/** Removes every pending fault (the control API's DELETE /_emulator/faults). */
async function clearFaults(): Promise<void> {
  const res = await request(`${account.em.url}/_emulator/faults`, {
    method: 'DELETE',
    dispatcher: account.em.dispatcher,
    headers: { authorization: `Bearer ${account.em.adminToken}` },
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`DELETE /_emulator/faults failed with ${res.statusCode}`);
}

/** `terraform show -json`'s resources, with whether each is tainted. */
async function resources(ws: Workspace): Promise<Array<{ address: string; tainted?: boolean; values: Record<string, unknown> }>> {
  const res = await ws.expect(['show', '-json', '-no-color']);
  const show = JSON.parse(res.stdout) as {
    values?: { root_module?: { resources?: Array<{ address: string; tainted?: boolean; values: Record<string, unknown> }> } };
  };
  return show.values?.root_module?.resources ?? [];
}

/**
 * Applies `ws` (one proxyaccount_bearer_token labelled `label`) so that the create's answer is lost
 * after the token is made and the listing that reads back fails: the object is saved pending.
 * Returns the apply's output and the id of the token the lost create made.
 */
async function applyLosingCreate(ws: Workspace, label: string): Promise<{ said: string; made: number }> {
  // One request each, answered within 3 s (the workspace's env): the create's answer comes after 6.
  await account.em.control.fault({ path: '/api/token/create/', method: 'POST', delayAfterMs: 6000 });
  const applying = ws.run(['apply', '-no-color', '-input=false', '-auto-approve']);
  // The token exists as soon as the create is served; its answer is held. From then on the
  // listing fails, so the read-back after the client gives up cannot settle it.
  let made: number | undefined;
  while (made === undefined) {
    made = (await account.client.tokens.list()).find((t) => t.label === label)?.id;
    if (made === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  await account.em.control.fault({ path: '/api/tokens/', method: 'GET', status: 503, count: 10 });
  const applied = await applying;
  await clearFaults();
  expect(applied.code).toBe(1);
  return { said: `${applied.stdout}${applied.stderr}`.replace(/\s+/g, ' '), made };
}

/** The live tokens are exactly the one the state holds, not `made`, and the next plan has nothing to do. */
async function expectOnlyTheManagedToken(ws: Workspace, made: number): Promise<void> {
  const live = await account.client.tokens.list();
  const [state] = await resources(ws);
  expect(live.map((t) => t.id)).not.toContain(made);
  expect(live.map((t) => t.id)).toEqual([state!.values['token_id']]);
  expect(state!.values['token']).toEqual(expect.any(String));
  expect(state!.tainted).not.toBe(true);
  expect((await ws.planExitCode()).code).toBe(0);
}

const PENDING_ID = /^pending:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('a bearer token create whose answer is lost while the token listing fails', () => {
  it('is saved tainted; the next plan finds the token it made and replaces it, leaving exactly the managed token', async () => {
    const ws = await account.workspace({ env: { PROXYACCOUNT_MAX_RETRIES: '0', PROXYACCOUNT_REQUEST_TIMEOUT: '3' } });
    ws.config('resource "proxyaccount_bearer_token" "t" {\n  label = "lost"\n}\n');
    const { said, made } = await applyLosingCreate(ws, 'lost');
    expect(said).toMatch(/A token labelled 'lost' may now exist whose value nobody received\. It is kept in the state, marked tainted, as pending/);
    expect(said).not.toMatch(/The next refresh reads the account again/);
    const [pending] = await resources(ws);
    expect(pending).toMatchObject({ address: 'proxyaccount_bearer_token.t', tainted: true, values: { token_id: null, id: expect.stringMatching(PENDING_ID) } });

    const plan = await ws.planExitCode();
    expect(plan.code).toBe(2);
    const planned = plan.stdout.replace(/\s+/g, ' ');
    expect(planned).toMatch(/proxyaccount_bearer_token\.t is tainted, so must be replaced/);
    expect(planned).toMatch(new RegExp(`Bearer token ${made} 'lost' was created while a create of this label whose answer was lost was running`));
    expect(planned).toMatch(/Plan: 1 to add, 0 to change, 1 to destroy/);

    await ws.apply();
    await expectOnlyTheManagedToken(ws, made);
  });

  it('applied with -refresh=false, the replacement deletes the token the create made and creates one, and nothing is stuck', async () => {
    const ws = await account.workspace({ env: { PROXYACCOUNT_MAX_RETRIES: '0', PROXYACCOUNT_REQUEST_TIMEOUT: '3' } });
    ws.config('resource "proxyaccount_bearer_token" "t" {\n  label = "lost-norefresh"\n}\n');
    const { made } = await applyLosingCreate(ws, 'lost-norefresh');
    // Terraform plans a tainted object's replacement without its private bytes: the delete has
    // only the state, whose id says when the create ran.
    const replaced = await ws.run(['apply', '-refresh=false', '-no-color', '-input=false', '-auto-approve']);
    expect(`${replaced.stdout}${replaced.stderr}`).toMatch(/Apply complete! Resources: 1 added, 0 changed, 1 destroyed/);
    expect(replaced.code).toBe(0);
    await expectOnlyTheManagedToken(ws, made);
  });
});

describe('a new authorized IP list whose username is known only at apply', () => {
  it('plans no removal; the apply removes nothing the plan did not show, and the next plan shows it for review', async () => {
    const owner = 'late-owner';
    await account.client.subAccounts.create({ username: owner });
    await account.client.ips.add({ ip: '198.51.100.200', label: 'precious', username: owner });
    const ws = await account.workspace();
    ws.config(
      `resource "terraform_data" "name" {\n  input = ${JSON.stringify(owner)}\n}\n`,
      'resource "proxyaccount_authorized_ips" "l" {\n  username = terraform_data.name.output\n  entries  = [{ ip = "203.0.113.77" }]\n}\n',
    );
    const ips = async () => (await account.client.ips.listWithLabels({ username: owner })).map((e) => `${e.ip} ${e.label}`.trim()).sort();

    // The reviewed plan: no removal, and a warning saying why and what the apply will do.
    const reviewed = await ws.expect(['plan', '-no-color', '-input=false', '-out=reviewed.tfplan']);
    const shown = reviewed.stdout.replace(/\s+/g, ' ');
    expect(shown).toMatch(/\+ removed_entries = \[\]/);
    expect(shown).toMatch(/Warning: Authorized IP list cannot be read before apply/);
    expect(shown).toMatch(/It plans to remove none of them \(removed_entries = \[\]\), and Terraform holds the apply to that/);

    // Applying it: with the username known, the entry would be removed, which that plan did not
    // show, so Terraform stops this list and nothing is removed.
    const applied = await ws.expect(['apply', '-no-color', '-input=false', 'reviewed.tfplan'], [1]);
    expect(applied.stderr.replace(/\s+/g, ' ')).toMatch(/Provider produced inconsistent final plan.*removed_entries.*198\.51\.100\.200 \(precious\)/);
    expect(await ips()).toEqual(['198.51.100.200 precious']);

    // The next plan knows the username, reads the list, and shows the removal for review.
    const next = await ws.planExitCode();
    expect(next.code).toBe(2);
    const review = next.stdout.replace(/\s+/g, ' ');
    expect(review).toMatch(/removed_entries = \[ \+ "198\.51\.100\.200 \(precious\)", \]/);
    expect(review).toMatch(/Authorized IP list removes 1 entry not declared/);
    await ws.apply();
    expect(await ips()).toEqual(['203.0.113.77']);
    expect((await ws.planExitCode()).code).toBe(0);
  });
});
