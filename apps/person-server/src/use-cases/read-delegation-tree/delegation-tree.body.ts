import { IsInt, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import { InOrder } from '../../http/json-shape.js';
import { TREE_PAGE } from './tree-cursor.js';

const PAGE_SIZE = `max_results must be an integer from 1 to ${TREE_PAGE.maxMaxResults}`;

/** Spec 4.3 `delegation_tree` members beside `operation` and `mission_s256` (checked before any lookup). */
export class DelegationTreeBody {
  /** Absent or null: the default page size (DESIGN 3.3). */
  @InOrder(IsOptional(), IsInt({ message: PAGE_SIZE }), Min(1, { message: PAGE_SIZE }), Max(TREE_PAGE.maxMaxResults, { message: PAGE_SIZE }))
  readonly max_results?: number;

  /** The opaque cursor of the previous page; opened (and refused when not valid) after authorization. */
  @InOrder(
    ValidateIf((body: DelegationTreeBody) => body.cursor !== undefined),
    IsString({ message: 'cursor must be a string' }),
  )
  readonly cursor?: string;
}
