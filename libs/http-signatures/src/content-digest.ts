import { createHash } from 'node:crypto';
import { parseDictionary, serializeDictionary } from 'structured-headers';

/** Digest algorithms of the RFC 9530 registry that we accept; `sha-256` is the one we send. */
const ALGORITHMS = { 'sha-256': 'sha256', 'sha-512': 'sha512' } as const;
type DigestAlgorithm = keyof typeof ALGORITHMS;

export type ContentDigestErrorReason = 'missing' | 'malformed' | 'unsupported_algorithm' | 'mismatch';

/** A `Content-Digest` field that is absent, unparsable, has no supported algorithm, or does not match. */
export class ContentDigestError extends Error {
  override readonly name = 'ContentDigestError';

  constructor(
    readonly reason: ContentDigestErrorReason,
    message: string = reason,
  ) {
    super(message);
  }
}

/** RFC 9530 §2: the `Content-Digest` field value for the raw body bytes, `sha-256=:<base64>:`. */
export function contentDigest(body: Uint8Array | string, algorithm: DigestAlgorithm = 'sha-256'): string {
  const digest = createHash(ALGORITHMS[algorithm]).update(body).digest();
  return serializeDictionary(new Map([[algorithm, [digest, new Map()]]]));
}

/**
 * RFC 9530 §2 and §5: verifies a `Content-Digest` field value (a Dictionary) against the raw body.
 * Every supported digest present (`sha-256`, `sha-512`) must match; unknown algorithms are ignored; at
 * least one supported algorithm is required. Returns the algorithms that were checked.
 */
export function verifyContentDigest(
  fieldValue: string | readonly string[] | undefined,
  body: Uint8Array | string,
): DigestAlgorithm[] {
  if (fieldValue === undefined || (typeof fieldValue !== 'string' && fieldValue.length === 0)) {
    throw new ContentDigestError('missing', 'Content-Digest is missing');
  }
  const value = typeof fieldValue === 'string' ? fieldValue : fieldValue.join(', ');
  let dictionary;
  try {
    dictionary = parseDictionary(value);
  } catch {
    throw new ContentDigestError('malformed', 'Content-Digest is not a structured Dictionary');
  }
  const checked: DigestAlgorithm[] = [];
  for (const [key, member] of dictionary) {
    if (!(key in ALGORITHMS)) continue;
    const algorithm = key as DigestAlgorithm;
    const expected = member[0];
    if (!(expected instanceof ArrayBuffer)) {
      throw new ContentDigestError('malformed', `Content-Digest ${algorithm} is not a Byte Sequence`);
    }
    const actual = createHash(ALGORITHMS[algorithm]).update(body).digest();
    if (!actual.equals(Buffer.from(expected))) {
      throw new ContentDigestError('mismatch', `Content-Digest ${algorithm} does not match the body`);
    }
    checked.push(algorithm);
  }
  if (checked.length === 0) {
    throw new ContentDigestError('unsupported_algorithm', 'Content-Digest has no supported algorithm');
  }
  return checked;
}
