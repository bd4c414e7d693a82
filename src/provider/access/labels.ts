// Optional labels (of IPs and tokens): the API reports "no label" as "", state holds null.
import { noControlCharacters, validator, type Validator } from '../framework';

/**
 * Validators of an optional label of at most `max` characters. The API reports "no label" as
 * "", which state holds as null; an empty configured label would plan a change forever, so it
 * is refused with advice to omit it.
 */
export function labelValidators(max: number): ReadonlyArray<Validator<string>> {
  return [
    validator<string>(`1 to ${max} characters; omit it for no label`, (v) => {
      const n = [...v].length;
      if (n === 0) return 'must not be empty: omit label (or set it to null) for no label';
      return n > max ? `must be at most ${max} characters long, got ${n}` : undefined;
    }),
    noControlCharacters(),
  ];
}

/** The API's label ("" when none) as state holds it (null when none). */
export function labelFromRemote(label: string | undefined): string | null {
  return label === undefined || label === '' ? null : label;
}
