// Sub-account usernames as the API contract defines them: 1–30 letters, digits and `.` `@` `+` `-`.
import { charset, lengthBetween, type Validator } from '../framework';

/** One character a sub-account username may contain (the API contract). */
export const USERNAME_CHAR = /[A-Za-z0-9.@+-]/;

/** Validators of a `username` attribute: 1–30 characters of letters, digits and `.` `@` `+` `-`. */
export function usernameValidators(): ReadonlyArray<Validator<string>> {
  return [lengthBetween(1, 30), charset(USERNAME_CHAR, 'letters A-Z a-z, digits and . @ + -')];
}

/** True when `s` is a well-formed sub-account username. */
export function isUsername(s: string): boolean {
  const chars = [...s];
  return chars.length >= 1 && chars.length <= 30 && chars.every((ch) => USERNAME_CHAR.test(ch));
}
