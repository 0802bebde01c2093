import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import { InOrder } from '../../http/json-shape.js';

/** Page size of `POST /proposals/pending` (ADR 0034): default 50, maximum 200, as the delegation tree's. */
export const PENDING_PAGE = { defaultMaxResults: 50, maxMaxResults: 200 } as const;

const PAGE_SIZE = `max_results must be an integer from 1 to ${PENDING_PAGE.maxMaxResults}`;

/** `POST /proposals/pending` `{max_results?, cursor?}` (ADR 0034). */
export class PendingProposalsBody {
  @InOrder(IsOptional(), IsInt({ message: PAGE_SIZE }), Min(1, { message: PAGE_SIZE }), Max(PENDING_PAGE.maxMaxResults, { message: PAGE_SIZE }))
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: PENDING_PAGE.maxMaxResults, description: `Default ${PENDING_PAGE.defaultMaxResults}` })
  readonly max_results?: number;

  /** The `next_cursor` of the previous page. */
  @InOrder(
    ValidateIf((body: PendingProposalsBody) => body.cursor !== undefined),
    IsString({ message: 'cursor must be a string' }),
  )
  @ApiPropertyOptional({ type: 'string' })
  readonly cursor?: string;
}
