/**
 * Stored password format: `scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key>` with salt and derived key in
 * unpadded base64url. The cost parameters travel with each hash so they can be raised without
 * invalidating existing entries; `tools/scripts/generate-demo-config.mjs` writes this format.
 */
export interface ScryptPasswordHash {
  readonly log2N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

const FORMAT = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{22,128})\$([A-Za-z0-9_-]{43,86})$/;

export const PASSWORD_HASH_FORMAT_HINT = 'scrypt$ln=<14..20>,r=<1..32>,p=<1..16>$<salt, ≥16 bytes base64url>$<key, 32..64 bytes base64url>';

/** The parsed hash, or undefined when the text is not in the format or its parameters are too weak or absurd. */
export function parsePasswordHash(text: string): ScryptPasswordHash | undefined {
  const match = FORMAT.exec(text);
  if (!match) return undefined;
  const [log2N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (log2N < 14 || log2N > 20 || r < 1 || r > 32 || p < 1 || p > 16) return undefined;
  const salt = Buffer.from(match[4]!, 'base64url');
  const key = Buffer.from(match[5]!, 'base64url');
  if (salt.length < 16 || key.length < 32 || key.length > 64) return undefined;
  return { log2N, r, p, salt, key };
}
