// The demo's plan summaries: what they show of a change, and that secrets in the plan's JSON
// (which Terraform writes in clear) never reach them: they read plans through plan-json.ts, the one
// plan reader, whose one secrets rule covers password_wo_version too.
import { parsePlanJson as parsePlan } from '../../src/gitops/plan-json';
import { countChanges, describeChanges, describeDrift } from '../../src/gitops/plan-summary';

const SECRET = 'pxa_s3cr3tV4lu3ThatMustNeverBePrinted000000000';

function change(type: string, actions: string[], before: unknown, after: unknown, extra: Record<string, unknown> = {}): unknown {
  return { address: `${type}.x`, type, change: { actions, before, after, ...extra } };
}

describe('demo plan report', () => {
  it('describes creations by account, with limits, lists and token expiry', () => {
    const plan = parsePlan({
      resource_changes: [
        change('proxyaccount_bearer_token', ['create'], null, { username: 'ada', label: 'laptop', expires_at: '2030-06-30', token: SECRET }),
        change('proxyaccount_sub_account', ['create'], null, { username: 'ada', monthly_limit: 120, total_limit: 0, active: false }),
        change('proxyaccount_authorized_ips', ['create'], null, {
          username: 'ada',
          entries: [
            { ip: '203.0.113.7', label: 'office' },
            { ip: '198.51.100.1', label: null },
          ],
        }),
        change('proxyaccount_sub_account', ['no-op'], { username: 'bob' }, { username: 'bob' }),
      ],
    });
    const lines = describeChanges(plan);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\+\s+proxyaccount_sub_account\s+ada\s+monthly 120 GB, total unlimited, inactive$/);
    expect(lines[1]).toMatch(/proxyaccount_authorized_ips\s+ada\s+203\.0\.113\.7 \(office\), 198\.51\.100\.1$/);
    expect(lines[2]).toMatch(/proxyaccount_bearer_token\s+ada \/ "laptop"\s+expires 2030-06-30$/);
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('says a forgotten object goes with the sub-account the same plan deletes, and stays otherwise', () => {
    const forget = (username: string, ip: string): unknown => ({
      address: `proxyaccount_authorized_ip.${username}`,
      type: 'proxyaccount_authorized_ip',
      change: { actions: ['forget'], before: { username, ip, label: null }, after: null },
    });
    const plan = parsePlan({
      resource_changes: [
        change('proxyaccount_sub_account', ['delete'], { username: 'bob' }, null),
        forget('bob', '198.51.100.13'),
        forget('ada', '198.51.100.14'),
      ],
    });
    const lines = describeChanges(plan);
    expect(lines).toEqual([
      expect.stringMatching(/^\.\s+proxyaccount_authorized_ip\s+ada\s+.*\(no longer managed: it stays in the account\)$/),
      expect.stringMatching(/^-\s+proxyaccount_sub_account\s+bob/),
      expect.stringMatching(/^\.\s+proxyaccount_authorized_ip\s+bob\s+.*\(no longer managed: deleted with its sub-account, which this plan deletes\)$/),
    ]);
  });

  it('shows what drifted, attribute by attribute, and list entries added or removed', () => {
    const plan = parsePlan({
      resource_drift: [
        change('proxyaccount_sub_account', ['update'], { username: 'eu', monthly_limit: 200 }, { username: 'eu', monthly_limit: 225 }),
        change(
          'proxyaccount_authorized_ips',
          ['update'],
          { username: 'ada', entries: [{ ip: '203.0.113.7', label: 'office' }] },
          {
            username: 'ada',
            entries: [
              { ip: '203.0.113.7', label: 'office' },
              { ip: '203.0.113.254', label: 'dashboard' },
            ],
          },
        ),
      ],
    });
    // Sorted by account, whatever the plan's order.
    expect(describeDrift(plan)).toEqual([
      expect.stringMatching(/~\s+proxyaccount_authorized_ips\s+ada\s+entries: \+203\.0\.113\.254 \(dashboard\)$/),
      expect.stringMatching(/~\s+proxyaccount_sub_account\s+eu\s+monthly_limit: 200 → 225$/),
    ]);
  });

  it('never shows sensitive attributes, whether Terraform marks them or not', () => {
    const plan = parsePlan({
      resource_changes: [
        change(
          'proxyaccount_bearer_token',
          ['update'],
          { username: 'ada', label: 'ci', token: `${SECRET}1`, active: false },
          {
            username: 'ada',
            label: 'ci',
            token: `${SECRET}2`,
            active: true,
          },
        ),
        // Unmarked, but a password all the same; and its write-only version, which says when it changed.
        change(
          'proxyaccount_sub_account',
          ['update'],
          { username: 'ada', password: `${SECRET}3`, password_wo_version: `${SECRET}7` },
          { username: 'ada', password: `${SECRET}4`, password_wo_version: `${SECRET}8` },
        ),
        // Marked sensitive by the configuration (a sensitive variable), partly within a list.
        change(
          'proxyaccount_authorized_ips',
          ['update'],
          { username: 'ada', entries: [{ ip: '192.0.2.1', label: `${SECRET}5` }] },
          {
            username: 'ada',
            entries: [{ ip: '192.0.2.1', label: `${SECRET}6` }],
          },
          { after_sensitive: { entries: [{ label: true }] } },
        ),
      ],
    });
    const text = describeChanges(plan).join('\n');
    expect(text).toContain('active: false → true');
    expect(text).not.toContain(SECRET);
  });

  it('counts a replacement as one to add and one to destroy, like terraform', () => {
    const plan = parsePlan({
      resource_changes: [
        change('proxyaccount_bearer_token', ['delete', 'create'], { label: 'a' }, { label: 'b' }),
        change('proxyaccount_sub_account', ['update'], { username: 'a', active: true }, { username: 'a', active: false }),
        change('proxyaccount_sub_account', ['delete'], { username: 'b' }, null),
      ],
    });
    expect(countChanges(plan)).toEqual({ add: 1, change: 1, destroy: 2 });
    expect(describeChanges(plan).map((l) => l.split(/\s+/)[0])).toEqual(['-/+', '~', '-']);
  });

  it('refuses output that is not a plan object', () => {
    expect(() => parsePlan('not json')).toThrow('not a Terraform plan in JSON form');
  });
});
