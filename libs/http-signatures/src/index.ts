export { contentDigest, verifyContentDigest, ContentDigestError, type ContentDigestErrorReason } from './content-digest.js';
export { HttpSignatureError, type HttpSignatureErrorReason } from './http-signature-error.js';
export { fieldLines, type HttpHeaders, type HttpMessage, type HttpRequest, type HttpResponse } from './http-message.js';
export { DERIVED_COMPONENTS, type DerivedComponent } from './component-value.js';
export { serializeSignatureParams, type SignatureParams } from './signature-params.js';
export { signatureBase } from './signature-base.js';
export { SIGNATURE_ALGORITHMS, type KeyInput, type SignatureAlgorithm } from './signature-algorithms.js';
export {
  verifyRequestSignature,
  type ResolvedKey,
  type VerifiedSignature,
  type VerifyRequestSignatureOptions,
} from './verify-request-signature.js';
export { signRequest, type SignedFields, type SignRequestOptions } from './sign-request.js';
export { dictionaryMemberKeys } from './dictionary-member-keys.js';
export { parseSignatureField, type SignatureFields } from './parse-signature-fields.js';
export { BoundedCache } from './bounded-cache.js';
export {
  IMPORTED_PUBLIC_KEYS_MAX,
  importedPublicKey,
  PublicKeyCache,
  publicKeyThumbprint,
  thumbprintInput,
  type ImportedPublicKey,
} from './imported-public-key.js';
