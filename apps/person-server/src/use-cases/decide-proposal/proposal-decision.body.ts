import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString } from 'class-validator';

/** `POST /mission/approvals` (DESIGN 3.1): `{pending_id, decision: "approve" | "decline", expires_at?}`. */
export class ProposalDecisionBody {
  @IsString({ message: 'pending_id is required' })
  @ApiProperty({ type: 'string', description: 'The id from the proposal’s `Location`' })
  readonly pending_id!: string;

  @IsIn(['approve', 'decline'], { message: 'decision must be "approve" or "decline"' })
  @ApiProperty({ type: 'string', enum: ['approve', 'decline'] })
  readonly decision!: 'approve' | 'decline';

  /** RFC 3339, in the future: checked by the domain (`futureInstant`) once the caller may decide. */
  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'The person may shorten the mission; in the future' })
  readonly expires_at?: unknown;
}
