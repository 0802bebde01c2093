import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@mission/platform';
import type { ClientPermission, ClientRegistration, GrantType, IssuerConfig } from '../config/issuer-config.js';

/** The registered clients of CONFIG_FILE (DESIGN 2.2), looked up by `client_id`. */
@Injectable()
export class ClientRegistry {
  private readonly clients: ReadonlyMap<string, ClientRegistration>;

  constructor(@Inject(SERVICE_CONFIG) config: IssuerConfig) {
    this.clients = new Map(config.clients.map((client) => [client.client_id, client]));
  }

  findClient(clientId: string): ClientRegistration | undefined {
    return this.clients.get(clientId);
  }

  mayUseGrant(client: ClientRegistration, grantType: GrantType): boolean {
    return client.grant_types.includes(grantType);
  }

  hasPermission(client: ClientRegistration, permission: ClientPermission): boolean {
    return client.permissions.includes(permission) || client.permissions.includes('admin');
  }

  /** The registered `sub_profile` values (space-separated per spec 2.2); never the one a request claims. */
  subProfiles(client: ClientRegistration): string[] {
    return client.sub_profile.split(' ');
  }
}
