import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';

/**
 * A resource, authenticated by a request signed with one of its configured keys (`Signature-Key:
 * sig=jwks_uri;id="<resource issuer>";dwk="aauth-resource.json";kid="…"`). Only the revocation endpoint
 * accepts it (ADR 0016): a resource holds no role towards missions.
 */
export interface AuthenticatedResource {
  readonly kind: 'resource';
  /** The configured `resources[].issuer`. */
  readonly resource: string;
}

/** Who may call the revocation endpoint: an agent (the holder), a resource (the audience), or a principal (never authorized). */
export type Revoker = AuthenticatedCaller | AuthenticatedResource;

/** A stable name of the revoker for rate limits and failed-lookup allowances. */
export function revokerKey(revoker: Revoker, callerKey: (caller: AuthenticatedCaller) => string): string {
  return revoker.kind === 'resource' ? `resource:${encodeURIComponent(revoker.resource)}` : callerKey(revoker);
}
