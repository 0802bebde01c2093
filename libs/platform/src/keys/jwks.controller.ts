import { Controller, Get, Header } from '@nestjs/common';
import { SigningKeys, type PublicSigningJwk } from './signing-keys.js';

@Controller()
export class JwksController {
  constructor(private readonly signingKeys: SigningKeys) {}

  /** Public keys only (`PublicSigningJwk` has no private member). Short caching: verifiers refetch after a rotation. */
  @Get('jwks')
  @Header('Cache-Control', 'public, max-age=300')
  jwks(): { keys: PublicSigningJwk[] } {
    return this.signingKeys.jwks();
  }
}
