import { BoundedCache } from '@mission/http-signatures';
import { parseSignatureKey, type SignatureKey } from './parse-signature-key.js';

/** `parseSignatureKey`'s signature: the field lines (or value) and the label. */
export type SignatureKeyParser = (fieldValue: string | readonly string[] | undefined, label?: string) => SignatureKey;

/** Fields remembered at most; an Agent Token field is ≈ 1 KiB, so the cache holds ≤ 1,024 × 4 KiB of text. */
const DEFAULT_MAX_ENTRIES = 1024;
const MAX_REMEMBERED_LENGTH = 4096;

/**
 * `parseSignatureKey` with its successful parses remembered by the exact field value and label (issue 15: an agent
 * sends the same `Signature-Key` — its Agent Token — on thousands of requests, and parsing that Dictionary was ≈ 4 %
 * of a signed `status` request's CPU). The parse is a pure function of (value, label), so a remembered result is
 * the one a fresh parse would give; refusals are never remembered (each is parsed and refused again, with its own
 * reason). Bounded: a least-recently-used cache of `maxEntries`, and fields longer than 4 KiB are parsed every time,
 * so whatever a caller sends costs at most 4 MiB of text. Results are frozen: a caller cannot alter what the next
 * request gets.
 */
export function rememberingSignatureKeyParser(maxEntries = DEFAULT_MAX_ENTRIES): SignatureKeyParser {
  const remembered = new BoundedCache<SignatureKey>(maxEntries);
  return (fieldValue, label = 'sig') => {
    const value = typeof fieldValue === 'string' ? fieldValue : fieldValue?.join(', ');
    if (value === undefined || value.length > MAX_REMEMBERED_LENGTH) return parseSignatureKey(value, label);
    const key = `${label}\n${value}`;
    const known = remembered.get(key);
    if (known !== undefined) return known;
    const parsed = frozen(parseSignatureKey(value, label));
    remembered.set(key, parsed);
    return parsed;
  };
}

function frozen(signatureKey: SignatureKey): SignatureKey {
  if (signatureKey.scheme === 'hwk') Object.freeze(signatureKey.key);
  return Object.freeze(signatureKey);
}
