import { IsIn, IsString } from 'class-validator';

/** `POST /mission/approvals` (DESIGN 3.1): `{pending_id, decision: "approve" | "decline", expires_at?}`. */
export class ProposalDecisionBody {
  @IsString({ message: 'pending_id is required' })
  readonly pending_id!: string;

  @IsIn(['approve', 'decline'], { message: 'decision must be "approve" or "decline"' })
  readonly decision!: 'approve' | 'decline';

  /** RFC 3339, in the future: checked by the domain (`futureInstant`) once the caller may decide. */
  readonly expires_at?: unknown;
}
