import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { InOrder } from '../../http/json-shape.js';

/** Page size of `POST /missions/list` (ADR 0040): default 50, maximum 200, as the other listings'. */
export const MISSIONS_PAGE = { defaultMaxResults: 50, maxMaxResults: 200 } as const;

const PAGE_SIZE = `max_results must be an integer from 1 to ${MISSIONS_PAGE.maxMaxResults}`;

/** `POST /missions/list` `{max_results?, cursor?, status?, mission_s256?}` (ADR 0040). */
export class MissionsListBody {
  @InOrder(IsOptional(), IsInt({ message: PAGE_SIZE }), Min(1, { message: PAGE_SIZE }), Max(MISSIONS_PAGE.maxMaxResults, { message: PAGE_SIZE }))
  readonly max_results?: number;

  /** The `next_cursor` of the previous page. */
  @InOrder(ValidateIf((body: MissionsListBody) => body.cursor !== undefined), IsString({ message: 'cursor must be a string' }))
  readonly cursor?: string;

  /** Only missions in this state (spec 1.3); default both. */
  @InOrder(ValidateIf((body: MissionsListBody) => body.status !== undefined), IsIn(['active', 'terminated'], { message: 'status must be "active" or "terminated"' }))
  readonly status?: 'active' | 'terminated';

  /** Only this mission (the console polls one mission's residual); a mission the caller may not see is the empty listing. */
  @InOrder(ValidateIf((body: MissionsListBody) => body.mission_s256 !== undefined), IsString({ message: 'mission_s256 must be a string' }), Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'mission_s256 must be a mission digest' }))
  readonly mission_s256?: string;
}
