import { PersonServerClient, type SigningKey } from '@mission/mission-client';

/**
 * The console talks to the PS that served it, with the SDK's own client (ADR 0040): `PersonServerClient` signs
 * every call with RFC 9421 (`hwk` Signature-Key, Content-Digest), exactly as an SDK or CLI client does. The
 * browser holds no cookie or session; the key is the only credential.
 */
let current: PersonServerClient | undefined;

export async function connect(key: SigningKey): Promise<PersonServerClient> {
  current = await PersonServerClient.discover({
    url: location.origin,
    identity: { kind: 'principal', key },
    // The PS's own origin: plain http only when the PS itself is served so (local development, tests).
    allowInsecureHttp: location.protocol === 'http:',
  });
  return current;
}

export function disconnect(): void {
  current = undefined;
}

export function client(): PersonServerClient {
  if (current === undefined) throw new Error('no key: create or import one first');
  return current;
}

/** An endpoint the PS advertises in its metadata, on its own origin. */
export function endpoint(member: string, fallbackPath: string): string {
  const value = client().metadata[member];
  return typeof value === 'string' && new URL(value).origin === location.origin ? value : `${location.origin}${fallbackPath}`;
}
