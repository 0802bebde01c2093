import type { JWK } from 'jose';

/** What client authentication needs from a registration (DESIGN 2.2): its id and public keys. */
export interface RegisteredClient {
  readonly client_id: string;
  readonly jwks: { readonly keys: readonly Readonly<JWK>[] };
}

/** The configured client registry, injected; returns the full registration the caller works with. */
export interface ClientRegistry<Client extends RegisteredClient = RegisteredClient> {
  findClient(clientId: string): Client | undefined | Promise<Client | undefined>;
}
