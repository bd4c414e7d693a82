// Diagnostics as resources and the framework collect them: a small mutable collector plus
// attribute-path helpers. Everything a user can cause ends up here, never as a thrown error.
import type { AttributePath, Diagnostic } from '../../protocol/types';

/** The path of a top-level attribute, optionally followed by element keys and nested names. */
export function attributePath(name: string, ...rest: ReadonlyArray<string | number>): AttributePath {
  const path: AttributePath = [{ attributeName: name }];
  for (const step of rest) {
    path.push(typeof step === 'number' ? { elementKeyInt: step } : { attributeName: step });
  }
  return path;
}

/** Renders a path the way Terraform users read it, e.g. `entries[0].ip`. */
export function formatPath(path: AttributePath | undefined): string {
  if (path === undefined || path.length === 0) return '';
  let out = '';
  for (const step of path) {
    if ('attributeName' in step) out += out === '' ? step.attributeName : `.${step.attributeName}`;
    else if ('elementKeyInt' in step) out += `[${step.elementKeyInt}]`;
    else out += `[${JSON.stringify(step.elementKeyString)}]`;
  }
  return out;
}

/**
 * Collects the diagnostics of one RPC. `A` names the schema's top-level attributes, so
 * `addAttributeError('monthly_limit', …)` is checked against the schema at compile time.
 */
export class Diagnostics<A extends string = string> {
  private readonly items: Diagnostic[] = [];

  /** Adds an error on top-level attribute `name` (typed by the schema). */
  addAttributeError(name: A, summary: string, detail?: string): void {
    this.addError(summary, detail, [{ attributeName: name }]);
  }

  /** Adds a warning on top-level attribute `name` (typed by the schema). */
  addAttributeWarning(name: A, summary: string, detail?: string): void {
    this.addWarning(summary, detail, [{ attributeName: name }]);
  }

  /** Adds an error; `path` ties it to one attribute. */
  addError(summary: string, detail?: string, path?: AttributePath): void {
    this.items.push(withOptional({ severity: 'error', summary }, detail, path));
  }

  /** Adds a warning; `path` ties it to one attribute. */
  addWarning(summary: string, detail?: string, path?: AttributePath): void {
    this.items.push(withOptional({ severity: 'warning', summary }, detail, path));
  }

  /** Adds ready-made diagnostics (from validators or another collector). */
  add(...diagnostics: readonly Diagnostic[]): void {
    this.items.push(...diagnostics);
  }

  /** True when at least one error was added. */
  hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }

  /** Everything collected so far, in order. */
  toArray(): Diagnostic[] {
    return [...this.items];
  }
}

/** Builds one error diagnostic (for validators and plan modifiers, which return lists). */
export function errorDiagnostic(summary: string, detail?: string, path?: AttributePath): Diagnostic {
  return withOptional({ severity: 'error', summary }, detail, path);
}

/** Builds one warning diagnostic. */
export function warningDiagnostic(summary: string, detail?: string, path?: AttributePath): Diagnostic {
  return withOptional({ severity: 'warning', summary }, detail, path);
}

function withOptional(d: Diagnostic, detail: string | undefined, path: AttributePath | undefined): Diagnostic {
  // Absent fields rather than `undefined` keep test equality and the wire encoding simple.
  if (detail !== undefined) d.detail = detail;
  if (path !== undefined) d.attribute = path;
  return d;
}
