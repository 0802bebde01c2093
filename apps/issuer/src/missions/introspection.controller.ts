import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isMissionId, missionExists, parentLinkData } from '@mission/issuer-domain';
import { AccessDeniedError, InvalidTokenError, verifyAccessToken, type AccessTokenPayload, type Clock } from '@mission/issuer-oauth';
import { SigningKeys } from '@mission/platform';
import { formOf } from '../http/oauth-form.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { reportedState } from './lineage-report.js';
import { mayAccessMission } from './mission-access.js';
import { MissionLineage } from './mission-lineage.js';

/**
 * RFC 7662 introspection with the `mission` member (DESIGN 2.1): `active` is true only when the token is
 * valid **and** its mission's lineage state is exactly active at this instant (expiry first; spec 3.2,
 * 4.3: a child is `suspended` while an ancestor is suspended, `cascaded` once one is terminal). A token
 * that fails verification answers `{"active": false}` and nothing else (§2.2); a valid token under a
 * mission that is no longer active also reports the mission's state, so a resource server can tell why.
 * The `mission` member of a Child Mission carries its `parent` (spec 2.3) only for a caller entitled to the
 * mission — its client, an ancestor's client, or an administrator (spec 5 rule 7: no cross-audience lineage).
 */
@Controller()
export class IntrospectionController {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly oauth: IssuerOAuth,
    private readonly keys: SigningKeys,
    private readonly lineage: MissionLineage,
  ) {}

  @Post('introspect')
  @HttpCode(200)
  async introspect(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    // RFC 7662 §2.1: the caller is authenticated; DESIGN 2.1: and holds the introspection permission.
    const { client } = await this.oauth.authenticate(form, request);
    if (!client.permissions.includes('introspection') && !client.permissions.includes('admin')) {
      throw new AccessDeniedError('this client may not introspect tokens');
    }
    const token = form.required('token', 16_384);
    response.setHeader('Cache-Control', 'no-store');
    let claims: AccessTokenPayload;
    try {
      ({ claims } = await verifyAccessToken(token, this.keys.jwks(), { issuer: this.oauth.issuer, clock: this.clock }));
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
      active: true,
      iss: claims.iss,
      sub: claims.sub,
      aud: claims.aud,
      client_id: claims.client_id,
      iat: claims.iat,
      exp: claims.exp,
      jti: claims.jti,
      token_type: 'DPoP',
      cnf: claims.cnf,
      authorization_details: claims.authorization_details,
      mission,
    };
  }
}
