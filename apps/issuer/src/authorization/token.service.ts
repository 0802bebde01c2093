import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import { aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import {
  grantDecider, grantIdOfToken, grantStreamName, grantTokenFromBytes, grantTokenHash, missionErrorCode, missionExists,
  throwIfGrantRefused, type Actor, type Grant, type GrantCommand, type GrantState, type Mission, type ParentLink,
} from '@mission/issuer-domain';
import {
  assertDpopBinding, InvalidGrantError, issueAccessToken, s256CodeChallenge, verifyPkce, type Clock, type VerifiedDpopProof,
} from '@mission/issuer-oauth';
import { EVENT_STORE, SERVICE_CONFIG, SigningKeys } from '@mission/platform';
import type { ClientRegistration, IssuerConfig } from '../config/issuer-config.js';
import { existingAncestors, MissionLineage } from '../missions/mission-lineage.js';
import { reportedState } from '../missions/lineage-report.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { refuseLineageKeyAtRedemption } from '../child-creation/child-redemption-key.js';
import { asProtocolErrors } from './domain-errors.js';
import { audienceOf, authorizationDetailsOf, grantIdOf, subjectOf } from './token-steps.js';

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'DPoP';
  readonly expires_in: number;
  readonly refresh_token?: string;
  readonly authorization_details: unknown;
  readonly mission_id: string;
  readonly mission_expires_at: string;
  /** Child Missions (DESIGN 2.4, spec 2.3). */
  readonly parent?: ParentLink;
}

/** A mission that may derive now, with its ancestors (`[parent, …, root]`, empty for a root). */
interface Derivable {
  readonly mission: Mission;
  readonly ancestors: readonly Mission[];
}

