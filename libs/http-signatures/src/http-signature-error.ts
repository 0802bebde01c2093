/**
 * Why a signed request was refused. Short tokens, safe to echo in a `Signature-Error` response header:
 * they name the failed check, never key material or header contents.
 */
export type HttpSignatureErrorReason =
  | 'missing_signature'
  | 'malformed_signature_input'
  | 'malformed_signature'
  | 'duplicate_label'
  | 'missing_component'
  | 'duplicate_component'
  | 'unsupported_component'
  | 'unsupported_parameter'
  | 'missing_required_component'
  | 'missing_created'
  | 'created_out_of_window'
  | 'expired'
  | 'unknown_key'
  | 'unsupported_algorithm'
  | 'algorithm_mismatch'
  | 'invalid_signature';

/** The one error class of RFC 9421 signature-base construction and verification. */
export class HttpSignatureError extends Error {
  override readonly name = 'HttpSignatureError';

  constructor(
    readonly reason: HttpSignatureErrorReason,
    message: string = reason,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
