import { IssuerDomainError } from '../shared/errors.js';
import { missionErrorCode, type LifecycleOperation, type MissionErrorCode, type MissionLifecycleState, type NonActiveMissionState } from './mission-lifecycle.js';

/** No such mission (answer `404 not_found`: the same as "not yours", DESIGN 2.1). */
export class MissionNotFoundError extends IssuerDomainError {
  constructor(readonly missionId?: string) {
    super('mission not found');
  }
}

/** The mission is (effectively) not active; `missionError` is the `mission_error` code. */
export class MissionNotActiveError extends IssuerDomainError {
  readonly missionError: MissionErrorCode;

  constructor(readonly state: NonActiveMissionState) {
    super(`mission is ${state}`);
    this.missionError = missionErrorCode(state);
  }
}

/** `expected_version` (compare-and-set) does not match the mission's current version. */
export class StaleVersionError extends IssuerDomainError {
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`expected_version ${expected} does not match the current version ${actual}`);
  }
}

/** The operation is not allowed from the mission's (non-terminal) state, e.g. resume while active. */
export class InvalidTransitionError extends IssuerDomainError {
  constructor(
    readonly from: MissionLifecycleState,
    readonly operation: LifecycleOperation | 'expire',
    message = `cannot ${operation} a mission that is ${from}`,
  ) {
    super(message);
  }
}

/** `ExpireMission` arrived before `expires_at` (e.g. clock skew between replicas): retry later. */
export class MissionNotYetExpiredError extends InvalidTransitionError {
  constructor(
    from: MissionLifecycleState,
    readonly expiresAt: string,
  ) {
    super(from, 'expire', 'mission has not reached its expires_at yet');
  }
}

/** The idempotency `nonce` was already used by this client on this mission for another operation. */
export class NonceReuseError extends IssuerDomainError {
  constructor(
    readonly recordedOperation: LifecycleOperation,
    readonly operation: LifecycleOperation,
  ) {
    super(`nonce was already used for ${recordedOperation}, not ${operation}`);
  }
}

/** A `CreateMission` on a stream that already holds a mission (ids are random: a bug or a replay). */
export class MissionAlreadyExistsError extends IssuerDomainError {
  constructor(readonly missionId: string) {
    super('mission already exists');
  }
}
