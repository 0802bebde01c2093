import { ApiProperty } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/**
 * `POST /mission/blob-deletions` (spec 3 rule 5): `{mission_s256, request_id, purpose}`. The members carry no
 * shape check of their own here (`@Allow`): the reference is checked (and a malformed one security-logged) by
 * the use case, `request_id` and `purpose` by the domain (`checkBlobDeletionRequest`), in that order.
 */
export class BlobDeletionBody {
  @Allow()
  @ApiProperty({ type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' })
  readonly mission_s256?: unknown;

  @Allow()
  @ApiProperty({ type: 'string', minLength: 22, maxLength: 256 })
  readonly request_id?: unknown;

  @Allow()
  @ApiProperty({ type: 'string', maxLength: 4096 })
  readonly purpose?: unknown;
}
