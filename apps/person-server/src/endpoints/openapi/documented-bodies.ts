import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TERMINATION_REASONS } from '@mission/ps-domain';
import { TREE_PAGE } from '../../use-cases/read-delegation-tree/tree-cursor.js';

/**
 * JSON bodies whose members are checked by the use cases and deciders (reference syntax, roles,
 * idempotency, termination rules) rather than by one class-validator DTO: their OpenAPI schema is declared
 * here, one class per body. Bodies with a DTO (`*.body.ts`) carry their schema on the DTO itself.
 */
const S256 = { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: 'Mission Reference: base64url SHA-256 of the approved blob (spec 2.1)' } as const;

/** Spec 4.1 `status`. */
export class StatusOperationBody {
  @ApiProperty({ type: 'string', enum: ['status'] })
  operation!: string;

  @ApiProperty(S256)
  mission_s256!: string;
}

/** Spec 4.2 `terminate` (request_id: ≥ 128 bits of entropy, ADR 0013; claimed before the mission is touched, ADR 0017). */
export class TerminateOperationBody {
  @ApiProperty({ type: 'string', enum: ['terminate'] })
  operation!: string;

  @ApiProperty(S256)
  mission_s256!: string;

  @ApiProperty({ type: 'string', enum: [...TERMINATION_REASONS], description: 'Permitted per caller role (spec 5.4); else `invalid_termination_reason`' })
  reason!: string;

  @ApiProperty({ type: 'string', minLength: 22, maxLength: 256, description: 'At least 128 bits of entropy by the characters used (e.g. 22 base64url characters); a UUID is refused' })
  request_id!: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 4096, description: 'Required for an administrator' })
  purpose?: string;

  @ApiPropertyOptional({ ...S256, description: 'Required when `reason` is `superseded`: an approved mission the caller may reference' })
  replacement_s256?: string;
}

/** Spec 4.3 `delegation_tree`, paged with an HMAC cursor bound to the caller and reference. */
export class DelegationTreeOperationBody {
  @ApiProperty({ type: 'string', enum: ['delegation_tree'] })
  operation!: string;

  @ApiProperty(S256)
  mission_s256!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: TREE_PAGE.maxMaxResults, description: `Default ${TREE_PAGE.defaultMaxResults}` })
  max_results?: number;

  @ApiPropertyOptional({ type: 'string', description: '`next_cursor` of the previous page (expires after 5 minutes)' })
  cursor?: string;
}

/** DESIGN 3.1: an agent proposes a mission (no `operation` member); the blob's exact bytes become the reference. */
export class MissionProposalBody {
  @ApiProperty({ type: 'string', description: 'What the mission is for, shown to the person' })
  description!: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  tools?: unknown[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  resources?: unknown[];

  @ApiPropertyOptional({ type: 'string', format: 'date-time' })
  expires_at?: string;
}
