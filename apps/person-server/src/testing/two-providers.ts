import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { freshKey, type TestKey } from './signed-request.spec-helper.js';
import { repositoryRoot } from './run-person-server.js';

/** A second agent provider beside the demo one (`https://agents.example`), vouching for `*@agents-b.example`. */
export const PROVIDER_B = 'https://agents-b.example';
export const PROVIDER_B_DOMAIN = 'agents-b.example';

export interface TwoProviderFixture {
  /** CONFIG_FILE: the demo configuration plus provider B, a person and an administrator of tenant t2. */
  readonly configFile: string;
  /** Provider B's issuer and private signing key (mints its Agent Tokens). */
  readonly providerB: { readonly issuer: string; readonly jwk: JWK };
  /** Person of tenant t2 owning `aauth:assistant@agents-b.example`. */
  readonly carol: TestKey;
  /** Administrator of tenant t2. */
  readonly ops2: TestKey;
}

/**
 * Issue 12 (test like an attacker): the shipped demo configuration (provider A = `https://agents.example`,
 * tenant t1 with alice, bob and ops) plus provider B with its own agent domain and tenant t2 (carol, ops2),
 * written to `dir`. `overrides` are merged into the top level.
 */
export async function writeTwoProviderConfig(dir: string, overrides: Record<string, unknown> = {}): Promise<TwoProviderFixture> {
  const demo = JSON.parse(readFileSync(join(repositoryRoot, 'config/person-server.json'), 'utf8')) as Record<string, unknown[]>;
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = 'provider-b-1';
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const carol = await freshKey();
  const ops2 = await freshKey('ES256');
  const config = {
    ...demo,
    principals: [
      ...demo['principals']!,
      { id: 'carol', role: 'person', jkt: await calculateJwkThumbprint(carol.publicJwk), tenant: 't2', agents: [`aauth:assistant@${PROVIDER_B_DOMAIN}`] },
      { id: 'ops2', role: 'admin', jkt: await calculateJwkThumbprint(ops2.publicJwk), tenant: 't2' },
    ],
    agent_providers: [...demo['agent_providers']!, { issuer: PROVIDER_B, agent_domains: [PROVIDER_B_DOMAIN], jwks: { keys: [publicJwk] } }],
    ...overrides,
  };
  const configFile = join(dir, 'person-server.two-providers.json');
  writeFileSync(configFile, JSON.stringify(config));
  return { configFile, providerB: { issuer: PROVIDER_B, jwk: privateJwk }, carol, ops2 };
}
