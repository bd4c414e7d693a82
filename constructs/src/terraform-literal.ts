// Text handed to Terraform as written, never read as a template: the roster's strings and every
// literal password. Internal: not exported from the package index.
import { splitAtReferences } from './token-markers';
import { isUnresolved } from './validation';

/**
 * `value` as a Terraform literal. Terraform reads every string of the synthesized JSON as a
 * template, so a `${...}` or `%{...}` in it would be evaluated at plan time: a label
 * `${file("/proc/self/environ")}` would read the runner's secrets into the plan and send a value
 * nobody wrote, and a password `Pa$${ss` would reach the account as `Pa${ss`. `$${` and `%%{` are
 * Terraform's escapes for them. References that code put in (tokens) are kept, meant to be
 * evaluated; the text around them stays literal.
 */
export function literal<T>(value: T): T {
  if (typeof value !== 'string') return value;
  const parts = splitAtReferences(value);
  const amongTokens = isUnresolved(value);
  return parts.map((part, i) => (i % 2 === 1 ? part : literalText(part, amongTokens, i < parts.length - 1))).join('') as T;
}

// A run of `$` and the `{` after it (found from the run's start only, so in linear time).
const DOLLARS_BRACE = /(?<!\$)\$+\{/g;

/**
 * One stretch of text, escaped. `amongTokens` when the string holds a string token, and
 * `beforeReference` when a reference follows the stretch.
 */
function literalText(text: string, amongTokens: boolean, beforeReference: boolean): string {
  // In a string that holds a string token, the synth reads each `${` of the text as the start of
  // an expression written by hand, up to the next `}`, and writes a reference inside one bare
  // (`var.x`, not `${var.x}`): the escape `$${` holds such a `${`, so `a${` and a variable became
  // the literal `a${var.x`. There, the `$` before a `{` are written as an expression that closes
  // at once, `${"$"}{`, with the run of `$` before it (Terraform reads `$$${` as `$` and an escape).
  const braces = amongTokens
    ? text.replace(DOLLARS_BRACE, (run) => `${dollars(run.slice(0, -1))}{`)
    : text.replace(/\$\{/g, () => '$${');
  const escaped = braces.replace(/%\{/g, () => '%%{');
  if (!beforeReference) return escaped;
  // A reference is written `${...}`: a `$` just before it would make `$${`, Terraform's escape, and
  // the account would get the reference's text instead of its value (`Pre$` and a variable became
  // the literal `Pre${var.x}`). The whole run of `$` is written as an expression too. (A `%`
  // before a reference written `${...}` is harmless: `%$` starts nothing. A reference that gives its
  // text in place, a Lazy value, is checked with the text next to it at synth: expression-text.ts.)
  const run = trailingDollars(escaped);
  return run === escaped.length ? escaped : `${escaped.slice(0, run)}${dollars(escaped.slice(run))}`;
}

/** A run of `$` as a Terraform expression, `${"$$"}`: its quoted text holds no template sequence. */
function dollars(run: string): string {
  return `\${"${run}"}`;
}

/** Where the run of `$` that ends `text` starts: `text.length` when `text` ends otherwise. */
function trailingDollars(text: string): number {
  let start = text.length;
  while (start > 0 && text[start - 1] === '$') start -= 1;
  return start;
}
