export { SignatureKeyError, type SignatureKeyErrorReason } from './signature-key-error.js';
export { publicSigningJwk, signatureAlgorithmOf, type PublicSigningJwk } from './public-signing-jwk.js';
export { parseSignatureKey, type SignatureKey, type SignatureKeyScheme } from './parse-signature-key.js';
export { rememberingSignatureKeyParser, type SignatureKeyParser } from './remembering-signature-key-parser.js';
export { hwkPrincipal, principalRegistry, type ManagementPrincipal, type PrincipalRegistry } from './hwk-principal.js';
export {
  AGENT_TOKEN_TYPE,
  verifyAgentToken,
  type AgentProvider,
  type VerifiedAgentToken,
  type VerifyAgentTokenOptions,
} from './verify-agent-token.js';
export {
  signatureKeyResolver,
  type AuthenticatedCaller,
  type SignatureKeyResolver,
  type SignatureKeyResolverOptions,
} from './signature-key-resolver.js';
