import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { InOrder } from '../../http/json-shape.js';

/** A member of the token identity: a non-empty string of at most `maxLength` characters (one message for every failure). */
function IdentityMember(name: string, maxLength: number): PropertyDecorator {
  const message = `${name} must be a non-empty string`;
  return InOrder(IsString({ message }), IsNotEmpty({ message }), MaxLength(maxLength, { message }));
}

/** `POST /revoke` (DESIGN 3.1, ADR 0016): `{iss, jti}` of an Auth Token; unknown members are ignored. */
export class RevocationRequestBody {
  @IdentityMember('iss', 2048)
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 2048, description: 'The Auth Token’s `iss` (this PS)' })
  readonly iss!: string;

  @IdentityMember('jti', 256)
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 256 })
  readonly jti!: string;
}
