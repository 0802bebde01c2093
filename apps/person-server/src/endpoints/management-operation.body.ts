import { IsIn, IsString } from 'class-validator';
import { UnsupportedOperationProblem } from '../errors/problems.js';
import { answeredWith, InOrder } from '../http/json-shape.js';

/** Spec 4: the operations this PS implements (also in its metadata, spec 2.2). */
export const MANAGEMENT_OPERATIONS = ['status', 'terminate', 'delegation_tree'] as const;
export type ManagementOperation = (typeof MANAGEMENT_OPERATIONS)[number];

/** `POST /mission` with `operation` (spec 4): an unknown operation is `unsupported_operation`, before the reference is looked at. */
export class ManagementOperationBody {
  @InOrder(
    IsString({ message: 'operation must be a string' }),
    IsIn(MANAGEMENT_OPERATIONS, answeredWith(() => new UnsupportedOperationProblem())),
  )
  readonly operation!: ManagementOperation;

  /** Checked by ReferenceLookups (`invalid_mission_reference`, security-logged). */
  readonly mission_s256?: unknown;
}
