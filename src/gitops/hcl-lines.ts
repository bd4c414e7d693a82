// A `.tf` file line by line, as far as a plain reader can follow it: each line's nesting, and
// whether it starts and ends outside comments, strings and heredocs. Used by the provider-block
// reader (provider-source.ts), which must never take a `provider` line inside a comment, a string
// or a heredoc for a block; what this reader cannot follow it reports, with the line and why,
// rather than guess.

/** An HCL identifier (a block label, an attribute or variable name). */
export const IDENT = '[A-Za-z_][A-Za-z0-9_-]*';

/** Where a `.tf` file stops being followed, and why. */
export interface Unfollowed {
  readonly line: number;
  readonly why: string;
}

/** One line of a `.tf` file: its number, the nesting (braces, brackets, parentheses) it starts and ends at, and whether it starts and ends outside comments, strings and heredocs. */
export interface HclLine {
  readonly text: string;
  readonly number: number;
  readonly depth: number;
  readonly plain: boolean;
  readonly endDepth: number;
  readonly endsPlain: boolean;
}

/**
 * The lines of a `.tf` file with their nesting, comments, strings and heredocs skipped, so that
 * a `provider` line in a comment or a heredoc is not taken for a block. For text this reader does
 * not follow (a string or comment left open, an interpolation holding a comment or a heredoc, a
 * nesting that does not close), where and why.
 */
export function hclLines(text: string): HclLine[] | Unfollowed {
  const out: HclLine[] = [];
  let depth = 0;
  let comment: number | undefined;
  let heredoc: { readonly end: string; readonly line: number } | undefined;
  for (const [n, line] of text.split(/\r?\n/).entries()) {
    const number = n + 1;
    const start = { text: line, number, depth, plain: comment === undefined && heredoc === undefined };
    if (heredoc !== undefined) {
      if (line.trim() === heredoc.end) heredoc = undefined;
      // An interpolation may run over lines, and a line of its holding the marker alone does not
      // end the heredoc for Terraform: what follows would be read wrongly, so it is not followed.
      else if (templateEnd(line, 0, true) === undefined) {
        return { line: number, why: `a heredoc line whose interpolation or directive (\${…}, %{…}) does not end on it` };
      }
      out.push({ ...start, endDepth: depth, endsPlain: heredoc === undefined });
      continue;
    }
    let i = 0;
    while (i < line.length) {
      if (comment !== undefined) {
        const end = line.indexOf('*/', i);
        if (end < 0) break;
        comment = undefined;
        i = end + 2;
        continue;
      }
      const rest = line.slice(i);
      if (rest.startsWith('#') || rest.startsWith('//')) break;
      if (rest.startsWith('/*')) {
        comment = number;
        i += 2;
        continue;
      }
      if (rest.startsWith('<<')) {
        const h = new RegExp(`^<<-?(${IDENT})\\s*$`).exec(rest);
        if (h === null) return { line: number, why: 'a heredoc (<<) this reader does not follow: its marker is not the last thing on its line' };
        heredoc = { end: h[1]!, line: number };
        break;
      }
      if (rest.startsWith('"')) {
        const end = stringEnd(line, i);
        if (end === undefined) {
          return {
            line: number,
            why: 'a quoted string this reader does not follow: it does not end on its line, or an interpolation in it holds a comment or a heredoc',
          };
        }
        i = end;
        continue;
      }
      if ('{[('.includes(line[i]!)) depth++;
      else if ('}])'.includes(line[i]!) && --depth < 0) return { line: number, why: 'a closing bracket with none open' };
      i++;
    }
    out.push({ ...start, endDepth: depth, endsPlain: comment === undefined && heredoc === undefined });
  }
  if (comment !== undefined) return { line: comment, why: 'a comment (/*) that does not end' };
  if (heredoc !== undefined) return { line: heredoc.line, why: 'a heredoc that does not end' };
  return depth !== 0 ? { line: out.length, why: 'the file ends inside a block or a bracket left open' } : out;
}

/**
 * Where a quoted string that opens at `from` ends; undefined when it does not end on its line.
 * An interpolation or a directive in it (`${…}`, `%{…}`) is an expression, which may hold
 * strings of its own (`"${lookup(var.m, "k")}"`, `%{ if var.e == "p" }`), and so on: a stack
 * follows them, each string to its closing quote and each expression to the brace that closes
 * it. A comment or a heredoc inside an expression is not followed.
 */
function stringEnd(line: string, from: number): number | undefined {
  return templateEnd(line, from + 1, false);
}

/**
 * Where a template that starts at `from` ends: a quoted string's, at its closing quote; a heredoc's
 * line (`heredoc`), at the end of the line, where no interpolation or directive may be left open
 * (its quotes and backslashes are text). Undefined when it does not end there.
 */
function templateEnd(line: string, from: number, heredoc: boolean): number | undefined {
  // 'string': inside a quoted template; a number: inside an expression, with that many braces open in it.
  const stack: Array<'string' | number> = ['string'];
  let i = from;
  while (i < line.length) {
    const top = stack[stack.length - 1]!;
    // A heredoc's own text, outside its interpolations: no escapes, and a quote is a character.
    const text = heredoc && stack.length === 1;
    if (top === 'string') {
      if (line[i] === '\\' && !text) i += 2;
      else if (line[i] === '"' && !text) {
        stack.pop();
        i++;
        if (stack.length === 0) return i;
      } else if (line.startsWith('$${', i) || line.startsWith('%%{', i)) i += 3;
      else if (line.startsWith('${', i) || line.startsWith('%{', i)) {
        stack.push(0);
        i += 2;
      } else i++;
      continue;
    }
    const rest = line.slice(i);
    if (rest.startsWith('#') || rest.startsWith('//') || rest.startsWith('/*') || rest.startsWith('<<')) return undefined;
    if (line[i] === '"') stack.push('string');
    else if (line[i] === '{') stack[stack.length - 1] = top + 1;
    else if (line[i] === '}') {
      if (top === 0) stack.pop();
      else stack[stack.length - 1] = top - 1;
    }
    i++;
  }
  return heredoc && stack.length === 1 ? i : undefined;
}
