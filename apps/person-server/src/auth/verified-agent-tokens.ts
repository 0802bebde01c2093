import { BoundedCache } from '@mission/http-signatures';
import type { VerifiedAgentToken } from '@mission/signature-key';
import type { AgentTokenClaims } from '../identity/authenticated-caller.js';
import type { AgentProviderKeys } from './agent-provider-keys.js';
import type { SigningKey } from './authentication-rules.js';

/** ADR 0065: at most this many verified Agent Tokens are remembered (a few KB each); least recently used go first. */
export const VERIFIED_AGENT_TOKENS_MAX = 10_000;
/** `verifyAgentToken`'s tolerance for an `iat` in the future (its default). */
const IAT_SKEW_SECONDS = 60;

/** One Agent Token that passed `verifyAgentToken` and the provider binding, with what the next request needs. */
export interface RememberedAgentToken {
  /** The unverified header `kid` and `iss` it was verified with: the provider keys are looked up again by them. */
  readonly issuer: string;
  readonly kid: string;
  /** The provider's key list it verified under, by identity: a refresh or a rotation yields another list. */
  readonly keys: readonly unknown[];
  readonly token: VerifiedAgentToken;
  /** Deep-frozen: every request with this token is handed the same object, and none may change it for the next. */
  readonly signingKey: SigningKey;
}

/**
 * Issue 15, ADR 0065: Agent Tokens that verified, keyed by their exact compact text, so that an agent's next
 * request with the same token does not verify it again (an agent presents one token on every request until it
 * expires: ES256 with jose, three decodes and a thumbprint, ≈ 440 µs per request measured).
 *
 * What a remembered token skips is only what depends on nothing but its bytes and the provider's key list: the
 * header checks, the signature, `sub`, `cnf.jwk`. What depends on time or configuration is checked on every use
 * ({@link RememberedAgentTokens.usable}): `exp` (no tolerance), `iat` not in the future, `nbf` if present, the
 * issuer still a configured provider, the key list it verified under still the provider's current one (a refresh
 * or rotation means verifying afresh), and the agent still within the provider's agent domains.
 */
export class VerifiedAgentTokens {
  private readonly tokens: BoundedCache<RememberedAgentToken>;

  constructor(maxEntries = VERIFIED_AGENT_TOKENS_MAX) {
    this.tokens = new BoundedCache(maxEntries);
  }

  /** The signing key of a remembered token that is still usable now; undefined means: verify it in full. */
  async usable(jwt: string, providers: AgentProviderKeys, now: Date): Promise<SigningKey | undefined> {
    const remembered = this.tokens.get(jwt);
    if (remembered === undefined) return undefined;
    if (!withinLifetime(remembered.signingKey, now)) {
      this.tokens.delete(jwt);
      return undefined;
    }
    if (!providers.isTrusted(remembered.issuer)) return undefined;
    const provider = await providers.providerFor(remembered.issuer, remembered.kid);
    if (provider.jwks?.keys !== remembered.keys) return undefined;
    const { token } = remembered;
    if (!providers.binding.vouches(token.issuer, token.agent)) return undefined;
    if (token.parentAgent !== undefined && !providers.binding.vouches(token.issuer, token.parentAgent)) return undefined;
    return remembered.signingKey;
  }

  /** Records a token that has just verified; returns the frozen signing key every later use is handed. */
  remember(jwt: string, verified: Omit<RememberedAgentToken, 'signingKey'>, signingKey: SigningKey): SigningKey {
    const frozen = deepFreeze(signingKey);
    this.tokens.set(jwt, { ...verified, signingKey: frozen });
    return frozen;
  }

  get size(): number {
    return this.tokens.size;
  }
}

/** The time rules of `verifyAgentToken` (jose's `exp`, `nbf`; our `iat` skew), at `now`. */
function withinLifetime(signingKey: SigningKey, now: Date): boolean {
  if (signingKey.caller.kind !== 'agent') return false;
  const claims: AgentTokenClaims = signingKey.caller.tokenClaims;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const nbf = claims['nbf'];
  return claims.exp > nowSeconds && claims.iat <= nowSeconds + IAT_SKEW_SECONDS && (nbf === undefined || (typeof nbf === 'number' && nbf <= nowSeconds));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
