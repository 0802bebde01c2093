import { serializeInnerList, type BareItem, type InnerList, type Parameters } from 'structured-headers';
import { HttpSignatureError } from './http-signature-error.js';

/** RFC 9421 §2.3 signature parameters. Serialized in the order the keys were set. */
export interface SignatureParams {
  readonly created?: number;
  readonly expires?: number;
  readonly keyid?: string;
  readonly alg?: string;
  readonly nonce?: string;
  readonly tag?: string;
}

const INTEGER_PARAMS = ['created', 'expires'] as const;
const STRING_PARAMS = ['keyid', 'alg', 'nonce', 'tag'] as const;

/** Builds the Inner List that is both the `@signature-params` value and the `Signature-Input` member. */
export function signatureParamsInnerList(components: readonly string[], params: SignatureParams): InnerList {
  const parameters: Parameters = new Map();
  for (const [key, value] of Object.entries(params) as [string, unknown][]) {
    if (value === undefined) continue;
    if ((INTEGER_PARAMS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw new HttpSignatureError('unsupported_parameter', `${key} must be an integer`);
      }
    } else if ((STRING_PARAMS as readonly string[]).includes(key)) {
      if (typeof value !== 'string') throw new HttpSignatureError('unsupported_parameter', `${key} must be a string`);
    } else {
      throw new HttpSignatureError('unsupported_parameter', `unsupported signature parameter ${key}`);
    }
    parameters.set(key, value as BareItem);
  }
  return [components.map((name) => [name, new Map()]), parameters];
}

/** RFC 9421 §2.3: the serialized `@signature-params` value, e.g. `("@method");created=1;keyid="k"`. */
export function serializeSignatureParams(components: readonly string[], params: SignatureParams): string {
  return serializeInnerList(signatureParamsInnerList(components, params));
}

/**
 * The signature parameters of a parsed `Signature-Input` member, in their received order, so the base
 * reproduces the signer's serialization. Unknown parameters and wrong types are refused.
 */
export function signatureParamsFromParameters(parameters: Parameters): SignatureParams {
  const params: Record<string, string | number> = {};
  for (const [key, value] of parameters) {
    if ((INTEGER_PARAMS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw new HttpSignatureError('malformed_signature_input', `${key} must be an integer`);
      }
    } else if ((STRING_PARAMS as readonly string[]).includes(key)) {
      if (typeof value !== 'string') throw new HttpSignatureError('malformed_signature_input', `${key} must be a string`);
    } else {
      throw new HttpSignatureError('unsupported_parameter', `unsupported signature parameter ${key}`);
    }
    params[key] = value;
  }
  return params as SignatureParams;
}
