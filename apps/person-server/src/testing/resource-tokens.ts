import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importJWK, SignJWT, type JWK } from 'jose';
import { repositoryRoot } from './run-person-server.js';

/** The demo resource of config/person-server.json and its private key (public demo key, never for production). */
export const DEMO_RESOURCE = 'https://files.example';
const RESOURCE_KEY = JSON.parse(readFileSync(join(repositoryRoot, 'config/demo-keys/ps-resource-files.example.private.jwk.json'), 'utf8')) as JWK;

export interface ResourceTokenClaims {
  readonly agent: string;
  readonly agentJkt: string;
  readonly missionS256: string;
  /** The PS identifier (`aud`). */
  readonly audience: string;
  readonly scope?: string;
  readonly lifetimeSeconds?: number;
  readonly extra?: Record<string, unknown>;
  readonly typ?: string;
}

/** A Resource Token (`aa-resource+jwt`, DESIGN 3.1) signed with the demo resource key. */
export async function resourceToken(claims: ResourceTokenClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    agent: claims.agent,
    agent_jkt: claims.agentJkt,
    mission_s256: claims.missionS256,
    ...(claims.scope !== undefined ? { scope: claims.scope } : {}),
    ...claims.extra,
  })
    .setProtectedHeader({ alg: 'ES256', typ: claims.typ ?? 'aa-resource+jwt', kid: RESOURCE_KEY.kid! })
    .setIssuer(DEMO_RESOURCE)
    .setAudience(claims.audience)
    .setJti(`rt-${Math.random().toString(36).slice(2)}`)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.lifetimeSeconds ?? 120))
    .sign(await importJWK(RESOURCE_KEY, 'ES256'));
}

/** config/person-server.json with the demo resource's revocation endpoint and revocation settings replaced. */
export function configWithResource(revocationEndpoint: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const config = JSON.parse(readFileSync(join(repositoryRoot, 'config/person-server.json'), 'utf8')) as Record<string, unknown>;
  const resources = (config['resources'] as Record<string, unknown>[]).map((resource) =>
    resource['issuer'] === DEMO_RESOURCE ? { ...resource, revocation_endpoint: revocationEndpoint } : resource,
  );
  return { ...config, resources, ...overrides };
}
