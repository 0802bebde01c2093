import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import { AggregateCache, type CommandContext, type RequestTrace } from '@mission/es-kit';
import {
  grantDecider, grantStreamName, grantTokenFromBytes, missionErrorCode, missionExists, throwIfGrantRefused,
  type Actor, type Grant, type GrantCommand, type GrantEvent, type GrantState, type Mission, type ParentLink,
} from '@mission/issuer-domain';
import { InvalidGrantError, issueAccessToken, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, SERVICE_CONFIG, SigningKeys, secureRandomBytes } from '@mission/platform';
import type { ClientRegistration, IssuerConfig } from '../config/issuer-config.js';
import { asProtocolErrors } from '../errors/domain-refusals.js';
import { reportedState } from '../lineage/lineage-report.js';
import { existingAncestors, MissionLineage } from '../lineage/mission-lineage.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { audienceOf, authorizationDetailsOf, subjectOf } from './token-claims.js';

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
export interface Derivable {
  readonly mission: Mission;
  readonly ancestors: readonly Mission[];
}

/**
 * What every grant at the token endpoint shares (RFC 6749 §5.1, RFC 9068, DESIGN 2.3): the grant stream
 * read and decided at the revision read, the mission re-checked at decision time, and the token response.
 */
@Injectable()
export class TokenIssuance {
  /**
   * Grant states folded once and caught up at every read (issue 15): a grant refreshed every few minutes for months
   * has a long stream, and a refresh must not re-fold it from the start (twice) each time.
   */
  private readonly grants: AggregateCache<GrantCommand, GrantEvent, GrantState>;

  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: IssuerConfig,
    private readonly oauth: IssuerOAuth,
    private readonly keys: SigningKeys,
    private readonly lineage: MissionLineage,
  ) {
    this.grants = new AggregateCache(store, grantDecider);
  }

  async grant(grantId: string): Promise<GrantState> {
    return (await this.grants.load(grantStreamName(grantId))).state;
  }

  // DESIGN 2.3, 2.4, spec 3.2 rule 5: derivation only when the mission and every ancestor are exactly active (expiry first), read now.
  async derivableMission(missionId: string): Promise<Derivable> {
    const mission = await this.lineage.mission(missionId);
    if (!missionExists(mission)) throw new InvalidGrantError('the grant has no mission');
    const chain = await this.lineage.ancestors(mission);
    // The same state status and introspection report (an unreadable ancestor is never active).
    const state = reportedState(mission, chain, this.clock.now());
    if (state !== 'active') throw new InvalidGrantError(`mission is ${state}`, { missionError: missionErrorCode(state) });
    return { mission, ancestors: existingAncestors(chain)! };
  }

  // Single use: the decider's events are appended at the revision it decided on (handleCommand); reuse commits the revocation, then refuses.
  async decide(grantId: string, client: ClientRegistration, command: GrantCommand, trace: RequestTrace | undefined): Promise<Grant> {
    return asProtocolErrors(async () => {
      const result = await this.grants.handle(grantStreamName(grantId), command, this.context(client, `token:${grantId}`, trace));
      throwIfGrantRefused(result.newEvents);
      if (result.state.status === 'none') throw new InvalidGrantError('the grant is unknown');
      return result.state;
    });
  }

  /** The context of the client's command, in the request it runs for (ADR 0050). */
  context(client: ClientRegistration, causationId: string, trace: RequestTrace | undefined): CommandContext {
    const actor: Actor = { id: client.client_id, role: 'client' };
    return { correlationId: randomUUID(), causationId, actor, now: this.clock.now(), trace };
  }

  /** A fresh refresh token for the grant when the client is registered for `refresh_token`. */
  newRefreshToken(client: ClientRegistration, grantId: string): string | undefined {
    return client.grant_types.includes('refresh_token') ? grantTokenFromBytes(grantId, secureRandomBytes(32)) : undefined;
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
  async tokens(client: ClientRegistration, derivable: Derivable, jkt: string, refreshToken: string | undefined): Promise<TokenResponse> {
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