/** The token endpoint's grants on `grant-<id>` streams, checked against the mission at decision time. */
@Injectable()
export class TokenService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: IssuerConfig,
    private readonly oauth: IssuerOAuth,
    private readonly keys: SigningKeys,
    private readonly lineage: MissionLineage,
  ) {}

  /** RFC 6749 §4.1.3 + RFC 7636 §4.6 + RFC 9449 §5/§10: redeem a code once, DPoP-bound. */
  async redeemCode(client: ClientRegistration, code: string, redirectUri: string, codeVerifier: string | undefined, proof: VerifiedDpopProof): Promise<TokenResponse> {
    const grantId = grantIdOf(code, 'authorization code');
    const codeHash = grantTokenHash(code);
    const grant = await this.grant(grantId);
    let mission: Derivable | undefined;
    // Only a fresh code is pre-checked here; a redeemed one goes straight to the decider, which revokes the grant (RFC 6749 §4.1.2).
    if (grant.status === 'code_issued' && grant.kind === 'authorization_code' && !grant.codeRedeemed && grant.codeHash === codeHash && grant.clientId === client.client_id) {
      verifyPkce(codeVerifier, grant.codeChallenge!);
      if (grant.dpopJkt !== undefined) assertDpopBinding(proof, grant.dpopJkt, 'authorization_code');
      mission = await this.derivableMission(grant.missionId);
    }
    const refreshToken = this.mayRefresh(client) ? grantTokenFromBytes(grantId, randomBytes(32)) : undefined;
    const redeemed = await this.decide(grantId, client, {
      type: 'redeemCode', codeHash, clientId: client.client_id, redirectUri, dpopJkt: proof.jkt, now: this.clock.now(),
      codeVerifierChallenge: s256CodeChallenge(codeVerifier ?? ''),
      ...(refreshToken !== undefined ? { refreshTokenHash: grantTokenHash(refreshToken) } : {}),
    });
    return this.tokens(client, mission ?? (await this.derivableMission(redeemed.missionId)), proof.jkt, refreshToken);
  }

  /** RFC 6749 §6 + RFC 9449 §5 + Security BCP §4.14.2: rotate a DPoP-bound refresh token; reuse revokes the grant. */
  async refresh(client: ClientRegistration, refreshToken: string, proof: VerifiedDpopProof): Promise<TokenResponse> {
    const grantId = grantIdOf(refreshToken, 'refresh token');
    const hash = grantTokenHash(refreshToken);
    const grant = await this.grant(grantId);
    let mission: Derivable | undefined;
    // The current token of a live grant: check its key and mission first (a retired one goes to the decider: reuse).
    if (grant.status === 'active' && grant.refreshTokenHash === hash && grant.clientId === client.client_id) {
      assertDpopBinding(proof, grant.jkt!, 'refresh_token');
      mission = await this.derivableMission(grant.missionId);
    }
    const next = grantTokenFromBytes(grantId, randomBytes(32));
    const refreshed = await this.decide(grantId, client, {
      type: 'refresh', refreshTokenHash: hash, newRefreshTokenHash: grantTokenHash(next), clientId: client.client_id, dpopJkt: proof.jkt, now: this.clock.now(),
    });
    return this.tokens(client, mission ?? (await this.derivableMission(refreshed.missionId)), proof.jkt, next);
  }

  /**
   * DESIGN 2.4 child redemption: the child actor named in the creation, once, with its own client
   * authentication and its own DPoP key (spec 2.5 rule 8, 5 rule 3) — the tokens never reach the parent.
   * The child and every ancestor must be active now (spec 3.2 rule 5).
   */
  async redeemChildGrant(client: ClientRegistration, grantToken: string, proof: VerifiedDpopProof): Promise<TokenResponse> {
    const grantId = grantIdOf(grantToken, 'child creation grant');
    const grantHash = grantTokenHash(grantToken);
    const grant = await this.grant(grantId);
    let mission: Derivable | undefined;
    if (grant.status === 'code_issued' && grant.kind === 'child_creation' && !grant.codeRedeemed && grant.codeHash === grantHash && grant.clientId === client.client_id) {
      mission = await this.derivableMission(grant.missionId);
      await refuseLineageKeyAtRedemption(this.store, grant, mission.mission, client.client_id, proof.jkt, this.clock.now());
    }
    const refreshToken = this.mayRefresh(client) ? grantTokenFromBytes(grantId, randomBytes(32)) : undefined;
    const redeemed = await this.decide(grantId, client, {
      type: 'redeemChildGrant', grantHash, clientId: client.client_id, dpopJkt: proof.jkt, now: this.clock.now(),
      ...(refreshToken !== undefined ? { refreshTokenHash: grantTokenHash(refreshToken) } : {}),
    });
    return this.tokens(client, mission ?? (await this.derivableMission(redeemed.missionId)), proof.jkt, refreshToken);
  }

  /** RFC 7009 §2.1: the client revokes one of its refresh tokens (the whole grant goes); unknown tokens change nothing (§2.2). */
  async revoke(client: ClientRegistration, token: string): Promise<void> {
    const grantId = grantIdOfToken(token);
    if (grantId === undefined) return;
    const command: GrantCommand = { type: 'revokeRefreshToken', refreshTokenHash: grantTokenHash(token), clientId: client.client_id, now: this.clock.now() };
    await asProtocolErrors(() => handleCommand(this.store, grantStreamName(grantId), grantDecider, command, this.context(client, `revoke:${grantId}`)));
  }

  private async grant(grantId: string): Promise<GrantState> {
    return (await aggregateStream(this.store, grantStreamName(grantId), grantDecider)).state;
  }

  // DESIGN 2.3, 2.4, spec 3.2 rule 5: derivation only when the mission and every ancestor are exactly active (expiry first), read now.
  private async derivableMission(missionId: string): Promise<Derivable> {
    const mission = await this.lineage.mission(missionId);
    if (!missionExists(mission)) throw new InvalidGrantError('the grant has no mission');
    const chain = await this.lineage.ancestors(mission);
    // The same state status and introspection report (an unreadable ancestor is never active).
    const state = reportedState(mission, chain, this.clock.now());
    if (state !== 'active') throw new InvalidGrantError(`mission is ${state}`, { missionError: missionErrorCode(state) });
    return { mission, ancestors: existingAncestors(chain)! };
  }

  // Single use: the decider's events are appended at the revision it decided on (handleCommand); reuse commits the revocation, then refuses.
  private async decide(grantId: string, client: ClientRegistration, command: GrantCommand): Promise<Grant> {
    return asProtocolErrors(async () => {
      const result = await handleCommand(this.store, grantStreamName(grantId), grantDecider, command, this.context(client, `token:${grantId}`));
      throwIfGrantRefused(result.newEvents);
      if (result.state.status === 'none') throw new InvalidGrantError('the grant is unknown');
      return result.state;
    });
  }

  private context(client: ClientRegistration, causationId: string): CommandContext {
    const actor: Actor = { id: client.client_id, role: 'client' };
    return { correlationId: randomUUID(), causationId, actor, now: this.clock.now() };
  }

  private mayRefresh(client: ClientRegistration): boolean {
    return client.grant_types.includes('refresh_token');
  }

  /**
   * Spec 3.3 `status_required`: this issuer cannot know that every audience of a child's tokens checks parent
   * state, so it compensates with short child-token lifetimes — no longer than the status freshness window
   * (`mission_max_stale_seconds`) — for a mission with that mode anywhere in its lineage.
   */
  private accessTokenTtlSeconds(lineage: readonly Mission[]): number {
    const ttl = this.config.access_token_ttl_seconds;
    const statusRequired = lineage.some((node) => node.parent?.cascade_mode === 'status_required');
    return statusRequired ? Math.max(1, Math.min(ttl, this.config.mission_max_stale_seconds)) : ttl;
  }

  // RFC 9068 + DESIGN 2.3: at+jwt, cnf.jkt, mission claim, exp ≤ mission expires_at; spec 2.3 rule 3: a child's claim carries `parent`.
  private async tokens(client: ClientRegistration, derivable: Derivable, jkt: string, refreshToken: string | undefined): Promise<TokenResponse> {
    const issuer = this.oauth.issuer;
    const { mission, ancestors } = derivable;
    // Spec 2.3 rule 3: `sub` is the subject the authority is for — for a child, the root mission's subject.
    const root = ancestors.length > 0 ? ancestors[ancestors.length - 1]! : mission;
    const issued = await asProtocolErrors(() =>
      issueAccessToken(
        {
          issuer, subject: subjectOf(root), audience: audienceOf(mission.authoritySet), clientId: client.client_id, jkt,
          authorizationDetails: authorizationDetailsOf(mission.authoritySet),
          mission: { id: mission.missionId, issuer, authority_hash: mission.authorityHash, ...(mission.parent ? { parent: mission.parent } : {}) },
          missionExpiresAt: mission.expiresAt, issuedAt: this.clock.now(), ttlSeconds: this.accessTokenTtlSeconds([mission, ...ancestors]),
        },
        this.keys,
      ),
    );
    return {
      access_token: issued.accessToken,
      token_type: 'DPoP',
      expires_in: issued.expiresIn,
      ...(refreshToken !== undefined ? { refresh_token: refreshToken } : {}),
      authorization_details: mission.authoritySet,
      mission_id: mission.missionId,
      mission_expires_at: mission.expiresAt.toISOString(),
      ...(mission.parent ? { parent: mission.parent } : {}),
    };
  }
}
