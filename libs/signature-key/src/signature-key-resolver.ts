import { fieldLines, type HttpHeaders, type ResolvedKey, type SignatureParams } from '@mission/http-signatures';
import { hwkPrincipal, type ManagementPrincipal, type PrincipalRegistry } from './hwk-principal.js';
import { parseSignatureKey } from './parse-signature-key.js';
import { signatureAlgorithmOf } from './public-signing-jwk.js';
import { SignatureKeyError } from './signature-key-error.js';
import { verifyAgentToken, type AgentProvider } from './verify-agent-token.js';

/** Who signed the request, known once the signature verifies (DESIGN 3.2). */
export type AuthenticatedCaller =
  | { readonly kind: 'agent'; readonly agent: string; readonly parentAgent?: string; readonly issuer: string }
  | { readonly kind: 'principal'; readonly principal: ManagementPrincipal };

export interface SignatureKeyResolverOptions {
  readonly principals: PrincipalRegistry;
  readonly agentProviders: readonly AgentProvider[];
  readonly clock: { now(): Date };
  /** The signature label whose `Signature-Key` member is used; default `sig`. */
  readonly label?: string;
  /** Tolerance for an Agent Token's `iat` in the future; default 60 s. */
  readonly skewSeconds?: number;
}

export interface SignatureKeyResolver {
  /** Pass as `resolveKey` to `verifyRequestSignature`; throws a {@link SignatureKeyError} on refusal. */
  readonly resolveKey: (params: SignatureParams) => Promise<ResolvedKey>;
  /**
   * The caller behind the resolved key. Trust it only after `verifyRequestSignature` resolved: the key
   * is known before the signature is checked. Throws when no key has been resolved.
   */
  caller(): AuthenticatedCaller;
}

/**
 * DESIGN 3.2: the `resolveKey` callback for one request, from its `Signature-Key` field. `jwt` → the
 * verified Agent Token's `cnf.jwk`; `hwk` → the inline key of a registered principal; `jwks_uri` →
 * `unsupported_scheme` (DESIGN 3.3 uses it only for the Person Server's own outgoing calls).
 */
export function signatureKeyResolver(headers: HttpHeaders, options: SignatureKeyResolverOptions): SignatureKeyResolver {
  let resolved: AuthenticatedCaller | undefined;
  return {
    async resolveKey(): Promise<ResolvedKey> {
      resolved = undefined;
      const signatureKey = parseSignatureKey(fieldLines(headers, 'signature-key'), options.label ?? 'sig');
      switch (signatureKey.scheme) {
        case 'jwt': {
          const token = await verifyAgentToken(signatureKey.jwt, options.agentProviders, options.clock, {
            ...(options.skewSeconds !== undefined ? { skewSeconds: options.skewSeconds } : {}),
          });
          resolved = {
            kind: 'agent',
            agent: token.agent,
            ...(token.parentAgent !== undefined ? { parentAgent: token.parentAgent } : {}),
            issuer: token.issuer,
          };
          return { alg: signatureAlgorithmOf(token.cnfJwk), publicKey: { ...token.cnfJwk } };
        }
        case 'hwk': {
          const principal = await hwkPrincipal(signatureKey.key, options.principals);
          resolved = { kind: 'principal', principal };
          return { alg: signatureAlgorithmOf(signatureKey.key), publicKey: { ...signatureKey.key } };
        }
        case 'jwks_uri':
          throw new SignatureKeyError('unsupported_scheme', 'jwks_uri is not accepted for requests to the Person Server');
      }
    },
    caller(): AuthenticatedCaller {
      if (resolved === undefined) throw new Error('no Signature-Key has been resolved');
      return resolved;
    },
  };
}
