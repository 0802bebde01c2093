import { grantIdOfToken, REQUEST_URI_PREFIX } from '@mission/issuer-domain';
import { InvalidGrantError } from '@mission/issuer-oauth';

// Spec 4.1 step 2: parent_token must be one of our grant tokens; the grant stream it names is resolved next.
export function parentGrantIdOf(parentToken: string): string {
  const grantId = grantIdOfToken(parentToken);
  if (grantId === undefined) throw new InvalidGrantError('parent_token is not a valid grant of this issuer');
  return grantId;
}

/** DESIGN 2.4: the grant reference handed to the child actor. */
export function childRequestUri(grantToken: string): string {
  return REQUEST_URI_PREFIX + grantToken;
}
