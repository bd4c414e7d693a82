// A saved plan (`terraform plan -out`) carries the prior state whole: every bearer token's value
// (the API shows it once, at creation, so the state holds its only copy) and every sub-account
// password set in code, in clear. A CI that keeps the reviewed plan for the apply after merge keeps
// it where more people can read it than may read the state (a public repository's artifacts).
// Sealing encrypts it with AES-256-GCM under a key derived with scrypt from a secret only the review
// and apply jobs hold; unsealing refuses a file that was altered or sealed with another secret.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';

/** The first bytes of a sealed plan: what it is and the format's version (also authenticated). */
const MAGIC = Buffer.from('proxyaccount sealed plan v1\n', 'latin1');
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + SALT_BYTES + IV_BYTES + TAG_BYTES;
// scrypt's cost (16 MiB, tens of milliseconds once per seal or unseal): a guessable secret still
// costs a guesser dearly, though the secret asked for is random.
const SCRYPT = { N: 1 << 14, r: 8, p: 1 } as const;
/** The shortest secret accepted: 32 characters, as `openssl rand -base64 32` prints 44. */
export const MIN_SECRET_LENGTH = 32;
/** The environment variable the CLI reads the secret from (never from a flag: flags show in process lists). */
export const PLAN_KEY_ENV = 'PROXYACCOUNT_PLAN_KEY';

/** A plan that cannot be sealed or unsealed; the message says why and what to do, and never quotes the secret. */
export class PlanSealError extends Error {
  override readonly name = 'PlanSealError';
}

/** The secret from `env[name]`, checked. */
export function planSecretFrom(env: NodeJS.ProcessEnv, name = PLAN_KEY_ENV): string {
  const secret = env[name];
  if (secret === undefined || secret === '') {
    throw new PlanSealError(
      `${name} is not set: give the review and the apply job the same secret of at least ${MIN_SECRET_LENGTH} characters (openssl rand -base64 32 makes one)`,
    );
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new PlanSealError(`${name} is ${secret.length} characters long; it must have at least ${MIN_SECRET_LENGTH} (openssl rand -base64 32 makes one)`);
  }
  return secret;
}

/** A saved plan, sealed. Refuses what is not a saved plan (a zip file) or is sealed already. */
export async function sealPlan(plan: Buffer, secret: string): Promise<Buffer> {
  if (isSealed(plan)) throw new PlanSealError('the file is sealed already');
  if (plan.length < 4 || plan.readUInt32LE(0) !== 0x04034b50) {
    throw new PlanSealError('the file is not a saved plan (terraform plan -out writes a zip file)');
  }
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await keyOf(secret, salt), iv);
  cipher.setAAD(MAGIC);
  const body = Buffer.concat([cipher.update(plan), cipher.final()]);
  return Buffer.concat([MAGIC, salt, iv, cipher.getAuthTag(), body]);
}

/** The saved plan inside a sealed one. Refuses a file that is not sealed, was altered, or was sealed with another secret. */
export async function unsealPlan(sealed: Buffer, secret: string): Promise<Buffer> {
  if (!isSealed(sealed) || sealed.length < HEADER_BYTES) {
    throw new PlanSealError('the file is not a sealed plan (proxyaccount plan-file seal writes one)');
  }
  const salt = sealed.subarray(MAGIC.length, MAGIC.length + SALT_BYTES);
  const iv = sealed.subarray(MAGIC.length + SALT_BYTES, MAGIC.length + SALT_BYTES + IV_BYTES);
  const tag = sealed.subarray(HEADER_BYTES - TAG_BYTES, HEADER_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', await keyOf(secret, salt), iv);
  decipher.setAAD(MAGIC);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]);
  } catch {
    throw new PlanSealError('the sealed plan does not open with this secret: it was sealed with another one, or altered since');
  }
}

function isSealed(data: Buffer): boolean {
  return data.length >= MAGIC.length && data.subarray(0, MAGIC.length).equals(MAGIC);
}

function keyOf(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, 32, SCRYPT, (err, key) => (err === null ? resolve(key) : reject(err)));
  });
}
