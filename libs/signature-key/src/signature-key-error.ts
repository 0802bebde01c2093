/**
 * Why a `Signature-Key` (draft-hardt-httpbis-signature-key) was refused. Short tokens, safe to echo in a
 * `Signature-Error` response header: they name the failed check, never key material, tokens or header
 * contents.
 */
export type SignatureKeyErrorReason =
  /** No `Signature-Key` field, or no member for the signature label. */
  | 'missing_signature_key'
  /** Not an RFC 8941 Dictionary, or a member without the parameters its scheme needs. */
  | 'malformed_signature_key'
  /** The signature label appears more than once. */
  | 'duplicate_label'
  /** A scheme we do not accept on this endpoint (unknown, or `jwks_uri` for incoming requests). */
  | 'unsupported_scheme'
  /** An inline or `cnf` key that is not a public EC P-256 or OKP Ed25519 key (e.g. carries private members). */
  | 'invalid_key'
  /** An `hwk` key whose thumbprint no configured principal has. */
  | 'unknown_key'
  /** An Agent Token that is not a well-formed, correctly signed `aa-agent+jwt` with the required claims. */
  | 'invalid_agent_token'
  /** An Agent Token whose `iss` is not a configured agent provider. */
  | 'unknown_issuer'
  /** An Agent Token past its `exp`, or issued (`iat`) in the future beyond the allowed skew. */
  | 'expired_agent_token';

/** The one error class of `Signature-Key` parsing and key resolution. */
export class SignatureKeyError extends Error {
  override readonly name = 'SignatureKeyError';

  constructor(
    readonly reason: SignatureKeyErrorReason,
    message: string = reason,
  ) {
    super(message);
  }
}
