/**
 * The parties around the Person Server that the demo plays itself with the public demo keys: the agent
 * provider `https://agents.example` (mints Agent Tokens) and the resource `https://files.example` (mints
 * Resource Tokens). Real agents get these tokens from their provider and from the resource.
 */
import { importJWK, SignJWT } from 'jose';
import { randomBase64url, type SigningKey } from '@mission/mission-client';
import { demoKey } from './demo-keys.js';

export const AGENT_PROVIDER = 'https://agents.example';
export const ASSISTANT = 'aauth:assistant@agents.example';
export const DEMO_RESOURCE = 'https://files.example';

/** An `aa-agent+jwt` for `agent` whose `cnf.jwk` is the agent's own key; `parentAgent` marks a sub-agent. */
export async function agentToken(agent: string, agentKey: SigningKey, options: { parentAgent?: string; lifetimeSeconds?: number } = {}): Promise<string> {
  const provider = demoKey('ps-agent-provider-agents.example');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ cnf: { jwk: agentKey.publicJwk }, ...(options.parentAgent !== undefined ? { parent_agent: options.parentAgent } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'aa-agent+jwt', kid: provider.kid! })
    .setIssuer(AGENT_PROVIDER)
    .setSubject(agent)
    .setIssuedAt(now - 5)
    .setExpirationTime(now + (options.lifetimeSeconds ?? 3600))
    .sign(await importJWK(provider, 'ES256'));
}

/** An `aa-resource+jwt` of `https://files.example` asking the PS (`audience`) for an Auth Token for `agent`. */
export async function resourceToken(options: { agent: string; agentJkt: string; missionS256: string; audience: string; scope?: string }): Promise<string> {
  const resource = demoKey('ps-resource-files.example');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ agent: options.agent, agent_jkt: options.agentJkt, mission_s256: options.missionS256, scope: options.scope ?? 'files.read' })
    .setProtectedHeader({ alg: 'ES256', typ: 'aa-resource+jwt', kid: resource.kid! })
    .setIssuer(DEMO_RESOURCE)
    .setAudience(options.audience)
    .setJti(`rt-${randomBase64url(12)}`)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .sign(await importJWK(resource, 'ES256'));
}
