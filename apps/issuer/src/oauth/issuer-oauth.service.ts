import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { EVENT_STORE, SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import type { EventStore } from '@mission/event-store';
import {
  authenticateClient, EventStoreJtiRegistry, verifyDpopProof,
  type AuthenticatedClient, type Clock, type DpopNonces, type JtiRegistry, type VerifiedDpopProof,
} from '@mission/issuer-oauth';
import { ClientRegistry } from '../clients/client-registry.js';
import type { ClientRegistration } from '../config/issuer-config.js';
import type { OAuthForm } from '../http/oauth-form.js';
import { CLOCK } from './clock.js';
import { DPOP_NONCES } from './dpop-nonce-config.js';

/**
 * The issuer's OAuth checks bound to its configuration: the issuer identifier, the client registry,
 * the store-backed single-use `jti` registry and the injected clock. Controllers call these and nothing
 * else for client authentication and DPoP.
 */
@Injectable()
export class IssuerOAuth {
  private readonly jtis: JtiRegistry;

  constructor(
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly clients: ClientRegistry,
    @Inject(DPOP_NONCES) private readonly nonces: DpopNonces | undefined,
  ) {
    this.jtis = new EventStoreJtiRegistry(store, clock);
  }

  get issuer(): string {
    return this.settings.baseUrl;
  }

  /** `private_key_jwt` (RFC 7523); every failure is 401 invalid_client. */
  authenticate(form: OAuthForm, request: { readonly headers: IncomingHttpHeaders }): Promise<AuthenticatedClient<ClientRegistration>> {
    const authorization = request.headers['authorization'];
    return authenticateClient(form.toRecord(), { clients: this.clients, jtis: this.jtis, clock: this.clock, issuer: this.issuer }, {
      ...(authorization !== undefined ? { authorization } : {}),
    });
  }

  /** RFC 9449 §4.3 for a request to `path` on this issuer; `accessToken` adds the `ath` check. */
  verifyDpop(request: { readonly raw: Pick<IncomingMessage, 'method' | 'headersDistinct'> }, path: string, accessToken?: string): Promise<VerifiedDpopProof> {
    return verifyDpopProof(
      { method: request.raw.method ?? '', url: this.endpoint(path), dpop: request.raw.headersDistinct['dpop'], ...(accessToken !== undefined ? { accessToken } : {}) },
      { jtis: this.jtis, clock: this.clock, ...(this.nonces ? { nonces: this.nonces } : {}) },
    );
  }

  /**
   * RFC 9449 §8.2: every answer of a DPoP endpoint (success or error) carries the next nonce when nonces are on,
   * saving the client a round trip. Called first in those handlers; a plain call rather than a Nest interceptor,
   * whose rxjs pipeline cost ≈ 3 % of a PAR request's CPU (issue 15 profile) for one header.
   */
  offerDpopNonce(response: { header(name: string, value: string): unknown }): void {
    if (this.nonces) response.header('DPoP-Nonce', this.nonces.issue());
  }

  endpoint(path: string): string {
    return `${this.issuer.replace(/\/$/, '')}${path}`;
  }
}
