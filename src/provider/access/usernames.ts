// Sub-account usernames as the API contract defines them: 1–30 letters, digits and `.` `@` `+` `-`.
import { USERNAME_CHAR } from '../../resource-types/import-ids';
import { charset, lengthBetween, type Validator } from '../framework';

export { isUsername, USERNAME_CHAR } from '../../resource-types/import-ids';

/** Validators of a `username` attribute: 1–30 characters of letters, digits and `.` `@` `+` `-`. */
export function usernameValidators(): ReadonlyArray<Validator<string>> {
  return [lengthBetween(1, 30), charset(USERNAME_CHAR, 'letters A-Z a-z, digits and . @ + -')];
}
