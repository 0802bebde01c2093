import { SIGNATURE_ALGORITHMS } from '@mission/http-signatures';
import { serializeDictionary, Token, type Dictionary } from 'structured-headers';
import { ProblemError } from './problem-error.js';

/**
 * Why a signed request was refused (spec 5.1, 5.6, DESIGN 3.2). Each names the failed check and nothing
 * else: never key material, token contents, header values or which internal step threw. Sent as the
 * `reason` member of the `Signature-Error` header and the problem body.
 */
export type SignatureFailureReason =
  // Signature-Input / Signature (RFC 9421)
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
  | 'unsupported_algorithm'
  | 'algorithm_mismatch'
  | 'invalid_signature'
  | 'replayed_signature'
  | 'invalid_target'
  // Content-Digest (RFC 9530) over the raw body
  | 'missing_content_digest'
  | 'malformed_content_digest'
  | 'unsupported_digest_algorithm'
  | 'content_digest_mismatch'
  | 'unreadable_body'
  // Signature-Key (draft-hardt-httpbis-signature-key) and the key behind it
  | 'missing_signature_key'
  | 'malformed_signature_key'
  | 'unsupported_scheme'
  | 'invalid_key'
  | 'unknown_key'
  | 'invalid_agent_token'
  | 'unknown_issuer'
  | 'expired_agent_token'
  | 'agent_outside_provider'
  | 'agent_provider_unavailable';

/**
 * The `error` codes of the Signature-Key draft's `Signature-Error` response header. A client that only
 * knows the draft reads these; our finer `reason` rides along as a further Dictionary member.
 */
export type SignatureErrorCode =
  | 'invalid_request'
  | 'invalid_input'
  | 'invalid_signature'
  | 'unsupported_algorithm'
  | 'invalid_key'
  | 'unknown_key'
  | 'invalid_jwt'
  | 'expired_jwt';

const ERROR_CODE_BY_REASON: Readonly<Record<SignatureFailureReason, SignatureErrorCode>> = {
  missing_signature: 'invalid_request',
  malformed_signature_input: 'invalid_request',
  malformed_signature: 'invalid_request',
  duplicate_label: 'invalid_request',
  missing_component: 'invalid_request',
  duplicate_component: 'invalid_request',
  unsupported_parameter: 'invalid_request',
  invalid_target: 'invalid_request',
  missing_signature_key: 'invalid_request',
  malformed_signature_key: 'invalid_request',
  unreadable_body: 'invalid_request',
  missing_content_digest: 'invalid_request',
  malformed_content_digest: 'invalid_request',
  unsupported_digest_algorithm: 'invalid_request',
  unsupported_component: 'invalid_input',
  missing_required_component: 'invalid_input',
  missing_created: 'invalid_input',
  created_out_of_window: 'invalid_signature',
  expired: 'invalid_signature',
  invalid_signature: 'invalid_signature',
  replayed_signature: 'invalid_signature',
  content_digest_mismatch: 'invalid_signature',
  unsupported_algorithm: 'unsupported_algorithm',
  algorithm_mismatch: 'unsupported_algorithm',
  unsupported_scheme: 'invalid_key',
  invalid_key: 'invalid_key',
  unknown_key: 'unknown_key',
  invalid_agent_token: 'invalid_jwt',
  unknown_issuer: 'invalid_jwt',
  agent_provider_unavailable: 'invalid_jwt',
  expired_agent_token: 'expired_jwt',
  agent_outside_provider: 'invalid_jwt',
};

