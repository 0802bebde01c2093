import { createPkcePair, DpopKey } from '@mission/mission-client';
import { demoClient, postForm } from './demo-clients.js';
import { testBaseUrl } from './run-issuer.js';

/** Test and benchmark helpers that drive the issuer over HTTP exactly as agents do. */

export const DEMO_REDIRECT_URI = 'http://127.0.0.1:9000/cb';
export const CHILD_CREATION_GRANT = 'urn:ietf:params:oauth:grant-type:mission-child-creation';

export type Form = Record<string, string>;

export interface IssuedTokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly authorization_details: unknown;
  readonly mission_id: string;
  readonly mission_expires_at: string;
  readonly parent?: Record<string, unknown>;
}

export interface MissionHolder {
  readonly clientId: string;
  readonly dpop: DpopKey;
  readonly tokens: IssuedTokens;
}

export function missionIntent(lifetimeMs: number, goal = 'Reconcile the March invoices', resources = ['https://erp.example.com']): string {
  return JSON.stringify({ intent: { goal, resources, expires_at: new Date(Date.now() + lifetimeMs).toISOString() } });
}

/** POSTs a form signed with the client's private_key_jwt assertion. */
export async function postAs(listenUrl: string, clientId: string, path: string, form: Form, headers: Record<string, string> = {}): Promise<Response> {
  const assertion = await (await demoClient(clientId)).assertion();
  return postForm(listenUrl, path, { ...assertion, ...form }, headers);
}

async function json<T>(response: Response, expectedStatus: number): Promise<T> {
  const body = (await response.json()) as T;
  if (response.status !== expectedStatus) throw new Error(`expected HTTP ${expectedStatus}, got ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** PAR → /authorize (the client's auto policy) → code → DPoP-bound tokens: a root mission. */
export async function obtainRootMission(listenUrl: string, options: { clientId?: string; details: unknown; lifetimeMs?: number }): Promise<MissionHolder> {
  const clientId = options.clientId ?? 'demo-agent';
  const dpop = await DpopKey.generate();
  const pkce = createPkcePair();
  const { request_uri: requestUri } = await json<{ request_uri: string }>(
    await postAs(listenUrl, clientId, '/par', {
      response_type: 'code', redirect_uri: DEMO_REDIRECT_URI, code_challenge: pkce.challenge, code_challenge_method: 'S256',
      mission_intent: missionIntent(options.lifetimeMs ?? 3_600_000), authorization_details: JSON.stringify(options.details),
    }),
    201,
  );
  const authorize = await fetch(`${listenUrl}/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri }).toString()}`, { redirect: 'manual' });
  if (authorize.status !== 302) throw new Error(`/authorize answered ${authorize.status}: ${await authorize.text()}`);
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const tokens = await json<IssuedTokens>(
    await postAs(listenUrl, clientId, '/token', { grant_type: 'authorization_code', code, redirect_uri: DEMO_REDIRECT_URI, code_verifier: pkce.verifier }, {
      DPoP: await dpop.proof('POST', `${testBaseUrl}/token`),
    }),
    200,
  );
  return { clientId, dpop, tokens };
}

export interface ChildRequest {
  readonly childActor: Record<string, unknown>;
  readonly details: unknown;
  readonly lifetimeMs?: number;
  /** Form members to add or override (e.g. a wrong `parent`). */
  readonly overrides?: Form;
  /** Replaces the DPoP proof of the parent's key (`null`: send none). */
  readonly proof?: string | null;
}

/** Spec 4.1: the parent's holder asks for a Child Mission at /par with its refresh token and a proof of its key. */
export async function requestChild(listenUrl: string, parent: MissionHolder, request: ChildRequest): Promise<Response> {
  const form: Form = {
    parent: parent.tokens.mission_id,
    parent_token: parent.tokens.refresh_token,
    child_actor: JSON.stringify(request.childActor),
    mission_intent: missionIntent(request.lifetimeMs ?? 1_800_000, 'Read the March invoices'),
    authorization_details: JSON.stringify(request.details),
    ...request.overrides,
  };
  const proof = request.proof === undefined ? await parent.dpop.proof('POST', `${testBaseUrl}/par`, { accessToken: parent.tokens.refresh_token }) : request.proof;
  return postAs(listenUrl, parent.clientId, '/par', form, proof === null ? {} : { DPoP: proof });
}

/** DESIGN 2.4: the child actor redeems the request_uri with its own client authentication and DPoP key. */
export async function redeemChild(listenUrl: string, childClientId: string, requestUri: string, dpop: DpopKey): Promise<Response> {
  return postAs(listenUrl, childClientId, '/token', { grant_type: CHILD_CREATION_GRANT, request_uri: requestUri }, { DPoP: await dpop.proof('POST', `${testBaseUrl}/token`) });
}

/** Creation + redemption; throws unless both succeed. */
export async function obtainChildMission(listenUrl: string, parent: MissionHolder, childClientId: string, request: Omit<ChildRequest, 'childActor'> & { childActor?: Record<string, unknown> }): Promise<MissionHolder> {
  const created = await json<{ request_uri: string }>(await requestChild(listenUrl, parent, { childActor: { sub: childClientId }, ...request }), 201);
  const dpop = await DpopKey.generate();
  const tokens = await json<IssuedTokens>(await redeemChild(listenUrl, childClientId, created.request_uri, dpop), 200);
  return { clientId: childClientId, dpop, tokens };
}

export async function refreshTokens(listenUrl: string, holder: MissionHolder): Promise<Response> {
  return postAs(listenUrl, holder.clientId, '/token', { grant_type: 'refresh_token', refresh_token: holder.tokens.refresh_token }, {
    DPoP: await holder.dpop.proof('POST', `${testBaseUrl}/token`),
  });
}
