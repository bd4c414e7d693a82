// A review as Markdown for a pull-request comment (GitHub takes at most 65,536 characters), or as
// JSON. Large accounts collapse into <details>; what does not fit is cut with an honest count.
import type { Review } from './review';

/** GitHub's limit on one comment's body. */
export const COMMENT_LIMIT = 65_536;
/** Accounts with more changes than this are collapsed. */
const COLLAPSE_OVER = 8;
/** The marker a CI job finds its own (sticky) comment by. */
export const REVIEW_MARKER = '<!-- proxyaccount-review -->';

/** The review as stable, documented JSON. */
export function reviewJson(r: Review): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

/** The review as Markdown, at most `limit` characters. */
export function reviewMarkdown(r: Review, limit = COMMENT_LIMIT): string {
  const s = r.summary;
  const head = [
    REVIEW_MARKER,
    '## proxyaccount plan review',
    '',
    `**Plan:** ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy` +
      `${s.replace > 0 ? ` (${s.replace} replaced)` : ''}${s.import > 0 ? `, ${s.import} to import` : ''}` +
      `${s.forget > 0 ? `, ${s.forget} no longer managed` : ''}.`,
    '',
  ];
  const attention =
    r.attention.length === 0
      ? ['No change needs particular attention.', '']
      : ['### ⚠️ Needs attention', '', ...r.attention.map((a) => `- **${a.kind}** \`${a.address}\`: ${escapeMarkdown(a.message)}`), ''];
  const sections: string[][] = r.accounts.map(({ account, changes }) => {
    const lines = changes.map((c) => `- ${escapeMarkdown(c.description)} — \`${c.address}\``);
    const title = `${account} — ${changes.length} change${changes.length === 1 ? '' : 's'}`;
    return changes.length > COLLAPSE_OVER
      ? [`<details><summary><b>${escapeMarkdown(title)}</b></summary>`, '', ...lines, '', '</details>', '']
      : [`### ${escapeMarkdown(title)}`, '', ...lines, ''];
  });
  const other =
    r.other_resources.length === 0 ? [] : [`### Other resources (${r.other_resources.length})`, '', ...r.other_resources.map((a) => `- \`${a}\``), ''];
  if (r.accounts.length === 0 && r.other_resources.length === 0) return [...head, 'No changes.', ''].join('\n');
  return fitToLimit([...head, ...attention], [...sections, other], limit);
}

/** Keeps `head` whole (cut with a count if it alone is too long), then whole lines while they fit. */
function fitToLimit(head: string[], sections: string[][], limit: number): string {
  const total = sections.reduce((n, s) => n + s.filter((l) => l.startsWith('- ')).length, 0);
  const reserve = 200;
  const out: string[] = [];
  let size = 0;
  const push = (line: string): boolean => {
    if (size + line.length + 1 > limit - reserve) return false;
    out.push(line);
    size += line.length + 1;
    return true;
  };
  let shown = 0;
  let cut = false;
  for (const line of head) if (!push(line)) cut = true;
  for (const section of sections) {
    for (const line of section) {
      if (cut) break;
      if (!push(line)) {
        cut = true;
        break;
      }
      if (line.startsWith('- ')) shown++;
    }
  }
  if (cut) {
    if (out.some((l) => l.startsWith('<details>')) && out.filter((l) => l.startsWith('<details>')).length > out.filter((l) => l === '</details>').length)
      out.push('</details>');
    out.push(
      '',
      `_Cut to fit one comment: ${total - shown} of ${total} changes are not shown. Run \`proxyaccount review\` locally or read the plan for the rest._`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** Keeps Markdown and HTML in values from changing the comment's structure. */
function escapeMarkdown(s: string): string {
  return s.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;')).replace(/([\\`*_[\]])/g, '\\$1');
}
