import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningKeys } from '@mission/platform';
import type { MissionStatusView } from '@mission/issuer-domain';
import type { ParentStatusProjection } from '../../lineage/lineage-report.js';

export const MISSION_STATUS_MEDIA_TYPE = 'application/mission-status-response+jwt';

export interface StatusResponseInput {
  readonly issuer: string;
  /** Who the answer is for: the `audience` form parameter, or the calling client. */
  readonly audience: string;
  /** `state` is the lineage state (spec 3.2, 4.3); `parent` the spec 2.7 projection of a Child Mission. */
  readonly mission: MissionStatusView & { readonly parent?: ParentStatusProjection };
  readonly now: Date;
  /** Bounded by `mission_max_stale_seconds` (DESIGN 2.1). */
  readonly maxStaleSeconds: number;
  /** Echoed so the caller can bind the answer to its request. */
  readonly nonce?: string;
}

/**
 * The signed Mission Status answer (DESIGN 2.1): `mission{id, issuer, authority_hash, state, version,
 * expires_at, fresh_until, parent?}`. `fresh_until` never exceeds `iat + mission_max_stale_seconds`, nor — while
 * the mission is live — its own expiry, so a cached answer cannot outlive what it reports.
 */
export async function signMissionStatusResponse(input: StatusResponseInput, keys: SigningKeys): Promise<string> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const expiresAt = Math.floor(Date.parse(input.mission.expires_at) / 1000);
  // A terminal state is final; a live one can change at `expires_at` at the latest.
  const live = input.mission.state === 'active' || input.mission.state === 'suspended';
  const freshUntil = live ? Math.max(iat, Math.min(iat + input.maxStaleSeconds, expiresAt)) : iat + input.maxStaleSeconds;
  return new SignJWT({
    // RFC 3339 like `expires_at` (and the Person Server's `fresh_until`); `exp` carries the same instant.
    mission: { ...input.mission, fresh_until: new Date(freshUntil * 1000).toISOString() },
    ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
  })
    .setProtectedHeader({ alg: keys.alg, kid: keys.kid, typ: 'mission-status-response+jwt' })
    .setIssuer(input.issuer)
    .setAudience(input.audience)
    .setIssuedAt(iat)
    .setExpirationTime(freshUntil)
    .setJti(randomUUID())
    .sign(keys.privateKey);
}
