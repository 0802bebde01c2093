import { IssuerClient, ProtocolError } from '@mission/mission-client';
import type { OperatorKey } from './key-store.js';

/**
 * The operator view talks to the issuer that served it through the SDK's own `IssuerClient` (ADR 0042): every call
 * is a form POST to the existing JSON API (`/missions/tree`, `/missions/evidence`, `/missions/lifecycle`)
 * authenticated by a fresh `private_key_jwt` assertion (RFC 7523, single-use `jti`, 60 s) signed in this browser.
 * No cookie, session or password exists: the registered client's key is the only credential, checked by the same
 * code, permissions (`audit`, `lifecycle`, `admin`) and lineage rule as any API call.
 */
let current: IssuerClient | undefined;

export async function connect(operator: OperatorKey): Promise<IssuerClient> {
  current = await IssuerClient.discover({
    issuer: location.origin,
    clientId: operator.clientId,
    clientKey: operator.key,
    // The issuer's own origin: plain http only when the issuer itself is served so (local development, tests).
    allowInsecureHttp: location.protocol === 'http:',
  });
  return current;
}

export function disconnect(): void {
  current = undefined;
}

export function issuer(): IssuerClient {
  if (current === undefined) throw new Error('no key: import or create the operator client key first');
  return current;
}

/** What a refusal means for the operator: the issuer answers unknown and not-permitted missions alike (DESIGN 2.1). */
export function refusalText(error: unknown): string {
  if (error instanceof ProtocolError) {
    if (error.status === 401) return `the issuer does not accept this client key (${error.message})`;
    if (error.status === 404) return 'refused: no such mission, or this client may not do that to it (the issuer answers both alike; viewing needs the audit or admin permission, revoke/suspend/resume the lifecycle or admin permission)';
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
