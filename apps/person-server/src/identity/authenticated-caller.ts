/** The verified claims of the Agent Token a caller presented (`aa-agent+jwt`, DESIGN 3.1). Never the token itself. */
export interface AgentTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly iat: number;
  readonly exp: number;
  readonly [claim: string]: unknown;
}

/** An Agent, authenticated by a request signed with the key of its verified Agent Token (spec 5.1, DESIGN 3.2). */
export interface AuthenticatedAgent {
  readonly kind: 'agent';
  /**
   * The verified `iss` of the Agent Token: the agent provider that vouches for {@link agent}. The authenticator
   * accepts only identifiers within this provider's agent domains (ADR 0015), so (provider, agent) is the
   * agent's identity and `agent` alone names one provider.
   */
  readonly provider: string;
  /** The Agent Token's `sub`: the agent identifier, e.g. `aauth:assistant@agents.example`. */
  readonly agent: string;
  /** The Agent Token's `parent_agent` (same provider, ADR 0015): present when the caller is a sub-agent. */
  readonly parentAgent?: string;
  /** RFC 7638 SHA-256 thumbprint of the Agent Token's `cnf.jwk`, the key that signed the request. */
  readonly agentJkt: string;
  readonly tokenClaims: AgentTokenClaims;
}

/**
 * A Management Principal (spec 5.3): a person or administrator whose `hwk` signing key is registered by
 * thumbprint in the configuration (DESIGN 3.2). An Agent never becomes one (spec 5.4).
 */
export interface AuthenticatedPrincipal {
  readonly kind: 'principal';
  readonly id: string;
  readonly role: 'person' | 'admin';
  readonly tenant: string;
  /** For persons: the agents whose missions they own; empty for administrators. */
  readonly agents: readonly string[];
}

/** Who signed a request, once {@link RequestAuthenticator.authenticate} accepted it. */
export type AuthenticatedCaller = AuthenticatedAgent | AuthenticatedPrincipal;

/**
 * A stable, unambiguous string naming the caller, for idempotency records (spec 4.2 rule 2: keyed by
 * authenticated caller and `request_id`), rate limits and the security audit: `agent:<iss>:<sub>` or
 * `principal:<id>`, each part percent-encoded. It does not change when an agent rotates its key, and
 * it names no secret.
 */
export function callerKey(caller: AuthenticatedCaller): string {
  return caller.kind === 'agent'
    ? `agent:${encodeURIComponent(caller.provider)}:${encodeURIComponent(caller.agent)}`
    : `principal:${encodeURIComponent(caller.id)}`;
}
