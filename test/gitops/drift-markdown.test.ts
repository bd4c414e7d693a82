// The Markdown drift report fits a size limit whatever the account holds (GitHub refuses an issue
// body over 65,536 characters, and the CI template files the report as one): each section keeps
// its count, a list that does not fit ends with how many more there are, what was not checked and
// the limits are shown first, and a caller can ask for less. The report is filed as a public
// issue: text from the plan or the account never shapes it nor mentions anyone.
import { driftReport, type UnmanagedObject } from '../../src/gitops/drift';
import { DRIFT_MARKDOWN_LIMIT, driftMarkdown, MIN_DRIFT_MARKDOWN_LIMIT } from '../../src/gitops/drift-render';
import { codeSpans, GITHUB_LINKS, GITLAB_REFERENCES } from './code-spans';

/** `n` unmanaged IPs in each of `accounts` sub-accounts, each with a 100-character label. */
function ips(accounts: number, n: number): UnmanagedObject[] {
  const out: UnmanagedObject[] = [];
  for (let a = 1; a <= accounts; a++)
    for (let i = 1; i <= n; i++) out.push({ account: `big${a}`, kind: 'ip', value: `10.${a}.0.${i}`, label: 'x'.repeat(100) });
  return out;
}

/** How many items a section shows, and the count its "… N more" line gives (0 without one). */
function shownAndMore(md: string, title: string): { shown: number; more: number } {
  const section = md.split('\n### ').find((s) => s.startsWith(title)) ?? '';
  const lines = section.split('\n').filter((l) => l.startsWith('- '));
  const more = /^- _… (\d+) more, see the JSON report/.exec(lines.at(-1) ?? '');
  return { shown: lines.length - (more ? 1 : 0), more: more ? Number(more[1]) : 0 };
}

describe('the Markdown drift report', () => {
  const big = driftReport({
    changed: [],
    deleted: [],
    pending: [],
    unmanaged: ips(5, 100),
    expired: [],
    leftovers: [],
    scanned: true,
    scope: { provider: 'proxyaccount', confirmed: true, notScanned: [{ provider: 'proxyaccount.other', resources: 2 }] },
    incomplete: ["the tokens of sub-account 'big3' could not be listed (402)"],
  });

  it("stays within GitHub's limit, counting what it leaves out, and shows what was not checked and the limits", () => {
    const md = driftMarkdown(big);
    expect(DRIFT_MARKDOWN_LIMIT).toBe(65_536);
    expect(md.length).toBeLessThanOrEqual(65_536);
    expect(md).toContain('### Not managed by any resource (500)');
    const { shown, more } = shownAndMore(md, 'Not managed by any resource');
    expect(more).toBeGreaterThan(0);
    expect(shown + more).toBe(500);
    expect(md).toContain("- the tokens of sub-account 'big3' could not be listed (402)");
    expect(md).toContain('- 2 resources of provider configuration proxyaccount.other: its account was not scanned');
    expect(shownAndMore(md, 'Limits').more).toBe(0);
  });

  it('fits a smaller limit a caller asks for, every section still titled with its count', () => {
    const md = driftMarkdown(big, 5_000);
    expect(md.length).toBeLessThanOrEqual(5_000);
    expect(md).toContain('**The account differs from the code.**');
    expect(md).toContain('### Not managed by any resource (500)');
    expect(md).toContain('### Not checked (2)');
    const { shown, more } = shownAndMore(md, 'Not managed by any resource');
    expect(shown + more).toBe(500);
  });

  it('fits even when every section is huge, down to the smallest limit', () => {
    const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
    const huge = driftReport({
      changed: many(2_000, (i) => i).map((i) => ({ address: `proxyaccount_sub_account.s${i}`, attribute: 'monthly_limit', recorded: i, live: i + 1 })),
      deleted: many(2_000, (i) => `proxyaccount_authorized_ip.d${i}`).map((address) => ({ address, type: 'proxyaccount_authorized_ip' })),
      pending: many(2_000, (i) => `proxyaccount_authorized_ip.p${i}`).map((address) => ({
        address,
        type: 'proxyaccount_authorized_ip',
        kind: 'create' as const,
        description: `+IP ${address}`,
        deferred: false,
      })),
      unmanaged: ips(20, 200),
      expired: many(2_000, (i) => i).map((i) => ({
        account: '(parent)',
        token_id: i,
        label: 'l'.repeat(200),
        expired_at: '2026-01-01T00:00:00.000Z',
        managed: false,
      })),
      leftovers: ips(10, 200),
      scanned: true,
      scope: { provider: 'proxyaccount', confirmed: true, notScanned: many(50, (i) => `proxyaccount.a${i}`).map((provider) => ({ provider, resources: 3 })) },
      incomplete: many(500, (i) => `the tokens of sub-account 's${i}' could not be listed (402 Payment Required)`),
    });
    for (const limit of [MIN_DRIFT_MARKDOWN_LIMIT, 10_000, DRIFT_MARKDOWN_LIMIT]) {
      const md = driftMarkdown(huge, limit);
      expect(md.length).toBeLessThanOrEqual(limit);
      for (const title of ['Changed outside Terraform (2000)', 'Not in the account (2000)', 'Not managed by any resource (4000)', 'Not checked (550)']) {
        expect(md).toContain(`### ${title}`);
      }
    }
  });

  it('a cut list names the JSON report the same run wrote beside it, not one nobody kept (finding: pointer to nothing)', () => {
    const md = driftMarkdown(big, 5_000, { jsonFile: 'drift.json' });
    expect(md).toMatch(/\n- _… \d+ more, see the JSON report `drift\.json`\._\n/);
    expect(md).not.toContain('--format json');
    expect(driftMarkdown(big, 5_000)).toMatch(/\n- _… \d+ more, see the JSON report \(`--format json`\)\._\n/);
  });

  it('refuses a limit too small to hold the verdict and the section titles', () => {
    expect(() => driftMarkdown(big, MIN_DRIFT_MARKDOWN_LIMIT - 1)).toThrow(RangeError);
    expect(() => driftMarkdown(big, 5_000.5)).toThrow(/a whole number of characters, at least 4000/);
  });
});

