// How GitHub reads a line of Markdown, for the tests of text from the plan or the account: which
// parts are code spans (shown literally, never a mention) and which are text.

/**
 * A line's code spans and the text outside them, by CommonMark's rule: a run of N backticks opens
 * a span that only the next run of exactly N backticks closes; one space is stripped from each end
 * of content that begins and ends with one.
 */
export function codeSpans(line: string): { spans: string[]; text: string } {
  const spans: string[] = [];
  let text = '';
  let i = 0;
  while (i < line.length) {
    const open = /^`+/.exec(line.slice(i));
    if (open === null || line[i - 1] === '\\') {
      text += line[i];
      i++;
      continue;
    }
    const n = open[0].length;
    const close = new RegExp(`(?<!\`)\`{${n}}(?!\`)`, 'g');
    close.lastIndex = i + n;
    const end = close.exec(line);
    if (end === null) {
      text += open[0];
      i += n;
      continue;
    }
    const content = line.slice(i + n, end.index);
    spans.push(/^ .*[^ ].* $/.test(content) ? content.slice(1, -1) : content);
    i = end.index + n;
  }
  return { spans, text };
}

/**
 * Text GitHub makes a mention of (`@name`, which notifies), a cross-reference of (`#12`, `GH-12`,
 * `owner/repo#12`) or a link of (`https://…`, `www.…`): the sign, prefix or scheme at the start or
 * after a character that is not a word character (a letter, a digit or `_`). `ops@example.com` is
 * none of them here.
 */
export const GITHUB_LINKS =
  /(?<![A-Za-z0-9_])@[A-Za-z0-9]|(?<![A-Za-z0-9_])#\d|\/[A-Za-z0-9_.-]+#\d|(?<![A-Za-z0-9_])gh-\d|(?<![A-Za-z0-9_])(https?|ftp):\/\/|(?<![A-Za-z0-9_.-])www\./i;

/**
 * What GitLab also references, after anything (a project's path may precede it): a merge request
 * `!12`, an issue `project#12`, a snippet `$12`, an epic `&12`, a milestone `%name` or `%12`, a
 * label `~name` or `~"two words"` (a name may start with almost any character), a work item
 * `[work_item:12]` (and vulnerabilities, feature flags, contacts), an iteration `*iteration:3`.
 * Markdown's `\~` is no protection: GitLab finds references in the rendered text.
 */
export const GITLAB_REFERENCES = /[#!$&]\d|[%~][^\s\u200b]|\[(work_item|vulnerability|feature_flag|contact):|\*iteration:/i;
