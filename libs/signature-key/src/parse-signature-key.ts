import { dictionaryMemberKeys } from '@mission/http-signatures';
import { parseDictionary, Token, type BareItem, type Dictionary, type Parameters } from 'structured-headers';
import { publicSigningJwk, type PublicSigningJwk } from './public-signing-jwk.js';
import { SignatureKeyError } from './signature-key-error.js';

/** The `Signature-Key` member for one signature label, by scheme (draft-hardt-httpbis-signature-key). */
export type SignatureKey =
  /** An Agent Token (`typ: aa-agent+jwt`) whose `cnf.jwk` is the signing key. */
  | { readonly scheme: 'jwt'; readonly jwt: string }
  /** A bare public key given inline ("header web key"); only its public members are kept. */
  | { readonly scheme: 'hwk'; readonly key: PublicSigningJwk }
  /** A key published by `id` in its `dwk` metadata document's `jwks_uri`, selected by `kid`. */
  | { readonly scheme: 'jwks_uri'; readonly id: string; readonly dwk: string; readonly kid: string };

export type SignatureKeyScheme = SignatureKey['scheme'];

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_FIELD_LENGTH = 16_384;

/** A parameter as text: hwk and jwks_uri values may arrive as sf-string or, where the syntax allows, sf-token. */
function textParameter(parameters: Parameters, name: string, scheme: string): string {
  const value: BareItem | undefined = parameters.get(name);
  if (typeof value === 'string' && value !== '') return value;
  if (value instanceof Token) return value.toString();
  throw new SignatureKeyError('malformed_signature_key', `${scheme} needs a string parameter "${name}"`);
}

function hwkKey(parameters: Parameters): PublicSigningJwk {
  const jwk: Record<string, unknown> = {};
  for (const [name, value] of parameters) {
    if (typeof value === 'string') jwk[name] = value;
    else if (value instanceof Token) jwk[name] = value.toString();
    else throw new SignatureKeyError('malformed_signature_key', `hwk parameter "${name}" is not a string`);
  }
  return publicSigningJwk(jwk, 'the hwk key');
}

/**
 * Parses the `Signature-Key` field (an RFC 8941 Dictionary; several field lines are joined with ", ") and
 * returns the member for `label`. Other labels are ignored. Malformed field, missing or repeated label,
 * unknown scheme, missing parameters and unacceptable `hwk` keys are refused with a {@link SignatureKeyError}.
 */
export function parseSignatureKey(fieldValue: string | readonly string[] | undefined, label = 'sig'): SignatureKey {
  const value = typeof fieldValue === 'string' ? fieldValue : fieldValue?.join(', ');
  if (value === undefined || value.trim() === '') {
    throw new SignatureKeyError('missing_signature_key', 'Signature-Key is required');
  }
  if (value.length > MAX_FIELD_LENGTH) throw new SignatureKeyError('malformed_signature_key', 'Signature-Key is too long');
  let dictionary: Dictionary;
  let keys: string[];
  try {
    dictionary = parseDictionary(value);
    keys = dictionaryMemberKeys(value);
  } catch {
    throw new SignatureKeyError('malformed_signature_key', 'Signature-Key is not a structured Dictionary');
  }
  if (keys.filter((key) => key === label).length > 1) {
    throw new SignatureKeyError('duplicate_label', `the label ${label} repeats in Signature-Key`);
  }
  const member = dictionary.get(label);
  if (member === undefined) throw new SignatureKeyError('missing_signature_key', `no Signature-Key for ${label}`);
  const [scheme, parameters] = member;
  if (!(scheme instanceof Token)) {
    throw new SignatureKeyError('malformed_signature_key', 'a Signature-Key member is a Token naming the scheme');
  }
  switch (scheme.toString()) {
    case 'jwt': {
      const jwt = parameters.get('jwt');
      if (typeof jwt !== 'string' || !COMPACT_JWS.test(jwt)) {
        throw new SignatureKeyError('malformed_signature_key', 'jwt needs a compact JWS in the "jwt" parameter');
      }
      return { scheme: 'jwt', jwt };
    }
    case 'hwk':
      return { scheme: 'hwk', key: hwkKey(parameters) };
    case 'jwks_uri':
      return {
        scheme: 'jwks_uri',
        id: textParameter(parameters, 'id', 'jwks_uri'),
        dwk: textParameter(parameters, 'dwk', 'jwks_uri'),
        kid: textParameter(parameters, 'kid', 'jwks_uri'),
      };
    default:
      throw new SignatureKeyError('unsupported_scheme', 'unknown Signature-Key scheme');
  }
}
