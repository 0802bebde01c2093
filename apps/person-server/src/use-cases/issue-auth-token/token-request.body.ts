import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';
import { InOrder } from '../../http/json-shape.js';

/** Tokens larger than this are refused before any parsing (a JWT with a key is well under 8 KiB). */
export const MAX_TOKEN_LENGTH = 16_384;

/** A token member: a non-empty string of at most {@link MAX_TOKEN_LENGTH} characters. */
function TokenMember(name: string): PropertyDecorator {
  const notEmpty = `${name} must be a non-empty string`;
  return InOrder(IsString({ message: notEmpty }), IsNotEmpty({ message: notEmpty }), MaxLength(MAX_TOKEN_LENGTH, { message: `${name} is longer than ${MAX_TOKEN_LENGTH} characters` }));
}

/** Absent is fine; present (null included) it must be a token. */
const unlessAbsent = (name: 'subagent_token' | 'upstream_token') => ValidateIf((body: TokenRequestBody) => body[name] !== undefined);

/** `POST /token` (DESIGN 3.1, 3.3): `resource_token` required; `subagent_token` and `upstream_token` optional. */
export class TokenRequestBody {
  @TokenMember('resource_token')
  @ApiProperty({ type: 'string', minLength: 1, maxLength: MAX_TOKEN_LENGTH, description: 'The resource’s signed request artifact' })
  readonly resource_token!: string;

  @InOrder(unlessAbsent('subagent_token'), TokenMember('subagent_token'))
  @ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: MAX_TOKEN_LENGTH, description: 'An Agent Token of a sub-agent acting under the mission' })
  readonly subagent_token?: string;

  @InOrder(unlessAbsent('upstream_token'), TokenMember('upstream_token'))
  @ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: MAX_TOKEN_LENGTH, description: 'An Auth Token issued to a resource whose `call_chain_agents` include the caller (ADR 0012)' })
  readonly upstream_token?: string;
}
