import { parseDictionary, type Dictionary } from 'structured-headers';
import { dictionaryMemberKeys } from './dictionary-member-keys.js';
import { HttpSignatureError, type HttpSignatureErrorReason } from './http-signature-error.js';

/** A message's `Signature-Input` and `Signature`, each parsed by {@link parseSignatureField}. */
export interface SignatureFields {
  readonly inputs: Dictionary;
  readonly signatures: Dictionary;
}

/** Parses `Signature-Input` or `Signature` (RFC 9421 §4.1, §4.2) as a Dictionary without duplicate labels. */
export function parseSignatureField(
  lines: readonly string[],
  malformed: HttpSignatureErrorReason,
): Dictionary {
  const value = lines.join(', ');
  let dictionary: Dictionary;
  let keys: string[];
  try {
    dictionary = parseDictionary(value);
    keys = dictionaryMemberKeys(value);
  } catch (error) {
    throw new HttpSignatureError(malformed, 'the field is not a structured Dictionary', { cause: error });
  }
  if (new Set(keys).size !== keys.length) throw new HttpSignatureError('duplicate_label', 'a signature label repeats');
  return dictionary;
}
