import { serializeDictionary } from 'structured-headers';
import type { HttpMessage } from './http-message.js';
import { signBase, type KeyInput, type SignatureAlgorithm } from './signature-algorithms.js';
import { signatureBase } from './signature-base.js';
import { signatureParamsInnerList, type SignatureParams } from './signature-params.js';

export interface SignRequestOptions {
  readonly label: string;
  readonly components: readonly string[];
  /** Serialized in this key order; `created` is normally set (our verifiers require it). */
  readonly params: SignatureParams;
  readonly alg: SignatureAlgorithm;
  readonly privateKey: KeyInput;
}

/** The `Signature-Input` and `Signature` field values to add to the message (RFC 9421 §3.1, §4). */
export interface SignedFields {
  readonly 'signature-input': string;
  readonly signature: string;
  readonly base: string;
}

/**
 * RFC 9421 §3.1: signs the covered components of a request (or response). The message must already
 * carry every covered header, including `content-digest` and `signature-key` when covered.
 */
export function signRequest(message: HttpMessage, options: SignRequestOptions): SignedFields {
  const base = signatureBase(message, options.components, options.params);
  const signature = signBase(options.alg, options.privateKey, base);
  return {
    'signature-input': serializeDictionary(
      new Map([[options.label, signatureParamsInnerList(options.components, options.params)]]),
    ),
    signature: serializeDictionary(new Map([[options.label, [signature, new Map()]]])),
    base,
  };
}
