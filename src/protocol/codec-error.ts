// The one error type of the value codec: what went wrong and where, as an attribute path that a
// diagnostic can point at.
import type { AttributePath, AttributePathStep } from './types';

/** Renders a path like `entries[0].ip` or `labels["a"]` for messages. */
export function formatAttributePath(path: readonly AttributePathStep[]): string {
  let out = '';
  for (const step of path) {
    if ('attributeName' in step) out += out === '' ? step.attributeName : `.${step.attributeName}`;
    else if ('elementKeyString' in step) out += `[${JSON.stringify(step.elementKeyString)}]`;
    else out += `[${step.elementKeyInt}]`;
  }
  return out;
}

/** What a CodecError says of an object attribute absent from the value, in every codec and direction. */
export const MISSING_ATTRIBUTE = 'attribute is missing (every attribute must be present, null when unset)';

/** A value did not match its cty type while decoding or encoding. `path` says where. */
export class CodecError extends Error {
  /** Stable code for programmatic checks. */
  readonly code = 'CODEC_ERROR';
  /** Where in the value the problem is (empty: the value itself). */
  readonly path: AttributePath;

  /**
   * @param problem what is wrong, e.g. "string is required"
   * @param path where in the value
   */
  constructor(problem: string, path: readonly AttributePathStep[], options?: { cause?: unknown }) {
    const where = path.length > 0 ? `at ${formatAttributePath(path)}: ` : '';
    super(`${where}${problem}`, options);
    this.name = 'CodecError';
    this.path = [...path];
  }
}
