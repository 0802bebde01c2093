import type { CryptoKey } from 'jose';

/** The public half as published at /jwks: no private member can be in this type. */
export interface PublicSigningJwk {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  readonly x: string;
  readonly y: string;
  readonly kid: string;
  readonly alg: 'ES256';
  readonly use: 'sig';
}

/** The service's token-signing key (ES256). Inject `SigningKeys`; sign with `privateKey` and put `kid` in the header. */
export class SigningKeys {
  constructor(
    readonly privateKey: CryptoKey,
    readonly publicJwk: PublicSigningJwk,
    /** `development` keys were generated on this machine and must never sign anything that matters. */
    readonly source: 'configured' | 'development',
  ) {}

  get kid(): string {
    return this.publicJwk.kid;
  }

  get alg(): 'ES256' {
    return 'ES256';
  }

  /** The JWK Set served at /jwks; a fresh copy so no caller can alter the published keys. */
  jwks(): { keys: PublicSigningJwk[] } {
    return { keys: [{ ...this.publicJwk }] };
  }
}
