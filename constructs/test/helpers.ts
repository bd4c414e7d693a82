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
 * `%%{` are escapes for a literal `${` and `%{`, read from the left; any other `${` or `%{` starts
 * an interpolation or a directive, so the string is no literal, and this throws.
 */
export function templateLiteral(json: string): string {
  let text = '';
  for (let i = 0; i < json.length; ) {
    const escape = json.startsWith('$${', i) || json.startsWith('%%{', i);
    if (escape) {
      text += `${json[i]}{`;
      i += 3;
    } else if (json.startsWith('${', i) || json.startsWith('%{', i)) {
      throw new Error(`${JSON.stringify(json)} is a template, not a literal: it has ${json.slice(i, i + 2)} at ${i}`);
    } else {
      text += json[i];
      i += 1;
    }
  }
  return text;
}
