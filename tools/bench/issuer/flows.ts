/**
 * The HTTP calls the issuer benchmark makes, each as a real agent would: private_key_jwt client
 * assertions, DPoP proofs, PKCE. Mirrors apps/issuer/src/testing/mission-flows.ts (not in the build).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { clientAssertion, createPkcePair, DpopKey, type ClientKey } from '@mission/mission-client';

export const REDIRECT_URI = 'http://127.0.0.1:9000/cb';
export const CHILD_CREATION_GRANT = 'urn:ietf:params:oauth:grant-type:mission-child-creation';
const INVOICES = 'https://erp.example.com/invoices';

/** A root entry delegable two generations down, without a `max_children` cap. */
export const ROOT_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.write'], delegation: { max_depth: 2, children: { max_child_depth: 2 } } },
];
/** A child of ROOT_DETAILS that may have children of its own (one generation). */
export const CHILD_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 1, children: { max_child_depth: 1 } } },
];
/** A child that delegates nothing further. */
export const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

export const form = (values: Record<string, string>) => new URLSearchParams(values).toString();
export const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

export function missionIntent(goal: string, expiresAt: Date): string {
  return JSON.stringify({ intent: { goal, resources: ['https://erp.example.com'], expires_at: expiresAt.toISOString() } });
}

/** A registered demo client with its committed demo private key (config/demo-keys). */
export async function demoClient(repositoryRoot: string, clientId: string): Promise<ClientKey> {
  const jwk = JSON.parse(readFileSync(join(repositoryRoot, 'config/demo-keys', `issuer-client-${clientId}.private.jwk.json`), 'utf8')) as JWK;
  const alg = jwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
  return { clientId, privateKey: (await importJWK(jwk, alg)) as CryptoKey, alg, ...(jwk.kid ? { kid: jwk.kid } : {}) };
}

/** Tokens of one mission as its holder keeps them. */
export interface MissionHolder {
  readonly client: ClientKey;
  readonly dpop: DpopKey;
  readonly missionId: string;
  readonly expiresAt: string;
  refreshToken: string;
}

interface TokenAnswer {
  readonly refresh_token: string;
  readonly mission_id: string;
  readonly mission_expires_at: string;
}

async function answer<T>(reply: Response, status: number, what: string): Promise<T> {
  if (reply.status !== status) throw new Error(`${what} answered ${reply.status}: ${await reply.text()}`);
  return (await reply.json()) as T;
}

/** PAR → /authorize (the client's auto-approval policy) → code → DPoP-bound tokens: a root mission. */
export async function obtainRootMission(issuer: string, client: ClientKey, details: unknown, lifetimeMs = 3_600_000): Promise<MissionHolder> {
  const dpop = await DpopKey.generate();
  const pkce = createPkcePair();
  const { request_uri: requestUri } = await answer<{ request_uri: string }>(
    await fetch(`${issuer}/par`, {
      method: 'POST',
      headers: FORM,
      body: form({
        ...(await clientAssertion(client, issuer)),
        response_type: 'code', redirect_uri: REDIRECT_URI, code_challenge: pkce.challenge, code_challenge_method: 'S256',
        mission_intent: missionIntent('benchmark', new Date(Date.now() + lifetimeMs)), authorization_details: JSON.stringify(details),
      }),
    }),
    201,
    'PAR',
  );
  const authorize = await fetch(`${issuer}/authorize?${form({ client_id: client.clientId, request_uri: requestUri })}`, { redirect: 'manual' });
  const code = new URL(authorize.headers.get('location') ?? '', issuer).searchParams.get('code');
  if (!code) throw new Error(`authorize answered ${authorize.status} without a code`);
  const tokens = await answer<TokenAnswer>(
    await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { ...FORM, DPoP: await dpop.proof('POST', `${issuer}/token`) },
      body: form({ ...(await clientAssertion(client, issuer)), grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier }),
    }),
    200,
    'token (authorization_code)',
  );
  return { client, dpop, missionId: tokens.mission_id, expiresAt: tokens.mission_expires_at, refreshToken: tokens.refresh_token };
}

/** Spec 4.1: the parent's holder asks for a Child Mission at /par with its refresh token and a proof of its key (`ath`). */
export async function requestChild(issuer: string, parent: MissionHolder, childClientId: string, details: unknown): Promise<string> {
  const created = await answer<{ request_uri: string }>(
    await fetch(`${issuer}/par`, {
      method: 'POST',
      headers: { ...FORM, DPoP: await parent.dpop.proof('POST', `${issuer}/par`, { accessToken: parent.refreshToken }) },
      body: form({
        ...(await clientAssertion(parent.client, issuer)),
        parent: parent.missionId,
        parent_token: parent.refreshToken,
        child_actor: JSON.stringify({ sub: childClientId }),
        mission_intent: missionIntent('benchmark child', new Date(parent.expiresAt)),
        authorization_details: JSON.stringify(details),
      }),
    }),
    201,
    'PAR (child creation)',
  );
  return created.request_uri;
}

/** DESIGN 2.4: the child actor redeems the request_uri with its own client authentication and DPoP key. */
export async function redeemChild(issuer: string, child: ClientKey, dpop: DpopKey, requestUri: string): Promise<MissionHolder> {
  const tokens = await answer<TokenAnswer>(
    await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { ...FORM, DPoP: await dpop.proof('POST', `${issuer}/token`) },
      body: form({ ...(await clientAssertion(child, issuer)), grant_type: CHILD_CREATION_GRANT, request_uri: requestUri }),
    }),
    200,
    'token (child creation grant)',
  );
  return { client: child, dpop, missionId: tokens.mission_id, expiresAt: tokens.mission_expires_at, refreshToken: tokens.refresh_token };
}

/** The form and headers of one refresh, signed now (so they can be prepared before the moment measured). */
export async function refreshRequest(issuer: string, holder: MissionHolder): Promise<RequestInit> {
  return {
    method: 'POST',
    headers: { ...FORM, DPoP: await holder.dpop.proof('POST', `${issuer}/token`) },
    body: form({ ...(await clientAssertion(holder.client, issuer)), grant_type: 'refresh_token', refresh_token: holder.refreshToken }),
  };
}
