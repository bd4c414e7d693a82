import { reviewMarkdown } from '../../src/gitops/review-render';
import { codeSpans, GITHUB_LINKS, GITLAB_REFERENCES } from './code-spans';
import { review } from './plan-changes';

function ip(name: string, after: Record<string, unknown>): unknown {
  return {
    address: name.includes('.') ? name : `proxyaccount_authorized_ip.${name}`,
    mode: 'managed',
    type: 'proxyaccount_authorized_ip',
    provider_name: 'registry.terraform.io/proxyaccount/proxyaccount',
    change: { actions: ['create'], before: null, after: { label: null, username: null, ...after }, after_unknown: { id: true } },
  };
}

describe('text from the plan in the Markdown', () => {
  // The key of the review that found it: the backtick closed a single-backtick code span, and the
  // raw <details> collapsed the risk behind a summary the pull request's author chose.
  const address = 'proxyaccount_authorized_ip.x["` <details><summary>approved by @security-team</summary> `"]';

  it('an address is shown literally, in a code span its backticks cannot close, with no HTML or mention outside it', () => {
    const md = reviewMarkdown(review(ip(address, { ip: '203.0.113.66' })));
    const lines = md.split('\n').filter((l) => l.includes('approved by'));
    expect(lines).toHaveLength(2); // the attention item and the change line
    for (const line of lines) {
      const { spans, text } = codeSpans(line);
      expect(spans).toContain(address);
      expect(text).not.toMatch(/<details>|<summary>|@security-team/);
    }
    expect(lines[0]).toMatch(/^- \*\*parent_access_opened\*\* `{2}.*`{2}: IP 203\.0\.113\.66 may use the parent account's proxies without credentials$/);
  });

  it('an address that starts or ends with a backtick keeps it', () => {
    const odd = 'proxyaccount_authorized_ip.y["a"]`';
    const md = reviewMarkdown(review(ip(odd, { ip: '203.0.113.67' })));
    const line = md.split('\n').find((l) => l.startsWith('- **parent_access_opened**'))!;
    expect(codeSpans(line).spans).toEqual([odd]);
  });

  it('labels, usernames and hostnames: no mention, no reference, no HTML, no new line', () => {
    const label = '@octocat see #12 <img src=x onerror=alert(1)> & *bold*\n# Approved';
    const r = review(ip('a', { ip: '198.51.100.1', label, username: 'team@example' }));
    const md = reviewMarkdown(r);
    const { text } = codeSpans(md);
    expect(text).not.toMatch(GITHUB_LINKS); // GitHub links @name (and notifies) only right after the sign, nor #12 as a cross-reference
    expect(text).not.toContain('<img');
    expect(text).not.toMatch(/^# Approved/m);
    expect(md).toContain('@\u200boctocat see #\u200b12 &lt;img src=x onerror=alert(1)&gt; &amp; \\*bold\\*\\\\n# Approved');
    // An @ inside a word is no mention: the username copies as it reads.
    expect(md).toContain('### team@example — 1 change');
  });

  it('a zero-width space only where a forge would see a mention or a reference: usernames and emails copy as they read', () => {
    const label = 'ops@example.com, first.last@x.io, a_b@c, (@ops) x.@team -@dev @@lead, order#12 #7, see acme/infra#3, a@b#4';
    const md = reviewMarkdown(review(ip('a', { ip: '198.51.100.2', label, username: 'team.a@x' })));
    expect(codeSpans(md).text).not.toMatch(GITHUB_LINKS);
    expect(md).toContain('### team.a@x — 1 change');
    expect(md).toContain(
      '(ops@example.com, first.last@x.io, a\\_b@c, (@\u200bops) x.@\u200bteam -@\u200bdev @\u200b@\u200blead, order#\u200b12 #\u200b7, see acme/infra#\u200b3, a@b#\u200b4)',
    );
  });

  it('no GitLab reference either: a merge request, snippet, epic, milestone or label named in a label stays text (finding: the templates post the same review as a GitLab note)', () => {
    const label =
      'see !1 and $3 and &4 and %v1 and %"Q3 plan" and ~bug and ~"needs review" and infra!7 and group/proj#2 and ~-x and %.y and [work_item:12] and *iteration:3, not 100% or 5 & 6 or a!b';
    const md = reviewMarkdown(review(ip('a', { ip: '198.51.100.4', label })));
    const { text } = codeSpans(md);
    expect(text).not.toMatch(GITLAB_REFERENCES);
    expect(text).not.toMatch(GITHUB_LINKS);
    expect(md).toContain(
      'see !\u200b1 and $\u200b3 and &amp;\u200b4 and %\u200bv1 and %\u200b"Q3 plan" and \\~\u200bbug and \\~\u200b"needs review" and infra!\u200b7 and group/proj#\u200b2 and \\~\u200b-x and %\u200b.y and \\[\u200bwork\\_item:12\\] and \\*\u200biteration:3, not 100% or 5 &amp; 6 or a!b',
    );
  });

  it('no issue reference by GH-, and no link from a URL or www. in a label: text from the dashboard must not put a link before a reviewer', () => {
    const label = 'GH-7 gh-8 see https://github.com/o/r/issues/9 HTTP://evil.example/x (www.evil.example) ftp://f.example, not myGH-1 or x.www.y';
    const md = reviewMarkdown(review(ip('a', { ip: '198.51.100.3', label })));
    expect(codeSpans(md).text).not.toMatch(GITHUB_LINKS);
    expect(md).toContain(
      'GH-\u200b7 gh-\u200b8 see https\u200b://github.com/o/r/issues/9 HTTP\u200b://evil.example/x (www\u200b.evil.example) ftp\u200b://f.example, not myGH-1 or x.www.y',
    );
  });

  it('a collapsed account names it in HTML, escaped as HTML (Markdown escapes would show there as written)', () => {
    const many = Array.from({ length: 9 }, (_, i) => ip(`m${i}`, { ip: `192.0.2.${i}`, username: 'a_b<i>@x' }));
    const md = reviewMarkdown(review(...many));
    expect(md).toContain('<details><summary><b>a_b&lt;i&gt;@\u200bx — 9 changes</b></summary>');
  });
});

describe('a review too long for one comment', () => {
  // 100 IPs opening the parent: 100 attention items and 100 change lines.
  const r = review(...Array.from({ length: 100 }, (_, i) => ip(`ip${i}`, { ip: `10.0.0.${i}`, label: 'l'.repeat(40) })));

  it('counts the attention items it leaves out, in the heading and in the note, apart from the change lines', () => {
    const md = reviewMarkdown(r, 6000);
    expect(md.length).toBeLessThanOrEqual(6000);
    const shown = md.split('\n').filter((l) => l.startsWith('- **parent_access_opened**')).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(100);
    expect(md).toContain(`### ⚠️ Needs attention (${100 - shown} of 100 not shown: cut to fit one comment)`);
    expect(md).toContain(`_Cut to fit one comment: ${100 - shown} of 100 items needing attention and 100 of 100 changes are not shown.`);
    expect(md).toContain('`--format json` output (never cut)');
  });

  it('stops at the first line that does not fit: a later, shorter one is not shown out of order', () => {
    const long = ip('long', { ip: '10.1.0.1', label: 'x'.repeat(400) });
    const short = ip('short', { ip: '10.1.0.2' });
    const fill = Array.from({ length: 20 }, (_, i) => ip(`f${i}`, { ip: `10.2.0.${i}`, label: 'l'.repeat(40) }));
    const full = reviewMarkdown(review(...fill, long, short));
    // A limit at which the long item does not fit, and the short one after it would.
    const upToLong = full.indexOf('proxyaccount_authorized_ip.long');
    const limit = upToLong + 250 + 300;
    const md = reviewMarkdown(review(...fill, long, short), limit);
    expect(md).not.toContain('proxyaccount_authorized_ip.long');
    expect(md).not.toContain('proxyaccount_authorized_ip.short');
    expect(md).toContain('### ⚠️ Needs attention (2 of 22 not shown: cut to fit one comment)');
  });

  it('with every attention item shown, the heading reads as complete and the note counts the changes', () => {
    const full = reviewMarkdown(r);
    const md = reviewMarkdown(r, full.indexOf('<details>') + 2000);
    expect(md).toContain('### ⚠️ Needs attention\n');
    expect(md).toMatch(/_Cut to fit one comment: \d+ of 100 changes are not shown\./);
    expect(md).not.toContain('items needing attention');
  });

  it('whole when it fits: no note', () => {
    const md = reviewMarkdown(r);
    expect(md).not.toContain('Cut to fit');
    expect(md.split('\n').filter((l) => l.startsWith('- ')).length).toBe(200);
  });
});
