// Helpers shared by the construct tests: synthesize a scope and look at the resulting JSON.
import { Testing } from 'cdktf';
// Types of cdktf's jest matchers (toHaveResourceWithProperties, ...), registered in setup.js.
import 'cdktf/lib/testing/adapters/jest';
import { Construct } from 'constructs';

/** Synthesized Terraform JSON, parsed. */
export interface Synthesized {
  readonly raw: string;
  readonly resource: Record<string, Record<string, Record<string, unknown>>>;
}

/** Synthesizes what `build` adds to a fresh stack. */
export function synth(build: (scope: Construct) => void): Synthesized {
  const raw = Testing.synthScope(build);
  const parsed = JSON.parse(raw) as { resource?: Synthesized['resource'] };
  return { raw, resource: parsed.resource ?? {} };
}

/** The resources of one type, as a list of their bodies, in logical-id order (not declaration order). */
export function bodies(out: Synthesized, type: string): Record<string, unknown>[] {
  return Object.values(out.resource[type] ?? {});
}

/** The error a function throws, or a failure when it throws nothing. */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`threw a non-Error: ${String(err)}`);
  }
  throw new Error('expected an error, but nothing was thrown');
}

/** The `  - path: message` lines of a validation error. */
export function violationLines(err: Error): string[] {
  return err.message.split('\n').filter((l) => l.startsWith('  - ')).map((l) => l.slice(4));
}

/**
 * The text a string of the synthesized JSON stands for, by Terraform's template rules: `$${` and
 * `%%{` are escapes for a literal `${` and `%{`, read from the left, and `${"$"}` is the quoted
 * text it holds; any other `${` or `%{` starts an interpolation or a directive, so the string is no
 * literal, and this throws.
 */
export function templateLiteral(json: string): string {
  return templateValue(json, {});
}

/**
 * The value Terraform gives a string of the synthesized JSON, by its template rules (as
 * templateLiteral) where the interpolations are the only ones the constructs write: a quoted
 * string, `${"$$"}`, whose text is itself read as a template, or a reference named in `values`
 * (`${var.pw}`), which stands for its value. Anything else (a directive, another expression, an
 * unknown reference) throws, naming it.
 */
export function templateValue(json: string, values: Readonly<Record<string, string>>): string {
  let text = '';
  for (let i = 0; i < json.length; ) {
    if (json.startsWith('$${', i) || json.startsWith('%%{', i)) {
      text += `${json[i]}{`;
      i += 3;
    } else if (json.startsWith('${', i)) {
      const end = json.indexOf('}', i);
      if (end < 0) throw new Error(`${JSON.stringify(json)} has an unclosed \${ at ${i}`);
      text += interpolation(json, json.slice(i + 2, end), values);
      i = end + 1;
    } else if (json.startsWith('%{', i)) {
      throw new Error(`${JSON.stringify(json)} is a template, not a literal: it has a directive at ${i}`);
    } else {
      text += json[i];
      i += 1;
    }
  }
  return text;
}

/** The value of one interpolation `${expression}` of `json` (see templateValue). */
function interpolation(json: string, expression: string, values: Readonly<Record<string, string>>): string {
  const quoted = /^"([^"\\]*)"$/.exec(expression);
  if (quoted) return templateValue(quoted[1], values);
  const value = values[expression];
  if (value === undefined) throw new Error(`${JSON.stringify(json)} interpolates \${${expression}}, which is no quoted string nor a reference given`);
  return value;
}

/**
 * Strings around a reference, written with `@` where the reference goes: a run of `$` or `%` just
 * before it, with the pair at the start, in the middle and at the end, and a few mixes, a `${` of
 * the text before it among them. Terraform reads `$${` as its escape, so a `$` written just before
 * a reference (`${...}`) turned it into text; and cdktf read the `${` of an escape `$${` as the
 * start of an expression, so a reference after one lost its braces.
 */
export const AROUND_REFERENCE: readonly string[] = [
  ...['$', '$$', '%', '%%'].flatMap((run) => [`${run}@-tail`, `pre${run}@-post`, `pre${run}@`]),
  '@', '@$', '$@$@$', '$$$@', 'x${$@', '%{%@', '$${@',
];

/** `pattern` (one of AROUND_REFERENCE) with each `@` replaced by `value`: a token, or its value. */
export function aroundReference(pattern: string, value: string): string {
  return pattern.split('@').join(value);
}
