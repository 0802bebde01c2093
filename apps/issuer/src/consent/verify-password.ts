import { scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';
import { parsePasswordHash, type ScryptPasswordHash } from '../config/password-hash.js';

function deriveKey(password: BinaryLike, salt: BinaryLike, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));
}

// Spends the same work for an unknown person as for a known one, so timing does not reveal who exists.
const DECOY: ScryptPasswordHash = parsePasswordHash(`scrypt$ln=15,r=8,p=1$${'A'.repeat(22)}$${'A'.repeat(43)}`)!;

/** Checks a person's password against the stored scrypt hash in constant time; unknown persons fail the same way. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = (stored && parsePasswordHash(stored)) || DECOY;
  const N = 2 ** parsed.log2N;
  const key = await deriveKey(password, parsed.salt, parsed.key.length, { N, r: parsed.r, p: parsed.p, maxmem: 256 * N * parsed.r + 1024 * 1024 });
  return parsed !== DECOY && timingSafeEqual(key, parsed.key);
}
