// A plan is read whole or refused: an action outside Terraform's set, a list that is not a list,
// an entry that cannot be read, or another major format version stops the reading with a message
// naming the entry (exit 1 in the CLI), where a reader that skipped them would review the plan as
// "No changes" (exit 0, which CI reads as nothing to apply). Deferred changes (Terraform's
// `deferred_changes`) are reviewed as such, never dropped. So is Terraform's own verdict on the
// plan: a plan whose planning failed (`errored`, which Terraform saves all the same) is refused, a
// `complete: false` one is said to be incomplete, and `applyable` must agree with the changes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kindOf, parsePlanJson } from '../../src/gitops/plan-json';
import { failsOn, hasChanges, reviewPlan } from '../../src/gitops/review';
import { reviewMarkdown } from '../../src/gitops/review-render';

const SECRET = 'Hunter2-SuperSecret';

function entry(address: unknown, actions: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    address,
    mode: 'managed',
    type: 'proxyaccount_authorized_ip',
    name: 'x',
    provider_name: 'registry.terraform.io/proxyaccount/proxyaccount',
    change: { actions, before: { ip: '1.2.3.4', username: null }, after: { ip: '1.2.3.4', username: null }, ...extra },
  };
}

const plan = (json: Record<string, unknown>) => () => parsePlanJson({ format_version: '1.2', ...json });

