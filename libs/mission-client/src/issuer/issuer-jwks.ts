import * as oauth from 'oauth4webapi';
import { createLocalJWKSet, type CryptoKey, type JSONWebKeySet, type JWTHeaderParameters, type FlattenedJWSInput } from 'jose';
import { MissionClientError, protocolErrorOf } from '../core/errors.js';
import type { Transport } from './transport.js';

type KeyLookup = ReturnType<typeof createLocalJWKSet>;

/**
 * The issuer's signing keys from its `jwks_uri`, fetched through the SDK's transport, cached, and
 * fetched again once when a token names a key the cache does not hold (key rotation).
 */
export class IssuerJwks {
  private keys: KeyLookup | undefined;
  private fetched = 0;

  constructor(
    private readonly metadata: oauth.AuthorizationServer,
    private readonly transport: Transport,
    private readonly minRefetchMs = 30_000,
  ) {}

  /** A jose key resolver (for `jwtVerify`). */
  readonly resolve = async (header: JWTHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey | Uint8Array> => {
    const keys = this.keys ?? (await this.load());
    try {
      return (await keys(header, token)) as CryptoKey;
    } catch (error) {
      if (Date.now() - this.fetched < this.minRefetchMs) throw error;
      return (await (await this.load())(header, token)) as CryptoKey;
    }
  };

  private async load(): Promise<KeyLookup> {
    const uri = this.metadata.jwks_uri;
    if (uri === undefined) throw new MissionClientError('invalid_response', 'the issuer advertises no jwks_uri');
    const response = await this.transport.fetch(uri, { headers: { accept: 'application/json' } });
    if (!response.ok) throw await protocolErrorOf(response);
    this.keys = createLocalJWKSet((await response.json()) as JSONWebKeySet);
    this.fetched = Date.now();
    return this.keys;
  }
}
