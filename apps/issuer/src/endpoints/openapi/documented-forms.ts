import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CASCADE_MODES } from '@mission/issuer-domain';

/**
 * Form parameters read by the rule pipelines (`IssuerOAuth.authenticate`, `par-parameters.ts`,
 * `child-creation-parameters.ts`, `authorize-parameters.ts`) rather than by a class-validator DTO: their
 * OpenAPI schema is declared here, one class per form, each property naming the rule that checks it.
 */

/** RFC 7523 §2.2 / DESIGN 2.2: `private_key_jwt`, on every authenticated endpoint. */
export class ClientAuthenticationForm {
  @ApiProperty({ type: 'string', enum: ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer'] })
  client_assertion_type!: string;

  @ApiProperty({ type: 'string', maxLength: 8192, description: 'A JWT signed with a registered client key: `iss` = `sub` = client_id, `aud` = the issuer identifier, single-use `jti`, short `exp`' })
  client_assertion!: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 255, description: 'If sent, must be the authenticated client' })
  client_id?: string;
}

/** RFC 9126 §2.1 with DESIGN 2.3: a root mission's pushed authorization request. */
export class RootMissionRequestForm {
  @ApiProperty({ type: 'string', enum: ['code'] })
  response_type!: string;

  @ApiProperty({ type: 'string', maxLength: 2048, description: 'Exactly one of the client’s registered redirect URIs' })
  redirect_uri!: string;

  @ApiProperty({ type: 'string', maxLength: 128, description: 'RFC 7636 S256 challenge (43 base64url characters)' })
  code_challenge!: string;

  @ApiProperty({ type: 'string', enum: ['S256'] })
  code_challenge_method!: string;

  @ApiProperty({ type: 'string', maxLength: 65536, description: 'Strict JSON (no duplicate members): `{"intent": {"goal", "expires_at", …}}` (DESIGN 2.3)' })
  mission_intent!: string;

  @ApiProperty({ type: 'string', maxLength: 65536, description: 'RFC 9396 JSON array of `mission_resource_access` entries (`invalid_authorization_details` otherwise)' })
  authorization_details!: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 1024 })
  state?: string;

  @ApiPropertyOptional({ type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: 'RFC 9449 §10: binds the code to this key; a DPoP proof at PAR binds it to the proof’s key' })
  dpop_jkt?: string;
}

/** Spec child-mission-delegation 4.1, DESIGN 2.4: Child Mission creation on the back channel (DPoP proof of the parent grant’s key required). */
export class ChildMissionRequestForm {
  @ApiProperty({ type: 'string', maxLength: 64, description: 'The parent’s mission_id (cross-checked with the mission of parent_token)' })
  parent!: string;

  @ApiProperty({ type: 'string', maxLength: 256, description: 'The parent grant’s refresh token; the DPoP proof’s `ath` is its hash' })
  parent_token!: string;

  @ApiProperty({ type: 'string', maxLength: 2048, description: 'Strict JSON `{"sub", "iss"?, "sub_profile"?}` (spec 2.2); `sub` is the child actor’s client_id' })
  child_actor!: string;

  @ApiProperty({ type: 'string', maxLength: 65536 })
  mission_intent!: string;

  @ApiProperty({ type: 'string', maxLength: 65536, description: 'A strict subset of the parent’s authority (spec 2.5)' })
  authorization_details!: string;

  @ApiPropertyOptional({ type: 'string', enum: [...CASCADE_MODES], description: '`immediate` unless the deployment enabled an experimental mode' })
  cascade_mode?: string;
}

/** RFC 9126 §4: `GET /authorize` takes the client and the pushed request, nothing else. */
export class AuthorizeQuery {
  @ApiProperty({ type: 'string', maxLength: 255 })
  client_id!: string;

  @ApiProperty({ type: 'string', maxLength: 256, description: '`urn:ietf:params:oauth:request_uri:…` from `POST /par`' })
  request_uri!: string;
}

/** DESIGN 2.2: the consent page’s form (CSRF token in the form and in its cookie). */
export class ConsentDecisionForm extends AuthorizeQuery {
  @ApiProperty({ type: 'string', enum: ['approve', 'decline'] })
  decision!: string;

  @ApiProperty({ type: 'string', maxLength: 255 })
  person!: string;

  @ApiProperty({ type: 'string', maxLength: 1024, format: 'password' })
  password!: string;

  @ApiProperty({ type: 'string', maxLength: 64 })
  csrf_token!: string;
}
