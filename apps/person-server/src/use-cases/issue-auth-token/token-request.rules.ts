import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { SignatureKeyError, verifyAgentToken, type AgentProvider } from '@mission/signature-key';
import { sameAgent } from '../../identity/agent-binding.js';
import type { AgentProviderKeys } from '../../auth/agent-provider-keys.js';
import type { AuthenticatedAgent, AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { AccessDeniedProblem, InvalidRequestProblem } from '../../errors/problems.js';
import { jsonShape } from '../../http/json-shape.js';
import { TokenRequestBody } from './token-request.body.js';
import type { VerifiedResourceToken } from '../../tokens/resource-token.js';
import type { VerifiedUpstreamToken } from '../../tokens/auth-tokens.js';

export { MAX_TOKEN_LENGTH } from './token-request.body.js';

/** The `POST /token` body (DESIGN 3.1, 3.3). */
export interface TokenRequest {
  readonly resourceToken: string;
  readonly subagentToken?: string;
  readonly upstreamToken?: string;
}

/** Who will hold the Auth Token: its `cnf` key and its place in the delegation tree. */
export interface TokenHolder {
  readonly agent: string;
  readonly jkt: string;
  readonly cnfJwk: JWK;
}

// ── One rule per function, in the order the endpoint runs them ──────────────────────────────────

/** DESIGN 3.1: Auth Tokens are requested by agents; a person or administrator has no use for one. */
export function requireAgent(caller: AuthenticatedCaller): AuthenticatedAgent {
  if (caller.kind !== 'agent') throw new AccessDeniedProblem('only an agent may request an auth token');
  return caller;
}

/** DESIGN 3.3: AAuth sub-agents are single-level; a sub-agent's own token requests are refused (its parent asks for it). */
export function refuseSubAgentCaller(caller: AuthenticatedAgent): void {
  if (caller.parentAgent !== undefined) throw new AccessDeniedProblem('a sub-agent cannot request auth tokens; its parent agent requests them with subagent_token');
}

/**
 * The shape of the body (TokenRequestBody): `resource_token` required; `subagent_token` and `upstream_token`
 * optional, not both. Unknown members are ignored.
 */
export function parseTokenRequest(body: unknown): TokenRequest {
  const { resource_token: resourceToken, subagent_token: subagentToken, upstream_token: upstreamToken } = jsonShape(TokenRequestBody, body, 'the request must be a JSON object');
  if (subagentToken !== undefined && upstreamToken !== undefined) throw new InvalidRequestProblem('subagent_token and upstream_token cannot be combined');
  return { resourceToken, ...(subagentToken !== undefined ? { subagentToken } : {}), ...(upstreamToken !== undefined ? { upstreamToken } : {}) };
}

/** The caller's own key (from its verified Agent Token) holds the token, unless a sub-agent is named. */
export async function callerAsHolder(caller: AuthenticatedAgent): Promise<TokenHolder> {
  const cnf = caller.tokenClaims['cnf'] as { jwk?: Record<string, unknown> } | undefined;
  const jwk = publicMembers(cnf?.jwk ?? {});
  return { agent: caller.agent, jkt: caller.agentJkt, cnfJwk: jwk };
}

/**
 * DESIGN 3.3: `subagent_token` is the sub-agent's Agent Token from a configured provider whose
 * `parent_agent` is the caller (spec 4.3 rule 4: the edge comes from this verified token, not from
 * the caller's say-so). The sub-agent's key then holds the Auth Token. Issue 12 defect 1 (ADR 0015): its
 * `sub` and `parent_agent` must be identifiers its issuer may assert, and the parent it names is compared
 * with the caller by (provider, identifier) — another provider cannot attach agents under the caller.
 */
export async function verifiedSubAgent(jwt: string, caller: AuthenticatedAgent, providers: AgentProviderKeys, clock: { now(): Date }): Promise<TokenHolder> {
  let verified;
  try {
    const issuer = unverifiedClaim(jwt, 'iss');
    const kid = unverifiedKid(jwt);
    const known: AgentProvider[] = issuer !== undefined && kid !== undefined && providers.isTrusted(issuer) ? [await providers.providerFor(issuer, kid)] : [];
    verified = await verifyAgentToken(jwt, known, clock);
  } catch (error) {
    if (error instanceof SignatureKeyError) throw new InvalidRequestProblem('subagent_token is not a valid agent token of a configured provider');
    throw error;
  }
  if (!providers.binding.vouches(verified.issuer, verified.agent)) throw new InvalidRequestProblem('subagent_token names an agent outside its provider\'s agent domains');
  const parent = verified.parentAgent !== undefined ? { provider: verified.issuer, agent: verified.parentAgent } : undefined;
  if (parent === undefined || !sameAgent(parent, caller)) throw new InvalidRequestProblem('subagent_token must name the calling agent (of the same provider) as parent_agent');
  const cnfJwk = publicMembers(verified.cnfJwk as unknown as Record<string, unknown>);
  return { agent: verified.agent, jkt: await calculateJwkThumbprint(cnfJwk, 'sha256'), cnfJwk };
}

/** DESIGN 3.1: the Resource Token names the agent (and its key) that will present the Auth Token. */
export function resourceTokenNamesHolder(resource: VerifiedResourceToken, holder: TokenHolder): void {
  if (resource.agent !== holder.agent || resource.agentJkt !== holder.jkt) {
    throw new InvalidRequestProblem('resource_token was issued for another agent or key');
  }
}

/** Which agents a configured resource calls onwards as (CONFIG_FILE `resources[].call_chain_agents`). */
export interface CallChainAgentSource {
  /** Undefined when `resource` is not a configured resource. */
  callChainAgents(resource: string): readonly string[] | undefined;
}

/**
 * DESIGN 3.3 call chain, bound to its caller (ADR 0012): the one who calls onwards is the resource the
 * upstream Auth Token was issued to (`aud`), so only an agent that resource declares as its own may present
 * it. Without this, any agent holding a copy of an Auth Token could draw new tokens under its mission.
 * Runs before any lookup under the mission: an agent refused here learns nothing about the mission.
 */
export function callerCallsOnwardsForUpstreamAudience(upstream: VerifiedUpstreamToken, caller: AuthenticatedAgent, resources: CallChainAgentSource): void {
  const declared = resources.callChainAgents(upstream.aud);
  if (declared === undefined || !declared.includes(caller.agent)) {
    throw new InvalidRequestProblem('upstream_token was not issued to a resource that declares the calling agent in call_chain_agents');
  }
}

/** DESIGN 3.3 call chain: the upstream Auth Token is of the same mission as the new Resource Token. */
export function upstreamMatchesMission(upstream: VerifiedUpstreamToken, resource: VerifiedResourceToken): void {
  if (upstream.missionS256 !== resource.missionS256) throw new InvalidRequestProblem('upstream_token belongs to another mission');
}

function publicMembers(jwk: Record<string, unknown>): JWK {
  const { kty, crv, x, y } = jwk as { kty?: string; crv?: string; x?: string; y?: string };
  return { ...(kty !== undefined ? { kty } : {}), ...(crv !== undefined ? { crv } : {}), ...(x !== undefined ? { x } : {}), ...(y !== undefined ? { y } : {}) };
}

function unverifiedClaim(jwt: string, name: string): string | undefined {
  try {
    const value = decodeJwt(jwt)[name];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function unverifiedKid(jwt: string): string | undefined {
  try {
    const { kid } = decodeProtectedHeader(jwt);
    return typeof kid === 'string' && kid !== '' ? kid : undefined;
  } catch {
    return undefined;
  }
}
