import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { clientAssertion, type ClientKey } from '@mission/mission-client';
import { repositoryRoot, testBaseUrl } from './run-issuer.js';

/** A registered demo client acting for real: its committed demo private key (config/demo-keys/README.md). */
export async function demoClient(clientId: string): Promise<ClientKey & { assertion(): Promise<Record<string, string>> }> {
  const jwk = JSON.parse(readFileSync(join(repositoryRoot, 'config/demo-keys', `issuer-client-${clientId}.private.jwk.json`), 'utf8')) as JWK;
  const alg = jwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
  const privateKey = (await importJWK(jwk, alg)) as CryptoKey;
  const key: ClientKey = { clientId, privateKey, alg, ...(jwk.kid ? { kid: jwk.kid } : {}) };
  return { ...key, assertion: () => clientAssertion(key, testBaseUrl) };
}

/** POSTs a form to the running issuer. */
export function postForm(listenUrl: string, path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${listenUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}
