import { grantIdOfToken, missionExists, type AuthoritySet, type MissionState } from '@mission/issuer-domain';
import { InvalidGrantError, type AuthorizationDetail } from '@mission/issuer-oauth';

// RFC 6749 §5.2 + grant-ids.ts: a code or refresh token names its grant stream; anything else is invalid_grant.
export function grantIdOf(token: string, what: 'authorization code' | 'refresh token' | 'child creation grant'): string {
  const grantId = grantIdOfToken(token);
  if (grantId === undefined) throw new InvalidGrantError(`the ${what} is invalid`);
  return grantId;
}

/** RFC 9068 §3 `aud`: the resource servers of the approved Authority Set, in approved order, once each. */
export function audienceOf(authoritySet: AuthoritySet): string[] {
  return [...new Set(authoritySet.map((entry) => entry.resource))];
}

/** RFC 9396 §2: the approved Authority Set entries as the token's `authorization_details` (plain JSON objects). */
export function authorizationDetailsOf(authoritySet: AuthoritySet): AuthorizationDetail[] {
  return authoritySet.map((entry): AuthorizationDetail => ({ ...entry }));
}

/** RFC 9068 §2.2 `sub`: the person who approved, or the client itself when its policy did. */
export function subjectOf(mission: MissionState): string {
  if (!missionExists(mission)) throw new InvalidGrantError('the grant has no mission');
  return mission.approvedBy.role === 'person' ? mission.approvedBy.id : mission.clientId;
}
