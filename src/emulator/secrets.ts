// Hashing of passwords and bearer tokens. Nothing secret is stored in clear: passwords as salted
// SHA-256, tokens as plain SHA-256 (they are long random strings, and lookup must be by hash).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A salted password hash as stored. */
export interface PasswordHash {
  /** Hex salt. */
  readonly salt: string;
  /** Hex SHA-256 of salt and password. */
  readonly hash: string;
}

/** Hashes a password with a fresh random salt. */
export function hashPassword(password: string): PasswordHash {
  const salt = randomBytes(16).toString('hex');
  return { salt, hash: saltedHash(salt, password) };
}

/** Compares a password to a stored hash in constant time. */
export function verifyPassword(password: string, stored: PasswordHash): boolean {
  const expected = Buffer.from(stored.hash, 'hex');
  const actual = Buffer.from(saltedHash(stored.salt, password), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function saltedHash(salt: string, password: string): string {
  return createHash('sha256').update(salt).update('\0').update(password, 'utf8').digest('hex');
}

/** The SHA-256 (hex) under which a raw bearer token is stored and looked up. */
export function hashToken(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** A new raw token: the prefix followed by 43 random URL-safe characters (256 bits). */
export function newRawToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** A random URL-safe secret, used for the default admin token. */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
