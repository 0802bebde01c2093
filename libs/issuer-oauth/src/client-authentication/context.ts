import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import type { Clock } from '../pipeline/clock.js';
import type { FormParameters } from '../pipeline/form.js';
import type { JtiRegistry } from '../replay/jti-registry.js';
import type { ClientRegistry, RegisteredClient } from './client-registry.js';

export const CLIENT_ASSERTION_TYPE_JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface ClientAuthenticationDeps<Client extends RegisteredClient = RegisteredClient> {
  readonly clients: ClientRegistry<Client>;
  /** Single use of `jti`; the issuer injects an EventStoreJtiRegistry over its event store. */
  readonly jtis: JtiRegistry;
  readonly clock: Clock;
  /** The issuer identifier (RFC 8414 `issuer`, the BASE_URL): the only audience accepted. */
  readonly issuer: string;
  /** Longest accepted distance from now to `exp` (and from `iat` to now). Default 300 s. */
  readonly maxAssertionLifetimeSeconds?: number;
  /** Clock skew tolerated on `exp`, `nbf` and `iat`. Default 30 s. */
  readonly clockToleranceSeconds?: number;
}

/** Request headers that could carry a second client authentication method. */
export interface ClientAuthenticationHeaders {
  /** The `Authorization` header, if any: HTTP Basic (client_secret_basic) must not accompany an assertion. */
  readonly authorization?: string;
}

export interface ClientAuthenticationContext<Client extends RegisteredClient = RegisteredClient> {
  readonly form: FormParameters;
  readonly headers: ClientAuthenticationHeaders;
  readonly deps: ClientAuthenticationDeps<Client>;
  /** Epoch seconds, read once so every time rule sees the same instant. */
  readonly now: number;
  readonly maxLifetime: number;
  readonly tolerance: number;
  assertion?: string;
  header?: ProtectedHeaderParameters;
  claims?: JWTPayload;
  client?: Client;
}

export interface AuthenticatedClient<Client extends RegisteredClient = RegisteredClient> {
  readonly clientId: string;
  readonly client: Client;
  readonly assertion: { readonly jti: string; readonly exp: number };
}
