import { HttpSignatureError } from './http-signature-error.js';
import { fieldLines, type HttpMessage } from './http-message.js';
import { parseSignatureField, type SignatureFields } from './parse-signature-fields.js';
import { isSignatureAlgorithm, verifyBase, type KeyInput, type SignatureAlgorithm } from './signature-algorithms.js';
import { signatureBase } from './signature-base.js';
import { signatureParamsFromParameters, type SignatureParams } from './signature-params.js';

export interface ResolvedKey {
  readonly alg: SignatureAlgorithm;
  readonly publicKey: KeyInput;
}

export interface VerifyRequestSignatureOptions {
  /** The signature label to verify, e.g. `sig`. */
  readonly label: string;
  /** Components the signature must cover; further covered components are accepted (DESIGN 3.2). */
  readonly requiredComponents: readonly string[];
  /** `created` must lie within ±maxAgeSeconds of now. */
  readonly maxAgeSeconds: number;
  readonly clock: { now(): Date };
  /** Finds the verification key for the signature's parameters; `undefined` when there is none. */
  readonly resolveKey: (params: SignatureParams) => ResolvedKey | undefined | Promise<ResolvedKey | undefined>;
  /**
   * `Signature-Input` and `Signature` of THIS message, already parsed by the caller with {@link parseSignatureField}
   * (a verifier that checks them before the key is resolved need not parse them twice: issue 15). Parsed here
   * when absent.
   */
  readonly fields?: SignatureFields;
}

export interface VerifiedSignature {
  readonly label: string;
  readonly components: readonly string[];
  readonly params: SignatureParams;
  /** The signature bytes, e.g. as a replay-cache key. */
  readonly signature: Uint8Array;
}

function coveredComponents(items: readonly [unknown, Map<string, unknown>][]): string[] {
  return items.map(([name, parameters]) => {
    if (typeof name !== 'string') {
      throw new HttpSignatureError('malformed_signature_input', 'component identifiers are strings');
    }
    if (parameters.size > 0) {
      throw new HttpSignatureError('unsupported_component', `component parameters are not supported (${name})`);
    }
    return name;
  });
}

function signatureFieldsOf(message: HttpMessage): SignatureFields {
  const inputLines = fieldLines(message.headers, 'signature-input');
  const signatureLines = fieldLines(message.headers, 'signature');
  if (inputLines === undefined || signatureLines === undefined) {
    throw new HttpSignatureError('missing_signature', 'Signature-Input and Signature are required');
  }
  return { inputs: parseSignatureField(inputLines, 'malformed_signature_input'), signatures: parseSignatureField(signatureLines, 'malformed_signature') };
}

function checkTimes(params: SignatureParams, maxAgeSeconds: number, now: Date): void {
  if (params.created === undefined) throw new HttpSignatureError('missing_created', 'created is required');
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (Math.abs(nowSeconds - params.created) > maxAgeSeconds) {
    throw new HttpSignatureError('created_out_of_window', 'created is outside the accepted window');
  }
  if (params.expires !== undefined && nowSeconds > params.expires) {
    throw new HttpSignatureError('expired', 'the signature has expired');
  }
}

/**
 * RFC 9421 §3.2: verifies the signature with `label` of a request (or response). Checks, in order: both
 * fields parse as Dictionaries without duplicate labels, the label exists in both, the required
 * components are covered, `created` (and `expires`) against the clock, the key and its algorithm, the
 * signature base, and finally the signature.
 */
export async function verifyRequestSignature(
  message: HttpMessage,
  options: VerifyRequestSignatureOptions,
): Promise<VerifiedSignature> {
  const { inputs, signatures } = options.fields ?? signatureFieldsOf(message);

  const input = inputs.get(options.label);
  const signatureMember = signatures.get(options.label);
  if (input === undefined || signatureMember === undefined) {
    throw new HttpSignatureError('missing_signature', `no signature labelled ${options.label}`);
  }
  if (!Array.isArray(input[0])) {
    throw new HttpSignatureError('malformed_signature_input', 'a Signature-Input member is an Inner List');
  }
  const signatureValue = signatureMember[0];
  if (!(signatureValue instanceof ArrayBuffer)) {
    throw new HttpSignatureError('malformed_signature', 'a Signature member is a Byte Sequence');
  }
  const components = coveredComponents(input[0]);
  const params = signatureParamsFromParameters(input[1]);

  for (const required of options.requiredComponents) {
    if (!components.includes(required)) {
      throw new HttpSignatureError('missing_required_component', `${required} must be covered`);
    }
  }
  checkTimes(params, options.maxAgeSeconds, options.clock.now());

  const key = await options.resolveKey(params);
  if (key === undefined) throw new HttpSignatureError('unknown_key', 'no key for this signature');
  if (!isSignatureAlgorithm(key.alg)) throw new HttpSignatureError('unsupported_algorithm', 'unsupported algorithm');
  if (params.alg !== undefined && params.alg !== key.alg) {
    throw new HttpSignatureError('algorithm_mismatch', 'alg does not match the key');
  }

  const base = signatureBase(message, components, params);
  const signature = new Uint8Array(signatureValue);
  if (!verifyBase(key.alg, key.publicKey, base, signature)) {
    throw new HttpSignatureError('invalid_signature', 'the signature does not verify');
  }
  return { label: options.label, components, params, signature };
}
