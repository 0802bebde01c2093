/** Spec 2.3 of mission-management: a status answer, and what an agent may conclude from it. */
export interface PsMissionStatus {
  readonly missionS256: string;
  /** True only for a well-formed `active` answer whose `fresh_until` has not passed (spec 4.1: fail closed). */
  readonly active: boolean;
  /** `active`, `terminated`, or `unknown` when nothing was established. */
  readonly status: 'active' | 'terminated' | 'unknown';
  readonly observedAt?: Date;
  readonly freshUntil?: Date;
  readonly terminatedAt?: string;
  readonly terminationReason?: string;
  readonly expiresAt?: string;
  readonly failure?: { readonly code: 'unreachable' | 'error_response' | 'invalid_response' | 'stale'; readonly message: string };
}

export function unknownStatus(missionS256: string, code: NonNullable<PsMissionStatus['failure']>['code'], message: string): PsMissionStatus {
  return { missionS256, active: false, status: 'unknown', failure: { code, message } };
}

/** Reads a 200 `status` body; anything malformed, about another mission, or stale establishes nothing. */
export function psStatusOf(missionS256: string, body: Record<string, unknown>, now: Date): PsMissionStatus {
  const state = body['mission_status'];
  const freshUntil = new Date(String(body['fresh_until']));
  const observedAt = new Date(String(body['observed_at']));
  if (body['mission_s256'] !== missionS256) return unknownStatus(missionS256, 'invalid_response', 'the answer is about another mission');
  if ((state !== 'active' && state !== 'terminated') || Number.isNaN(freshUntil.getTime()) || Number.isNaN(observedAt.getTime())) {
    return unknownStatus(missionS256, 'invalid_response', 'the answer is not a status representation');
  }
  if (now.getTime() >= freshUntil.getTime()) return unknownStatus(missionS256, 'stale', `the answer was fresh until ${freshUntil.toISOString()}`);
  return {
    missionS256,
    active: state === 'active',
    status: state,
    observedAt,
    freshUntil,
    ...(typeof body['terminated_at'] === 'string' ? { terminatedAt: body['terminated_at'] } : {}),
    ...(typeof body['termination_reason'] === 'string' ? { terminationReason: body['termination_reason'] } : {}),
    ...(typeof body['expires_at'] === 'string' ? { expiresAt: body['expires_at'] } : {}),
  };
}
