import { fieldLines, publicKeyThumbprint, type HttpHeaders, type ResolvedKey } from '@mission/http-signatures';
import {
  hwkPrincipal,
  parseSignatureKey,
  signatureAlgorithmOf,
  SignatureKeyError,
  verifyAgentToken,
  type AgentProvider,
  type PrincipalRegistry,
  type SignatureKeyParser,
  type VerifiedAgentToken,
} from '@mission/signature-key';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Clock } from '../time/clock.js';
import type { AgentTokenClaims, AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { AgentProviderUnavailableError, type AgentProviderKeys } from './agent-provider-keys.js';
import { fail, SIGNATURE_LABEL } from './signature-rule-support.js';
import type { VerifiedAgentTokens } from './verified-agent-tokens.js';

/* Spec 5.1, 5.3, DESIGN 3.2: who signed — the key named by `Signature-Key`, resolved and vouched for. */

/** The `sig` member of `Signature-Key`, parsed (draft-hardt-httpbis-signature-key); refusals are 401 with the parser's reason. */
export function signatureKeyOf(headers: HttpHeaders): ReturnType<typeof parseSignatureKey> {
  try {
    return parseSignatureKey(fieldLines(headers, 'signature-key'), SIGNATURE_LABEL);
  } catch (error) {
    if (error instanceof SignatureKeyError) fail(error.reason, error);
    throw error;
  }
}

/** What resolving the `Signature-Key` yields: the verification key and who holds it (trusted only once the signature verifies). */
export interface SigningKey {
  readonly key: ResolvedKey;
  readonly caller: AuthenticatedCaller;
}

export interface KeySources {
  readonly principals: PrincipalRegistry;
  readonly agentProviders: AgentProviderKeys;
  readonly clock: Clock;
  /** Agent Tokens already verified (ADR 0065); without it every token is verified in full. */
  readonly verifiedTokens?: VerifiedAgentTokens;
  /** `Signature-Key` parser, e.g. one that remembers its parses (issue 15); default: `parseSignatureKey`. */
  readonly parseSignatureKey?: SignatureKeyParser;
}

/** The Agent Token's unverified `iss` and header `kid`, to pick the provider keys; verification comes after. */
function unverifiedIssuerAndKid(jwt: string): { issuer?: string; kid?: string } {
  try {
    const { kid } = decodeProtectedHeader(jwt);
    const { iss } = decodeJwt(jwt);
    return { ...(typeof iss === 'string' ? { issuer: iss } : {}), ...(typeof kid === 'string' && kid !== '' ? { kid } : {}) };
  } catch {
    return {};
  }
}

/**
 * Spec 5.2, 5.4, issue 12 defect 1 (ADR 0015): an Agent Token's `sub` — and `parent_agent`, if any — must be
 * identifiers its issuer may assert (their domain is one of the provider's `agent_domains`). Otherwise provider
 * B could mint a token naming provider A's agent and act as it. Refused before the signature is even checked
 * against the token's key, and the same way whatever mission the request names (no oracle).
 */
export function agentIdentifiersVouchedByIssuer(token: VerifiedAgentToken, providers: Pick<AgentProviderKeys, 'binding'>): void {
  if (!providers.binding.vouches(token.issuer, token.agent)) fail('agent_outside_provider');
  if (token.parentAgent !== undefined && !providers.binding.vouches(token.issuer, token.parentAgent)) fail('agent_outside_provider');
}

async function agentSigningKey(jwt: string, sources: KeySources): Promise<SigningKey> {
  const remembered = await sources.verifiedTokens?.usable(jwt, sources.agentProviders, sources.clock.now());
  if (remembered !== undefined) return remembered;
  const { issuer, kid } = unverifiedIssuerAndKid(jwt);
  let providers: AgentProvider[] = [];
  if (issuer !== undefined && sources.agentProviders.isTrusted(issuer)) {
    // Without a readable kid no keys are fetched: verifyAgentToken then refuses the header as it stands.
    providers = kid === undefined ? [{ issuer, jwks: { keys: [] } }] : [await sources.agentProviders.providerFor(issuer, kid)];
  }
  const token = await verifyAgentToken(jwt, providers, sources.clock);
  agentIdentifiersVouchedByIssuer(token, sources.agentProviders);
  const claims = decodeJwt(jwt) as AgentTokenClaims;
  const signingKey: SigningKey = {
    key: { alg: signatureAlgorithmOf(token.cnfJwk), publicKey: { ...token.cnfJwk } },
    caller: {
      kind: 'agent',
      provider: token.issuer,
      agent: token.agent,
      ...(token.parentAgent !== undefined ? { parentAgent: token.parentAgent } : {}),
      // Issue 15, ADR 0062: the agent's key is imported and thumbprinted once, not on every signed request.
      agentJkt: publicKeyThumbprint(token.cnfJwk),
      tokenClaims: claims,
    },
  };
  const keys = providers[0]?.jwks?.keys;
  if (sources.verifiedTokens === undefined || issuer === undefined || kid === undefined || keys === undefined) return signingKey;
  return sources.verifiedTokens.remember(jwt, { issuer, kid, keys, token }, signingKey);
}

/**
 * Spec 5.1, 5.3, DESIGN 3.2: the key named by `Signature-Key` (label `sig`): `jwt` → an Agent Token from a
 * configured agent provider, its `cnf.jwk`; `hwk` → a key whose thumbprint a configured principal registered.
 */
export async function signingKeyFromSignatureKey(headers: HttpHeaders, sources: KeySources): Promise<SigningKey> {
  try {
    const signatureKey = (sources.parseSignatureKey ?? parseSignatureKey)(fieldLines(headers, 'signature-key'), SIGNATURE_LABEL);
    switch (signatureKey.scheme) {
      case 'jwt':
        return await agentSigningKey(signatureKey.jwt, sources);
      case 'hwk': {
        const principal = await hwkPrincipal(signatureKey.key, sources.principals);
        return {
          key: { alg: signatureAlgorithmOf(signatureKey.key), publicKey: { ...signatureKey.key } },
          caller: { kind: 'principal', id: principal.id, role: principal.role, tenant: principal.tenant, agents: principal.agents ?? [] },
        };
      }
      case 'jwks_uri':
        // DESIGN 3.3 uses jwks_uri only for the PS's own outgoing calls.
        return fail('unsupported_scheme');
    }
  } catch (error) {
    if (error instanceof SignatureKeyError) fail(error.reason, error);
    if (error instanceof AgentProviderUnavailableError) fail('agent_provider_unavailable', error);
    throw error;
  }
}
