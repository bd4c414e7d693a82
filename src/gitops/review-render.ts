// A review as Markdown for a pull-request comment (GitHub takes at most 65,536 characters), or as
// JSON. Large accounts collapse into <details>; what does not fit is cut with an honest count.
// Text from the plan (addresses, usernames, labels, hostnames) never shapes the comment: addresses
// are code, the rest is escaped, and neither mentions nor references anyone.
import { codeSpan, escapeHtml, escapeMarkdown } from './markdown';
import type { Review } from './review';

/** GitHub's limit on one comment's body. */
export const COMMENT_LIMIT = 65_536;
/** Accounts with more changes than this are collapsed. */
const COLLAPSE_OVER = 8;
/** The marker a CI job finds its own (sticky) comment by. */
export const REVIEW_MARKER = '<!-- proxyaccount-review -->';

/** What applying a refresh-only plan (or a normal one with only drift) does, under its counts. */
const REFRESH_ONLY =
  '**⚠️ A plan that changes nothing in the account (a refresh-only plan, or one whose code declares nothing that changed): applying it makes the state accept the changes made outside Terraform listed below, ' +
  'after which drift no longer reports them. An object deleted outside Terraform is forgotten; where the code still declares what changed, the next plan changes it back.**';

/** What applying a normal plan that keeps changes made outside Terraform does, under its counts. */
const KEPT_OUTSIDE =
  '**⚠️ This plan does not change back the changes made outside Terraform listed below as kept by it (ignore_changes, or code that already matches): ' +
  'applying it makes the state accept them, after which a refresh no longer shows them as changed outside Terraform (drift still reports an IP or hostname a list keeps that its code does not declare).**';

/** The review as stable, documented JSON. */
export function reviewJson(r: Review): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

/** The review as Markdown, at most `limit` characters. */
export function reviewMarkdown(r: Review, limit = COMMENT_LIMIT): string {
  const s = r.summary;
  const deferred = r.accounts.reduce((n, a) => n + a.changes.filter((c) => c.action === 'deferred').length, 0);
  const outside = r.accounts.reduce((n, a) => n + a.changes.filter((c) => c.action === 'deleted_outside' || c.action === 'changed_outside').length, 0);
  const head = [
    REVIEW_MARKER,
    '## proxyaccount plan review',
    '',
    `**Plan:** ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy` +
      `${s.replace > 0 ? ` (${s.replace} replaced)` : ''}${s.import > 0 ? `, ${s.import} to import` : ''}` +
      `${s.forget > 0 ? `, ${s.forget} no longer managed` : ''}${deferred > 0 ? `, ${deferred} deferred to a later plan` : ''}` +
      `${r.refresh_only !== true && outside === 0 ? '' : `${r.refresh_only === true ? '; refresh-only:' : ';'} it accepts ${outside} change${outside === 1 ? '' : 's'} made outside Terraform into the state`}.`,
    '',
    ...(r.incomplete === undefined ? [] : [`**⚠️ ${escapeMarkdown(r.incomplete)}**`, '']),
    ...(r.refresh_only === true ? [REFRESH_ONLY, ''] : outside > 0 ? [KEPT_OUTSIDE, ''] : []),
  ];
  const attention = r.attention.map((a) => `- **${a.kind}** ${codeSpan(a.address)}: ${escapeMarkdown(a.message)}`);
  const sections: string[][] = r.accounts.map(({ account, changes }) => {
    const lines = changes.map((c) => `- ${escapeMarkdown(c.description)} — ${codeSpan(c.address)}`);
    const title = `${account} — ${changes.length} change${changes.length === 1 ? '' : 's'}`;
    return changes.length > COLLAPSE_OVER
      ? [`<details><summary><b>${escapeHtml(title)}</b></summary>`, '', ...lines, '', '</details>', '']
      : [`### ${escapeMarkdown(title)}`, '', ...lines, ''];
  });
  const other =
    r.other_resources.length === 0 ? [] : [`### Other resources (${r.other_resources.length})`, '', ...r.other_resources.map((a) => `- ${codeSpan(a)}`), ''];
  if (r.accounts.length === 0 && r.other_resources.length === 0) return [...head, 'No changes.', ''].join('\n');
  return fitToLimit(head, attention, [...sections, other], limit);
}

/** The attention heading: a cut list says so in its heading too, so that it never reads as complete. */
function attentionHeading(shown: number, total: number): string {
  return shown === total ? '### ⚠️ Needs attention' : `### ⚠️ Needs attention (${total - shown} of ${total} not shown: cut to fit one comment)`;
}

/** The note at the end of a cut comment, counting the attention items and the change lines left out. */
function cutNote(attention: { shown: number; total: number }, changes: { shown: number; total: number }): string {
  const missing = [
    ...(attention.shown < attention.total ? [`${attention.total - attention.shown} of ${attention.total} items needing attention`] : []),
    `${changes.total - changes.shown} of ${changes.total} changes`,
  ];
  return (
    `_Cut to fit one comment: ${missing.join(' and ')} are not shown. ` +
    'Run `proxyaccount review` locally, or read its `--format json` output (never cut), for the rest._'
  );
}

/**
 * Keeps `head` whole, then the attention items, then the sections' lines, in order, while they fit;
 * at the first line that does not fit it stops (a later, shorter line would read as if the list
 * went on), closes an open `<details>`, and counts what is not shown: attention items and change
 * lines apart, since a missing attention item is what a reviewer must not miss.
 */
function fitToLimit(head: string[], attention: string[], sections: string[][], limit: number): string {
  const changes = { shown: 0, total: sections.reduce((n, s) => n + s.filter((l) => l.startsWith('- ')).length, 0) };
  const risks = { shown: 0, total: attention.length };
  // Room for the longest note and heading this review can need, so that they always fit.
  const reserve = cutNote({ shown: 0, total: risks.total }, { shown: 0, total: changes.total }).length + '\n</details>\n\n\n'.length;
  const out: string[] = [];
  let size = 0;
  const push = (line: string): boolean => {
    if (size + line.length + 1 > limit - reserve) return false;
    out.push(line);
    size += line.length + 1;
    return true;
  };
  const fits = (lines: readonly string[], onLine: (line: string) => void = () => undefined): boolean =>
    lines.every((line) => {
      if (!push(line)) return false;
      onLine(line);
      return true;
    });
  let whole = fits(head);
  if (whole && risks.total === 0) whole = fits(['No change needs particular attention.', '']);
  else if (whole) {
    const heading = out.length;
    // The cut heading is the longer one: placed first, it keeps room for whichever is needed.
    whole = push(attentionHeading(0, risks.total)) && push('') && fits(attention, () => risks.shown++) && push('');
    if (out.length > heading) out[heading] = attentionHeading(risks.shown, risks.total);
  }
  for (const section of sections) {
    if (!whole) break;
    whole = fits(section, (line) => {
      if (line.startsWith('- ')) changes.shown++;
    });
  }
  if (!whole) {
    if (out.filter((l) => l.startsWith('<details>')).length > out.filter((l) => l === '</details>').length) out.push('</details>');
    out.push('', cutNote(risks, changes));
  }
  return `${out.join('\n')}\n`;
}
