// Turns a failure into one diagnostic. The framework knows no product: the provider injects a
// describer (ProviderDefinition.describeError) that recognises its own errors; anything it does
// not recognise is an unexpected error, reported as a bug in the provider.
import type { AttributePath, Diagnostic } from '../../protocol/types';
import { errorDiagnostic } from './diagnostics';

/** What the failed operation was about. */
export interface ErrorContext {
  /** Short title, e.g. "Unable to create sub-account". */
  readonly summary: string;
  /** The object, e.g. "sub-account 'alice'". */
  readonly object: string;
  /** Attribute names of the schema, so a describer can tie the diagnostic to one. @default none */
  readonly attributes?: readonly string[];
}

/**
 * The provider's own reading of an error: a diagnostic, or undefined for an error it does not
 * recognise (the framework then reports a bug). Must never include a secret.
 */
export type ErrorDescriber = (err: unknown, ctx: ErrorContext) => Diagnostic | undefined;

/** camelCase → snake_case, e.g. monthlyLimit → monthly_limit. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The path of attribute `name` (any case) when the schema has it. */
export function attributeNamed(name: unknown, attributes: readonly string[] | undefined): AttributePath | undefined {
  if (typeof name !== 'string' || attributes === undefined) return undefined;
  const snake = snakeCase(name);
  return attributes.includes(snake) ? [{ attributeName: snake }] : undefined;
}

/** "Alice's…" style: the object with its first letter in upper case, to start a sentence. */
export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The diagnostic for `err` (anything thrown) in `ctx`: the describer's, else "a bug in the provider". */
export function diagnosticFromError(err: unknown, ctx: ErrorContext, describe?: ErrorDescriber): Diagnostic {
  const described = describe?.(err, ctx);
  if (described !== undefined) return described;
  const message = err instanceof Error ? err.message : String(err);
  return errorDiagnostic(ctx.summary, `${capitalize(ctx.object)}: unexpected error: ${message}. This is a bug in the provider; please report it.`);
}