/** Safe one-line explanations for the problem `detail`. */
const DETAIL_BY_REASON: Readonly<Record<SignatureFailureReason, string>> = {
  missing_signature: 'Signature-Input and Signature with the label "sig" are required',
  malformed_signature_input: 'Signature-Input is malformed',
  malformed_signature: 'Signature is malformed',
  duplicate_label: 'the label "sig" appears more than once',
  missing_component: 'a covered header field is absent from the request',
  duplicate_component: 'a component is covered more than once',
  unsupported_component: 'a covered component is not supported',
  unsupported_parameter: 'a signature parameter is not supported',
  missing_required_component: 'the signature does not cover every required component',
  missing_created: 'the signature has no created parameter',
  created_out_of_window: 'the signature was not created within the accepted window of the current time',
  expired: 'the signature has expired',
  unsupported_algorithm: 'the signature algorithm is not supported',
  algorithm_mismatch: 'the alg parameter does not match the key',
  invalid_signature: 'the signature does not verify',
  replayed_signature: 'this signature has already been used',
  invalid_target: 'the request target must be in origin form',
  missing_content_digest: 'a request with a body needs a Content-Digest',
  malformed_content_digest: 'Content-Digest is malformed',
  unsupported_digest_algorithm: 'Content-Digest needs a sha-256 member',
  content_digest_mismatch: 'Content-Digest does not match the body',
  unreadable_body: 'the request body cannot be verified (unsupported content type)',
  missing_signature_key: 'Signature-Key with the label "sig" is required',
  malformed_signature_key: 'Signature-Key is malformed',
  unsupported_scheme: 'the Signature-Key scheme is not accepted here',
  invalid_key: 'the signing key is not an acceptable public key',
  unknown_key: 'the signing key is not registered',
  invalid_agent_token: 'the agent token is not valid',
  unknown_issuer: 'the agent token issuer is not a trusted agent provider',
  expired_agent_token: 'the agent token has expired or is not yet valid',
  agent_outside_provider: "the agent token names an agent identifier outside its provider's agent domains",
  agent_provider_unavailable: "the agent provider's keys cannot be obtained right now",
};

/** Every `error` code a refused signature is answered with (the OpenAPI document lists them). */
export const SIGNATURE_ERROR_CODES = [...new Set(Object.values(ERROR_CODE_BY_REASON))] as readonly SignatureErrorCode[];

/** Every reason, e.g. for tests and documentation. */
export const SIGNATURE_FAILURE_REASONS = Object.keys(ERROR_CODE_BY_REASON) as readonly SignatureFailureReason[];

export interface SignatureFailureOptions {
  /** For `invalid_input`: the components the PS requires (the draft's `required_input`). */
  readonly requiredInput?: readonly string[];
  readonly cause?: unknown;
}

/**
 * A request whose RFC 9421 signature, content digest or signing key was refused (spec 5.1, 5.6, DESIGN
 * 3.2): `401` with a `Signature-Error` header, an RFC 8941 Dictionary as the Signature-Key draft defines
 * it — `error=<draft code>` (plus `required_input=(...)` for `invalid_input`, `supported_algorithms=(...)`
 * for `unsupported_algorithm`) — and our own
 * `reason=<SignatureFailureReason>` member, e.g. `Signature-Error: error=invalid_signature, reason=replayed_signature`.
 * The problem body repeats both as `error` and `signature_error`. Nothing else about the failure leaves the PS.
 */
export class SignatureVerificationProblem extends ProblemError {
  readonly errorCode: SignatureErrorCode;

  constructor(
    readonly reason: SignatureFailureReason,
    options: SignatureFailureOptions = {},
  ) {
    const errorCode = ERROR_CODE_BY_REASON[reason];
    super(401, errorCode, DETAIL_BY_REASON[reason], {
      members: { signature_error: reason },
      headers: { 'Signature-Error': signatureErrorHeader(errorCode, reason, options.requiredInput) },
      ...(options.cause !== undefined ? { cause: options.cause } : {}),
    });
    this.errorCode = errorCode;
  }
}

function signatureErrorHeader(code: SignatureErrorCode, reason: SignatureFailureReason, requiredInput?: readonly string[]): string {
  const dictionary: Dictionary = new Map();
  dictionary.set('error', [new Token(code), new Map()]);
  if (code === 'invalid_input' && requiredInput !== undefined && requiredInput.length > 0) {
    dictionary.set('required_input', [requiredInput.map((name) => [name, new Map()]), new Map()]);
  }
  if (code === 'unsupported_algorithm') {
    dictionary.set('supported_algorithms', [SIGNATURE_ALGORITHMS.map((alg) => [alg, new Map()]), new Map()]);
  }
  dictionary.set('reason', [new Token(reason), new Map()]);
  return serializeDictionary(dictionary);
}
