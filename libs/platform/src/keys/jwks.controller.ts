import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SigningKeys, type PublicSigningJwk } from './signing-keys.js';

@ApiTags('keys')
@Controller()
export class JwksController {
  constructor(private readonly signingKeys: SigningKeys) {}

  /** Public keys only (`PublicSigningJwk` has no private member). Short caching: verifiers refetch after a rotation. */
  @Get('jwks')
  @ApiOperation({ summary: "The service's public signing keys (RFC 7517 JWK Set)", description: 'Verifies access tokens, signed status answers, Auth Tokens and audit seals. No private member is ever served.' })
  @ApiOkResponse({
    description: 'The JWK Set (`Cache-Control: public, max-age=300`)',
    content: { 'application/json': { schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object', required: ['kty', 'kid'], additionalProperties: true, properties: { kty: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string' }, use: { type: 'string' } } } } } } } },
  })
  @Header('Cache-Control', 'public, max-age=300')
  jwks(): { keys: PublicSigningJwk[] } {
    return this.signingKeys.jwks();
  }
}
