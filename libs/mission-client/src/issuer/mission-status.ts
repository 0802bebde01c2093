import { errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { MissionClientError, protocolErrorOf } from '../core/errors.js';
import { randomBase64url } from '../core/encoding.js';

export const MISSION_STATUS_TYP = 'mission-status-response+jwt';

/** Why a status check established nothing (spec 4.1 of mission-management; DESIGN 2.1 `fresh_until`). */
export type StatusFailure = 'unreachable' | 'error_response' | 'unverifiable' | 'stale' | 'mismatch';

/** Spec 2.7 parent projection. */
export interface ParentStatus {
  readonly id: string;
  readonly issuer: string;
  readonly state?: string;
  readonly cascade_mode: string;
  readonly observed_at?: string;
}

/** A Mission Status answer as the SDK reports it: `active` is true only for a verified, fresh, exactly-`active` answer. */
export interface MissionStatus {
  readonly missionId: string;
  readonly active: boolean;
  /** The (lineage) state the issuer reported, or `unknown` when nothing was established. */
  readonly state: string;
  readonly freshUntil?: Date;
  /** `iat` of the answer: when the issuer evaluated the state. */
  readonly observedAt?: Date;
  readonly version?: number;
  readonly expiresAt?: string;
  readonly authorityHash?: string;
  readonly parent?: ParentStatus;
  readonly failure?: { readonly code: StatusFailure; readonly message: string };
}

export interface VerifyStatusOptions {
  readonly keys: JWTVerifyGetKey;
  readonly issuer: string;
  readonly audience: string;
  readonly missionId: string;
  readonly nonce?: string;
  readonly now: Date;
}

/** Verifies a signed Mission Status JWT; throws a {@link MissionClientError} (`unverifiable`, `stale`, `mismatch`). */
export async function verifyMissionStatusJwt(jwt: string, options: VerifyStatusOptions): Promise<MissionStatus> {
  let payload;
  try {
    ({ payload } = await jwtVerify(jwt, options.keys, {
      issuer: options.issuer, audience: options.audience, typ: MISSION_STATUS_TYP, currentDate: options.now, algorithms: ['ES256', 'EdDSA'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new MissionClientError('stale', 'the status answer is past its fresh_until');
    throw new MissionClientError('unverifiable', `the status answer does not verify: ${(error as Error).message}`);
  }
  const mission = payload['mission'] as Record<string, unknown> | undefined;
  if (typeof mission !== 'object' || mission === null || mission['id'] !== options.missionId) {
    throw new MissionClientError('mismatch', 'the status answer is about another mission');
  }
  if (options.nonce !== undefined && payload['nonce'] !== options.nonce) throw new MissionClientError('mismatch', 'the status answer does not echo our nonce');
  const freshUntil = new Date(String(mission['fresh_until']));
  if (Number.isNaN(freshUntil.getTime())) throw new MissionClientError('unverifiable', 'the status answer has no fresh_until');
  if (options.now.getTime() >= freshUntil.getTime()) throw new MissionClientError('stale', `the status answer was fresh until ${freshUntil.toISOString()}`);
  const state = String(mission['state']);
  const parent = mission['parent'] as ParentStatus | undefined;
  return {
    missionId: options.missionId,
    // Only exactly `active` counts (spec 9 rule 4 of child-mission-delegation): any other or unknown state is not.
    active: state === 'active' && (parent === undefined || parent.state === undefined || parent.state === 'active'),
    state,
    freshUntil,
    observedAt: new Date((payload.iat ?? 0) * 1000),
    ...(typeof mission['version'] === 'number' ? { version: mission['version'] } : {}),
    ...(typeof mission['expires_at'] === 'string' ? { expiresAt: mission['expires_at'] } : {}),
    ...(typeof mission['authority_hash'] === 'string' ? { authorityHash: mission['authority_hash'] } : {}),
    ...(parent !== undefined ? { parent } : {}),
  };
}

/** A status that establishes nothing. */
export function failedStatus(missionId: string, code: StatusFailure, message: string): MissionStatus {
  return { missionId, active: false, state: 'unknown', failure: { code, message } };
}

export interface CheckedStatusRequest {
  readonly missionId: string;
  readonly post: (url: string, form: Record<string, string>) => Promise<Response>;
  readonly endpoint: string;
  readonly keys: JWTVerifyGetKey;
  readonly issuer: string;
  /** The `aud` expected in the answer. */
  readonly audience: string;
  /** Sent as the `audience` form member when set. */
  readonly requestAudience?: string;
  readonly now: () => Date;
}

/** Asks the issuer and verifies; every failure becomes a not-active {@link MissionStatus}. */
export async function checkedStatus(request: CheckedStatusRequest): Promise<MissionStatus> {
  const nonce = randomBase64url(16);
  let response: Response;
  try {
    response = await request.post(request.endpoint, {
      mission_id: request.missionId, nonce, ...(request.requestAudience !== undefined ? { audience: request.requestAudience } : {}),
    });
  } catch (error) {
    return failedStatus(request.missionId, 'unreachable', (error as Error).message);
  }
  if (!response.ok) return failedStatus(request.missionId, 'error_response', (await protocolErrorOf(response)).message);
  try {
    return await verifyMissionStatusJwt(await response.text(), {
      keys: request.keys, issuer: request.issuer, audience: request.audience, missionId: request.missionId, nonce, now: request.now(),
    });
  } catch (error) {
    const code = error instanceof MissionClientError && ['stale', 'mismatch', 'unverifiable'].includes(error.code) ? (error.code as StatusFailure) : 'unverifiable';
    return failedStatus(request.missionId, code, (error as Error).message);
  }
}
