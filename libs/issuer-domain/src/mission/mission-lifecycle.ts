/**
 * Lifecycle states (DESIGN 2.3; spec 3.1 adds `cascaded` for children).
 *
 * Transition table (the operations of `POST /missions/lifecycle` plus expiry):
 *
 * | from \ operation | suspend   | resume | revoke  | complete  | expire  |
 * |------------------|-----------|--------|---------|-----------|---------|
 * | active           | suspended | —      | revoked | completed | expired |
 * | suspended        | —         | active | revoked | completed | expired |
 * | any terminal     | —         | —      | —       | —         | (no-op) |
 *
 * Reasoning: every move into a terminal state only takes authority away, so it is allowed from
 * both non-terminal states; in particular a suspended mission may be completed or revoked without
 * first being resumed (resuming just to end it would briefly re-grant authority). Only `resume`
 * grants authority back, and only from `suspended`. `cascaded` is recorded only by the cascade
 * process manager (`CascadeMission` command, spec 3.2) from either non-terminal state; `superseded`
 * (expansion) is reserved. Terminal states never change.
 */
export const MISSION_LIFECYCLE_STATES = ['active', 'suspended', 'completed', 'superseded', 'revoked', 'expired', 'cascaded'] as const;
export type MissionLifecycleState = (typeof MISSION_LIFECYCLE_STATES)[number];

export type TerminalMissionState = Exclude<MissionLifecycleState, 'active' | 'suspended'>;
export type NonActiveMissionState = Exclude<MissionLifecycleState, 'active'>;

export const TERMINAL_MISSION_STATES: ReadonlySet<MissionLifecycleState> = new Set<TerminalMissionState>([
  'completed',
  'superseded',
  'revoked',
  'expired',
  'cascaded',
]);

export function isTerminalMissionState(state: MissionLifecycleState): state is TerminalMissionState {
  return TERMINAL_MISSION_STATES.has(state);
}

/** Operations a client (or administrator) requests at `POST /missions/lifecycle`. */
export const LIFECYCLE_OPERATIONS = ['revoke', 'suspend', 'resume', 'complete'] as const;
export type LifecycleOperation = (typeof LIFECYCLE_OPERATIONS)[number];

export function isLifecycleOperation(value: unknown): value is LifecycleOperation {
  return typeof value === 'string' && (LIFECYCLE_OPERATIONS as readonly string[]).includes(value);
}

const TRANSITIONS: Readonly<Record<'active' | 'suspended', Partial<Record<LifecycleOperation | 'expire', MissionLifecycleState>>>> = {
  active: { suspend: 'suspended', revoke: 'revoked', complete: 'completed', expire: 'expired' },
  suspended: { resume: 'active', revoke: 'revoked', complete: 'completed', expire: 'expired' },
};

/** The state an operation leads to from a non-terminal state, or `undefined` when it is not allowed. */
export function nextMissionState(from: 'active' | 'suspended', operation: LifecycleOperation | 'expire'): MissionLifecycleState | undefined {
  return TRANSITIONS[from][operation];
}

/** `mission_error` codes for refusals because a mission is not active. */
export type MissionErrorCode = `mission_${NonActiveMissionState}`;

export function missionErrorCode(state: NonActiveMissionState): MissionErrorCode {
  return `mission_${state}`;
}