describe('a plan this reader cannot read whole is refused, never reviewed as "No changes"', () => {
  it("an action outside Terraform's set (a newer Terraform's), naming the entry", () => {
    expect(plan({ resource_changes: [entry('proxyaccount_authorized_ip.x', ['archive'])] })).toThrow(
      /^cannot read the plan: resource_changes\[0\] \("proxyaccount_authorized_ip\.x"\): its actions "archive" are not among Terraform's .*what applying it does cannot be told/,
    );
    expect(plan({ resource_changes: [entry('a.b', ['update', 'delete'])] })).toThrow(/its actions "update, delete" are not among Terraform's/);
    expect(plan({ resource_changes: [entry('a.b', [])] })).toThrow(/its actions "" are not among/);
    expect(() => kindOf({ actions: ['archive'], importing: false })).toThrow(/not one this reader knows/);
  });

  it("every action list Terraform documents is read, forget's included", () => {
    for (const actions of [
      ['no-op'],
      ['create'],
      ['read'],
      ['update'],
      ['delete'],
      ['delete', 'create'],
      ['create', 'delete'],
      ['forget'],
      ['create', 'forget'],
    ]) {
      expect(plan({ resource_changes: [entry('proxyaccount_authorized_ip.x', actions)] })).not.toThrow();
    }
  });

  it('resource_changes, resource_drift or deferred_changes that is not a list', () => {
    expect(plan({ resource_changes: 'oops' })).toThrow('not a plan this reader can read: its resource_changes is not a list');
    expect(plan({ resource_changes: null })).toThrow('its resource_changes is not a list');
    expect(plan({ resource_changes: [], resource_drift: {} })).toThrow('its resource_drift is not a list');
    expect(plan({ resource_changes: [], deferred_changes: 1 })).toThrow('its deferred_changes is not a list');
  });

  it('an entry it cannot read beside one it can: the whole plan is refused, not the valid entry reviewed alone', () => {
    const valid = entry('proxyaccount_authorized_ip.y', ['create']);
    expect(plan({ resource_changes: [entry(5, ['create']), valid] })).toThrow(/^cannot read the plan: resource_changes\[0\]: it has no address\./);
    expect(plan({ resource_changes: [valid, 'oops'] })).toThrow(/resource_changes\[1\]: it is not an object/);
    expect(plan({ resource_changes: [valid, { ...valid, type: undefined }] })).toThrow(
      /resource_changes\[1\] \("proxyaccount_authorized_ip\.y"\): it has no resource type/,
    );
    expect(plan({ resource_changes: [{ ...valid, mode: 'ephemeral' }] })).toThrow(/its mode "ephemeral" is neither "managed" nor "data"/);
    expect(plan({ resource_changes: [{ ...valid, change: null }] })).toThrow(/it has no change object/);
    expect(plan({ resource_changes: [{ ...valid, change: { actions: 'create' } }] })).toThrow(/its actions are not a list of names/);
    expect(plan({ resource_changes: [entry('a.b', ['create'], { after: 'x' })] })).toThrow(/its before or after value is not an object/);
    expect(plan({ resource_changes: [entry('a.b', ['create'], { after_unknown: true })] })).toThrow(/its unknown-value marks are not an object/);
    expect(plan({ resource_changes: [{ ...valid, action_reason: ['replace_by_request'] }] })).toThrow(/its action_reason is not a name/);
  });

  it('sensitivity marks it cannot read: refused, so that a value they would have hidden is never shown', () => {
    const marked = entry('proxyaccount_sub_account.a', ['create'], { before: null, after: { username: 'a', first_name: SECRET }, after_sensitive: 'yes' });
    let message = '';
    try {
      plan({ resource_changes: [marked] })();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/resource_changes\[0\] \("proxyaccount_sub_account\.a"\): its sensitivity marks are neither an object nor a boolean/);
    expect(message).not.toContain(SECRET);
  });

  it('resource_drift entries are read by the same rules (drift reads them)', () => {
    expect(plan({ resource_drift: [entry('proxyaccount_authorized_ip.x', ['archive'])] })).toThrow(/^cannot read the plan: resource_drift\[0\]/);
  });

  it('a format_version whose major is not 1', () => {
    expect(plan({ format_version: '9.0', resource_changes: 'oops' })).toThrow(
      'not a plan this reader can read: its format_version is "9.0", and only 1.x is understood (a newer Terraform? update proxyaccount)',
    );
    expect(plan({ format_version: '2.0', resource_changes: [] })).toThrow(/format_version is "2\.0"/);
    expect(plan({ format_version: 1.2, resource_changes: [] })).toThrow(/format_version is "1\.2", and only 1\.x/);
    for (const v of ['1.0', '1.2', '1.10']) expect(plan({ format_version: v, resource_changes: [] })).not.toThrow();
  });
});

describe('deferred changes (deferred_changes)', () => {
  const deferred = (reason: string, change: Record<string, unknown>) => ({ reason, resource_change: change });
  const list = {
    address: 'proxyaccount_authorized_ips.parent',
    mode: 'managed',
    type: 'proxyaccount_authorized_ips',
    name: 'parent',
    provider_name: 'registry.terraform.io/proxyaccount/proxyaccount',
    // What a deferred change knows may be nothing at all: its whole value unknown.
    change: { actions: ['create'], before: null, after: null, after_unknown: true },
  };

  it('are listed under their account, with attention, and make the plan one with changes', () => {
    const r = reviewPlan(parsePlanJson({ format_version: '1.2', resource_changes: [], deferred_changes: [deferred('provider_config_unknown', list)] }));
    expect(r.accounts).toEqual([
      {
        account: '(account known after apply)',
        changes: [
          {
            address: 'proxyaccount_authorized_ips.parent',
            type: 'proxyaccount_authorized_ips',
            action: 'deferred',
            description: 'IP list create deferred to a later plan (provider_config_unknown)',
          },
        ],
      },
    ]);
    expect(r.attention).toEqual([
      {
        kind: 'change_deferred',
        address: 'proxyaccount_authorized_ips.parent',
        message:
          "this plan defers the IP list create (Terraform's reason: provider_config_unknown): applying it does not make the change, and the later plan that does needs a review of its own",
      },
    ]);
    expect(hasChanges(r)).toBe(true);
    expect(failsOn(r, 'attention')).toBe(true);
    const md = reviewMarkdown(r);
    expect(md).not.toContain('No changes.');
    expect(md).toContain('**Plan:** 0 to add, 0 to change, 0 to destroy, 1 deferred to a later plan.');
  });

  it("name their account when the plan knows it; other providers' are listed with the other resources", () => {
    const known = {
      ...list,
      change: { actions: ['update'], before: { username: 'alice', entries: [] }, after: { username: 'alice' }, after_unknown: { entries: true } },
    };
    const other = { ...list, address: 'terraform_data.x', type: 'terraform_data', provider_name: 'terraform.io/builtin/terraform' };
    const r = reviewPlan(
      parsePlanJson({ deferred_changes: [deferred('deferred_prereq', known), deferred('resource_config_unknown', other)], resource_changes: [] }),
    );
    expect(r.accounts.map((a) => a.account)).toEqual(['alice']);
    expect(r.other_resources).toEqual(['terraform_data.x']);
  });

  it('an entry it cannot read is refused like any other', () => {
    expect(plan({ deferred_changes: [{ reason: 'x' }] })).toThrow(/^cannot read the plan: deferred_changes\[0\]: it has no resource_change object/);
    expect(plan({ deferred_changes: [deferred('x', { ...list, change: { ...list.change, actions: ['defer'] } })] })).toThrow(
      /deferred_changes\[0\] \("proxyaccount_authorized_ips\.parent"\): its actions "defer"/,
    );
  });
});

/** A real plan's JSON (terraform 1.11.4 against the emulator), from fixtures/. */
function fixture(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', `${name}.plan.json`), 'utf8')) as Record<string, unknown>;
}

describe("Terraform's verdict on the plan (errored, applyable, complete)", () => {
  // `terraform plan -out` exited 1 (a new IP's precondition failed) and still wrote the plan file:
  // the IP is missing from resource_changes, every other entry is a no-op.
  const errored = fixture('errored');

  it('a plan whose planning failed is refused as incomplete, never reviewed as "No changes"', () => {
    expect(errored).toEqual(expect.objectContaining({ errored: true, applyable: false, complete: false }));
    // What the review made of it before: nothing to apply.
    expect(hasChanges(reviewPlan(parsePlanJson({ ...errored, errored: undefined, applyable: undefined })))).toBe(false);
    let message = '';
    try {
      parsePlanJson(errored);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^the plan is incomplete because planning failed: .*marks it errored.*Fix the errors `terraform plan` reported, then plan again$/);
    // Nothing of the plan's values: its sensitive variable, its tokens.
    expect(message).not.toMatch(/secret-note|pxa_/);
  });

  it('is read only for a caller that asks for it (drift), which then knows it is errored and incomplete', () => {
    const p = parsePlanJson(errored, { errored: 'read' });
    expect(p).toEqual(expect.objectContaining({ errored: true, complete: false }));
    expect(p.changes.length).toBeGreaterThan(0);
  });

  it('flags that are not true or false are refused', () => {
    for (const key of ['errored', 'applyable', 'complete']) {
      expect(plan({ resource_changes: [], [key]: 'false' })).toThrow(new RegExp(`^not a plan this reader can read: its ${key} is neither true nor false$`));
    }
  });

  it('a plan marked not applyable (nothing to apply) that lists a change contradicts itself: refused, as Terraform refuses to apply it', () => {
    expect(plan({ applyable: false, errored: false, resource_changes: [entry('proxyaccount_authorized_ip.x', ['update'])] })).toThrow(
      /^cannot read the plan: it is marked not applyable \(nothing to apply\), yet resource_changes holds a change \("proxyaccount_authorized_ip\.x"\)/,
    );
    // Not applyable and no change but no-ops: Terraform's "No changes", which the review agrees with.
    const r = reviewPlan(parsePlanJson({ format_version: '1.2', applyable: false, errored: false, resource_changes: [entry('a.b', ['no-op'])] }));
    expect(hasChanges(r)).toBe(false);
  });

  it('a plan made with -target (complete: false, nothing deferred) says it plans the targets only', () => {
    const r = reviewPlan(parsePlanJson(fixture('target')));
    expect(r.incomplete).toBe(
      'Terraform marks this plan incomplete: it was made with -target, so it plans only the targeted resources and what they depend on. ' +
        'Applying it leaves the rest of the code for a later plan, which needs a review of its own.',
    );
    expect(r.summary.add).toBe(1);
    expect(reviewMarkdown(r)).toContain(`\n**⚠️ ${r.incomplete}**\n`);
    // A complete plan says nothing of the kind.
    const whole = reviewPlan(parsePlanJson({ ...fixture('target'), complete: true }));
    expect(whole.incomplete).toBeUndefined();
    expect(reviewMarkdown(whole)).not.toContain('incomplete');
  });

  it('a plan incomplete because it defers changes says so, the changes listed with attention', () => {
    const list = {
      address: 'proxyaccount_authorized_ips.parent',
      mode: 'managed',
      type: 'proxyaccount_authorized_ips',
      change: { actions: ['create'], before: null, after: null, after_unknown: true },
    };
    const r = reviewPlan(parsePlanJson({ complete: false, resource_changes: [], deferred_changes: [{ reason: 'deferred_prereq', resource_change: list }] }));
    expect(r.incomplete).toMatch(/^Terraform marks this plan incomplete: it defers changes to a later plan \(listed below\)\./);
    expect(r.attention.map((a) => a.kind)).toEqual(['change_deferred']);
  });
});
