import {
  ContentDigestError,
  fieldLines,
  HttpSignatureError,
  parseSignatureField,
  verifyContentDigest,
  verifyRequestSignature,
  type HttpHeaders,
  type HttpRequest,
  type SignatureFields,
  type VerifiedSignature,
} from '@mission/http-signatures';
import type { Dictionary } from 'structured-headers';
import type { Clock } from '../time/clock.js';
import type { SignatureFailureReason } from '../errors/signature-verification.problem.js';
import { fail, SIGNATURE_LABEL } from './signature-rule-support.js';
import type { SigningKey } from './signing-key-resolution.js';

export { SIGNATURE_LABEL } from './signature-rule-support.js';
export { agentIdentifiersVouchedByIssuer, signatureKeyOf, signingKeyFromSignatureKey, type KeySources, type SigningKey } from './signing-key-resolution.js';

/** The request as the authenticator needs it; an Express request (with Nest's `rawBody`) fits. */
export interface IncomingSignedRequest {
  readonly method: string;
  /** The request target as received, e.g. `/mission?x=1` (origin form). */
  readonly originalUrl: string;
  readonly headers: HttpHeaders;
  /** The exact body bytes as received (`req.rawBody`); absent when there is no body or no parser kept it. */
  readonly rawBody?: Uint8Array;
}

/** The `sig` member of `Signature-Input`, as far as the rules before cryptographic verification need it. */
export interface SignatureInput {
  readonly components: readonly string[];
  readonly created?: number;
  readonly expires?: number;
}

/** DESIGN 3.2: `created` must lie within ±60 s of the PS clock. */
export const SIGNATURE_MAX_AGE_SECONDS = 60;
/** DESIGN 3.2: components every request signature covers. */
export const ALWAYS_COVERED = ['@method', '@authority', '@path', 'signature-key'] as const;
/** DESIGN 3.2: further components covered whenever the request has a body. */
export const COVERED_WITH_BODY = ['content-type', 'content-digest'] as const;

/** Whether the request carries content: received bytes, a non-zero `Content-Length`, or chunked framing. */
export function requestHasBody(request: IncomingSignedRequest): boolean {
  if (request.rawBody !== undefined && request.rawBody.byteLength > 0) return true;
  if (fieldLines(request.headers, 'transfer-encoding') !== undefined) return true;
  const length = fieldLines(request.headers, 'content-length');
  return length !== undefined && length.some((value) => value.trim() !== '0');
}

/**
 * DESIGN 3.2 (RFC 9421 §2.2.3, §2.2.6): `@authority` is the PS's own (its BASE_URL), never a
 * caller-chosen `Host`, and `@path` comes from an origin-form request target.
 */
export function signedMessage(request: IncomingSignedRequest, baseUrl: string): HttpRequest {
  // An absolute-form or `//host` target would let the caller pick the authority the signature covers.
  if (!request.originalUrl.startsWith('/') || request.originalUrl.startsWith('//')) fail('invalid_target');
  const origin = new URL(baseUrl).origin;
  let url: URL;
  try {
    url = new URL(`${origin}${request.originalUrl}`);
  } catch (error) {
    fail('invalid_target', error);
  }
  if (url.origin !== origin) fail('invalid_target');
  return { method: request.method, url: url.href, headers: request.headers };
}

/** The field as a Dictionary without repeated labels (RFC 9421 §4.1, §4.2), by the verifier's own parser; refusals are 401. */
function parseField(lines: readonly string[], malformed: 'malformed_signature_input' | 'malformed_signature'): Dictionary {
  try {
    return parseSignatureField(lines, malformed);
  } catch (error) {
    if (error instanceof HttpSignatureError) fail(error.reason, error);
    throw error;
  }
}

/**
 * Spec 5.1, DESIGN 3.2: `Signature-Input` and `Signature` are present, parse, and both carry the label `sig`. Returns
 * the `sig` input and both fields as parsed: `signatureVerifies` takes them instead of parsing again.
 */
