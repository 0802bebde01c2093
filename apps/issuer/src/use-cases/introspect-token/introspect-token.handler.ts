import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { isMissionId, missionExists, parentLinkData } from '@mission/issuer-domain';
import { AccessDeniedError, InvalidTokenError, verifyAccessToken, VerifiedAccessTokens, type AccessTokenPayload, type Clock } from '@mission/issuer-oauth';
import { SigningKeys } from '@mission/platform';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { reportedState } from '../../lineage/lineage-report.js';
import { mayAccessMission } from '../../lineage/mission-access.js';
import { MissionLineage } from '../../lineage/mission-lineage.js';
import { CLOCK } from '../../oauth/clock.js';
import { IssuerOAuth } from '../../oauth/issuer-oauth.service.js';

/** RFC 7662 `POST /introspect` with the `mission` member (DESIGN 2.1). */
export class IntrospectToken extends Query<Record<string, unknown>> {
  constructor(
    readonly client: ClientRegistration,
    readonly token: string,
  ) {
    super();
  }
}

/**
 * `active` is true only when the token is valid **and** its mission's lineage state is exactly active at
 * this instant (expiry first; spec 3.2, 4.3: a child is `suspended` while an ancestor is suspended,
 * `cascaded` once one is terminal). A token that fails verification answers `{"active": false}` and nothing
 * else (§2.2); a valid token under a mission that is no longer active also reports the mission's state, so a
 * resource server can tell why. The `mission` member of a Child Mission carries its `parent` (spec 2.3) only
 * for a caller entitled to the mission — its client, an ancestor's client, or an administrator (spec 5 rule 7).
 */
@QueryHandler(IntrospectToken)
export class IntrospectTokenHandler implements IQueryHandler<IntrospectToken> {
  /**
   * Issue 15, ADR 0062: a resource server introspects one token many times; its signature is checked once per
   * key set while the claims (exp, iat, iss) are checked on every call. The handler is a singleton, so this is
   * one bounded cache per issuer process.
   */
  private readonly verifiedTokens = new VerifiedAccessTokens();

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly oauth: IssuerOAuth,
    private readonly keys: SigningKeys,
    private readonly lineage: MissionLineage,
  ) {}

  async execute({ client, token }: IntrospectToken): Promise<Record<string, unknown>> {
    // DESIGN 2.1: the caller holds the introspection permission.
    if (!client.permissions.includes('introspection') && !client.permissions.includes('admin')) {
      throw new AccessDeniedError('this client may not introspect tokens');
    }
    let claims: AccessTokenPayload;
    try {
      ({ claims } = await verifyAccessToken(token, this.keys.jwks(), { issuer: this.oauth.issuer, clock: this.clock, verifiedTokens: this.verifiedTokens }));
    } catch (error) {
      if (error instanceof InvalidTokenError) return { active: false };
      throw error;
    }
    if (!isMissionId(claims.mission.id)) return { active: false };
    const state = await this.lineage.mission(claims.mission.id);
    if (!missionExists(state)) return { active: false };
    const ancestors = await this.lineage.ancestors(state);
    const missionState = reportedState(state, ancestors, this.clock.now());
    // Spec 5 rule 7, issue 11 item 8: lineage only for callers entitled to the mission (as Mission Status decides).
    const showLineage = state.parent !== undefined && mayAccessMission(client, state, ancestors);
    const mission = {
      id: state.missionId,
      issuer: state.issuer,
      authority_hash: state.authorityHash,
      ...(showLineage ? { parent: parentLinkData(state.parent!) } : {}),
      state: missionState,
    };
    if (missionState !== 'active') return { active: false, mission };
    return {
      active: true, iss: claims.iss, sub: claims.sub, aud: claims.aud, client_id: claims.client_id, iat: claims.iat, exp: claims.exp,
      jti: claims.jti, token_type: 'DPoP', cnf: claims.cnf, authorization_details: claims.authorization_details, mission,
    };
  }
}
