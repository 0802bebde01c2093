import { IssuerDomainError } from '../shared/errors.js';
import { MissionNotActiveError } from '../mission/mission.errors.js';
import type { NonActiveMissionState } from '../mission/mission-lifecycle.js';

/**
 * Spec 4.1 step 4 / step 10, spec 7 `parent_not_active`: a child cannot be attached to a parent that is
 * (effectively) not active. A MissionNotActiveError, so `missionError` still names the parent's state.
 */
export class ParentNotActiveError extends MissionNotActiveError {
  readonly missionDenialReason = 'parent_not_active';
  readonly error = 'invalid_grant';

  constructor(state: NonActiveMissionState) {
    super(state);
    this.message = `parent mission is ${state}`;
  }
}

/**
 * Spec 2.4 rule 3, spec 7 `fanout_exceeded`, spec 8 `max_children`: attaching the child would make the
 * number of non-terminal children drawing on parent entry `parentEntryIndex` exceed its `max_children`.
 */
export class FanOutExceededError extends IssuerDomainError {
  readonly missionDenialReason = 'fanout_exceeded';
  readonly error = 'invalid_request';

  constructor(
    readonly parentEntryIndex: number,
    readonly maxChildren: number,
  ) {
    super(`authorization_details[${parentEntryIndex}] of the parent mission already has max_children (${maxChildren}) non-terminal children`);
  }
}