describe('text from the plan or the account in the drift report', () => {
  // The key of the review that found it, in a drift report: a single-backtick code span closed by
  // the key's backtick, and the raw <details> collapsed the entry behind a summary of the key's choosing.
  const key = (type: string): string => `${type}.odd["\` <details><summary>approved by @security-team</summary> \`"]`;
  const user = '@security-team\n## Approved';
  const report = driftReport({
    changed: [{ address: key('proxyaccount_sub_account'), attribute: 'first_name', recorded: 'Ann', live: 'line\n# one `x` @ops' }],
    deleted: [{ address: key('proxyaccount_authorized_ip'), type: 'proxyaccount_authorized_ip', reason: `sub-account '${user}' was not found` }],
    pending: [
      {
        address: key('proxyaccount_authorized_hostname'),
        type: 'proxyaccount_authorized_hostname',
        kind: 'create',
        description: '+hostname #12',
        deferred: false,
      },
    ],
    unmanaged: [{ account: user, kind: 'ip', value: '192.0.2.9', label: '<img src=x> @octocat #7' }],
    expired: [{ account: user, token_id: 3, label: 'deploy', expired_at: '2026-01-01T00:00:00.000Z', managed: true }],
    leftovers: [],
    scanned: true,
    scope: { provider: 'proxyaccount', confirmed: true, notScanned: [] },
    incomplete: [`the tokens of sub-account '${user}' could not be listed`],
  });
  const md = driftMarkdown(report);
  const items = md.split('\n').filter((l) => l.startsWith('- '));

  it('addresses are shown literally, in code spans their backticks cannot close', () => {
    for (const type of ['proxyaccount_sub_account', 'proxyaccount_authorized_ip', 'proxyaccount_authorized_hostname']) {
      const line = items.find((l) => l.includes(`${type}.odd`));
      expect(line).toBeDefined();
      expect(codeSpans(line!).spans).toContain(key(type));
    }
  });

  it('no HTML, heading, mention or reference outside code, and every item on its own line', () => {
    const { text } = codeSpans(md);
    expect(text).not.toMatch(/<details>|<summary>|<img/);
    expect(text).not.toMatch(GITHUB_LINKS);
    expect(text).not.toMatch(GITLAB_REFERENCES);
    expect(md).not.toMatch(/^#{1,2} (Approved|one)/m);
    // The username, in each of its four items, and the changed value stay on their item's line.
    const shown = '@\u200bsecurity-team\\\\n## Approved'; // the line break as the two characters \n, escaped
    expect(items.filter((l) => l.includes(shown))).toHaveLength(4);
    expect(items).toContain(`- ${shown}: ip \`192.0.2.9\` (label \`<img src=x> @octocat #7\`)`);
    expect(items.find((l) => l.includes('first'))).toMatch(/: `first_name` `Ann` → ``line\\n# one `x` @ops``$/);
  });
});
