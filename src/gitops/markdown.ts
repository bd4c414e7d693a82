// Text from a plan or an account inside Markdown that GitHub or GitLab renders (the review's
// pull-request comment or merge-request note, the drift issue): addresses are code, the rest is
// escaped, and nothing in it mentions a person or team, references an issue or links anywhere. Review and drift share these, so neither
// can fall behind.

/** Control characters (a line break above all) as escapes: text from the plan stays on its line. */
export function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => CONTROL_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const CONTROL_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * GitHub turns `@name` into a mention that notifies, `#123`, `GH-123` (or `owner/repo#123`) into a
 * cross-reference, and a bare `https://…` or `www.…` into a link (GFM's autolinks, issue URLs
 * becoming references), in text but not in code. GitLab, where the templates post the same text,
 * also references a merge request by `!123`, a snippet by `$123`, an epic by `&123`, a milestone
 * by `%name` and a label by `~name` (a name may start with almost any character; each also after a
 * project's path: `project!123`, `group/project#123`), and a work item, vulnerability, feature flag,
 * contact or iteration by `[work_item:12]`, `[vulnerability:7]`, `*iteration:3` and the like. A zero-width space after the sign, the `GH-`, the scheme or the `www`
 * keeps the text as it reads, without any of them. `@`, `GH-`, schemes and `www` only where a
 * forge would see one: at the start or after a character that is not a letter, a digit or `_`
 * (word characters): an `@` inside a word (`team.a@x`, `ops@example.com`) is no mention, and keeps
 * copying as it reads. The reference signs after anything, since a project's name may precede them.
 */
export function noMentionsOrLinks(s: string): string {
  return s
    .replace(/(?<![A-Za-z0-9_])@/g, '@\u200b')
    .replace(/([#!$&])(?=\d)/g, '$1\u200b')
    .replace(/([%~])(?=\S)/g, '$1\u200b')
    .replace(/\[(?=(?:work_item|vulnerability|feature_flag|contact):)/gi, '[\u200b')
    .replace(/\*(?=iteration:)/gi, '*\u200b')
    .replace(/(?<![A-Za-z0-9_])(gh-)(?=\d)/gi, '$1\u200b')
    .replace(/(?<![A-Za-z0-9_])(https?|ftp)(?=:\/\/)/gi, '$1\u200b')
    .replace(/(?<![A-Za-z0-9_.-])(www)(?=\.)/gi, '$1\u200b');
}

/** Keeps Markdown and HTML in values from changing the document's structure, or notifying anyone. */
export function escapeMarkdown(s: string): string {
  return noMentionsOrLinks(oneLine(s))
    .replace(/[<>&]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&amp;'))
    .replace(/([\\`*_[\]~|])/g, '\\$1');
}

/** Text inside raw HTML (a `<summary>`), where Markdown escapes would show as written. */
export function escapeHtml(s: string): string {
  return noMentionsOrLinks(oneLine(s)).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/**
 * Text shown literally, as code: an address holds whatever its for_each key holds, backticks and
 * HTML included. CommonMark ends a code span only at a run of backticks as long as its opening
 * one, so the fence is one longer than the longest run inside, and a space pads an end that is a
 * backtick (or a space, which CommonMark strips in pairs). Mentions in code do not notify.
 */
export function codeSpan(s: string): string {
  const text = oneLine(s);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
