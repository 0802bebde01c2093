import type * as oauth from 'oauth4webapi';
import { MissionClientError, protocolErrorOf } from '../core/errors.js';
import type { Transport } from './transport.js';

/** POSTs a `private_key_jwt`-authenticated form to an issuer endpoint and answers the parsed JSON. */
export type AuthenticatedPoster = (url: string, form: Record<string, string>) => Promise<Record<string, unknown>>;

interface AuthenticatingClient {
  readonly metadata: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
}

/** The raw response of a client-authenticated form POST (the status endpoint answers a JWT, not JSON). */
export async function postAuthenticatedRaw(issuer: AuthenticatingClient, url: string, form: Record<string, string>, transport: Transport): Promise<Response> {
  const body = new URLSearchParams(form);
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
  await issuer.clientAuth(issuer.metadata, issuer.client, body, headers);
  if (!transport.allowInsecureHttp && new URL(url).protocol !== 'https:') throw new MissionClientError('bad_url', `refusing plain http: ${url}`);
  return transport.fetch(url, { method: 'POST', headers, body });
}

export async function postAuthenticatedForm(issuer: AuthenticatingClient, url: string, form: Record<string, string>, transport: Transport): Promise<Record<string, unknown>> {
  const response = await postAuthenticatedRaw(issuer, url, form, transport);
  if (!response.ok) throw await protocolErrorOf(response);
  try {
    return (await response.json()) as Record<string, unknown>;
  } catch {
    throw new MissionClientError('invalid_response', `${url} answered ${response.status} without JSON`);
  }
}