export function signatureFieldsLabelledSig(headers: HttpHeaders): { input: SignatureInput; fields: SignatureFields } {
  const inputLines = fieldLines(headers, 'signature-input');
  const signatureLines = fieldLines(headers, 'signature');
  if (inputLines === undefined || signatureLines === undefined) fail('missing_signature');
  const inputs = parseField(inputLines, 'malformed_signature_input');
  const signatures = parseField(signatureLines, 'malformed_signature');
  const input = inputs.get(SIGNATURE_LABEL);
  if (input === undefined || !signatures.has(SIGNATURE_LABEL)) fail('missing_signature');
  const [items, parameters] = input;
  if (!Array.isArray(items)) fail('malformed_signature_input');
  const components = items.map(([name]) => (typeof name === 'string' ? name : fail('malformed_signature_input')));
  const created = parameters.get('created');
  const expires = parameters.get('expires');
  if (created !== undefined && !Number.isSafeInteger(created)) fail('malformed_signature_input');
  if (expires !== undefined && !Number.isSafeInteger(expires)) fail('malformed_signature_input');
  const signatureInput = {
    components,
    ...(created !== undefined ? { created: created as number } : {}),
    ...(expires !== undefined ? { expires: expires as number } : {}),
  };
  return { input: signatureInput, fields: { inputs, signatures } };
}

/** DESIGN 3.2: the components a request's signature must cover; a verifier accepts further covered components. */
export function requiredComponents(hasBody: boolean): readonly string[] {
  return hasBody ? [...ALWAYS_COVERED, ...COVERED_WITH_BODY] : ALWAYS_COVERED;
}

/** Spec 5.1, DESIGN 3.2: "@method" "@authority" "@path" "signature-key" are covered, plus "content-type" "content-digest" with a body. */
export function requiredComponentsCovered(input: SignatureInput, hasBody: boolean): void {
  const required = requiredComponents(hasBody);
  if (required.some((component) => !input.components.includes(component))) fail('missing_required_component', undefined, required);
}

/** Spec 5.6, DESIGN 3.2: `created` is present and within ±60 s of the PS clock; an `expires`, if given, has not passed. */
export function createdWithinWindow(input: SignatureInput, clock: Clock, maxAgeSeconds = SIGNATURE_MAX_AGE_SECONDS): void {
  if (input.created === undefined) fail('missing_created');
  const nowSeconds = Math.floor(clock.now().getTime() / 1000);
  if (Math.abs(nowSeconds - input.created) > maxAgeSeconds) fail('created_out_of_window');
  if (input.expires !== undefined && nowSeconds > input.expires) fail('expired');
}

const DIGEST_FAILURES: Readonly<Record<ContentDigestError['reason'], SignatureFailureReason>> = {
  missing: 'missing_content_digest',
  malformed: 'malformed_content_digest',
  unsupported_algorithm: 'unsupported_digest_algorithm',
  mismatch: 'content_digest_mismatch',
};

/**
 * Spec 5.6, DESIGN 3.2 (RFC 9530): a request with a body carries `Content-Digest` with a `sha-256` member
 * that matches the raw body bytes as received; a `Content-Digest` sent without a body must match the empty body.
 */
export function contentDigestMatchesBody(request: IncomingSignedRequest, hasBody: boolean): void {
  const field = fieldLines(request.headers, 'content-digest');
  if (!hasBody && field === undefined) return;
  // A body no parser kept (an unsupported media type) cannot be checked, so it is not accepted.
  if (hasBody && (request.rawBody === undefined || request.rawBody.byteLength === 0)) fail('unreadable_body');
  let checked: string[];
  try {
    checked = verifyContentDigest(field, request.rawBody ?? new Uint8Array());
  } catch (error) {
    if (error instanceof ContentDigestError) fail(DIGEST_FAILURES[error.reason], error);
    throw error;
  }
  if (!checked.includes('sha-256')) fail('unsupported_digest_algorithm');
}

/** RFC 9421 §3.2, spec 5.1: the signature labelled `sig` verifies with the resolved key over its covered components. */
export async function signatureVerifies(
  message: HttpRequest,
  signingKey: Pick<SigningKey, 'key'>,
  hasBody: boolean,
  clock: Clock,
  maxAgeSeconds = SIGNATURE_MAX_AGE_SECONDS,
  fields?: SignatureFields,
): Promise<VerifiedSignature> {
  try {
    return await verifyRequestSignature(message, {
      label: SIGNATURE_LABEL,
      requiredComponents: requiredComponents(hasBody),
      maxAgeSeconds,
      clock,
      resolveKey: () => signingKey.key,
      // Parsed once by signatureFieldsLabelledSig, from this request's own headers.
      ...(fields !== undefined ? { fields } : {}),
    });
  } catch (error) {
    if (error instanceof HttpSignatureError) fail(error.reason, error, error.reason === 'missing_required_component' ? requiredComponents(hasBody) : undefined);
    throw error;
  }
}
