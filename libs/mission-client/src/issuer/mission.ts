import * as oauth from 'oauth4webapi';
import { sha256Base64url } from '../core/encoding.js';
import { MissionClientError } from '../core/errors.js';
import { Serial } from '../core/serial.js';
import type { SigningKey } from '../core/keys.js';
import type { AuthorityEntry, IssuerClient, MissionIntent } from './issuer-client.js';
import { intentJson } from './issuer-client.js';
import { mapped } from './oauth-errors.js';
import type { MissionStatus } from './mission-status.js';
import { withDpopNonceRetry } from './transport.js';

/** The token response of a mission grant (DESIGN 2.3, 2.4). */
export interface MissionTokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly authorization_details?: AuthorityEntry[];
  readonly mission_id?: string;
  readonly mission_expires_at?: string;
  readonly parent?: Record<string, unknown>;
}

/** `child_actor` (spec 2.2). */
export interface ChildActor {
  readonly sub: string;
  readonly iss?: string;
  readonly sub_profile?: string;
}

export interface ChildRequest {
  /** The child actor (its `sub` is the client that will redeem the grant). */
  readonly actor: ChildActor | string;
  /** The proposed child Authority Set: each entry a subset of a parent entry (spec 2.5). */
  readonly authority: readonly AuthorityEntry[];
  readonly expiresAt: Date | string;
  /** Default: the parent's goal is not known to the SDK, so say what the child does. */
  readonly goal?: string;
  readonly resources?: readonly string[];
  /** `immediate` (default) or an experimental mode the issuer enables. */
  readonly cascadeMode?: 'immediate' | 'bounded_staleness' | 'status_required';
}

/**
 * A grant reference for a child actor (spec 4.1 rule 3): the `request_uri` only — never tokens. Convey it
 * to the child actor, which calls {@link IssuerClient.redeemChild}.
 */
export interface ChildGrant {
  readonly requestUri: string;
  readonly expiresIn: number;
}

/**
 * A mission held by this agent instance: its DPoP key (never leaves the instance), its access token and
 * its rotating refresh token. Every use of the refresh token is serialized, so concurrent callers of
 * {@link refresh} and {@link createChild} never present a token that a parallel rotation retired.
 */
export class Mission {
  private readonly serial = new Serial();

  constructor(
    private readonly issuer: IssuerClient,
    /** The DPoP key the tokens are bound to (`cnf.jkt`). */
    readonly key: SigningKey,
    private readonly dpop: oauth.DPoPHandle,
    private current: MissionTokens,
  ) {
    if (current.mission_id === undefined) throw new MissionClientError('invalid_response', 'the token response names no mission_id');
  }

  get id(): string {
    return this.current.mission_id!;
  }

  get accessToken(): string {
    return this.current.access_token;
  }

  get tokens(): MissionTokens {
    return this.current;
  }

  get parent(): Record<string, unknown> | undefined {
    return this.current.parent;
  }

  get clientId(): string {
    return this.issuer.clientId;
  }

  /** `refresh_token` grant (DPoP-bound, rotated): new access and refresh tokens; the old refresh token is dead. */
  refresh(): Promise<MissionTokens> {
    return this.serial.run(async () => {
      const refreshToken = this.requireRefreshToken();
      const tokens = await mapped(() =>
        withDpopNonceRetry(async () =>
          oauth.processRefreshTokenResponse(this.issuer.metadata, this.issuer.client,
            await oauth.refreshTokenGrantRequest(this.issuer.metadata, this.issuer.client, this.issuer.clientAuth, refreshToken, { ...this.issuer.options, DPoP: this.dpop })),
        ),
      );
      this.current = { ...this.current, ...(tokens as unknown as MissionTokens), mission_id: this.id };
      return this.current;
    });
  }

  /**
   * Spec 4.1: asks for a Child Mission at PAR with `parent`, `parent_token` (this mission's refresh token)
   * and a DPoP proof of this mission's key carrying `ath` over it. Answers the grant reference only.
   */
  createChild(request: ChildRequest): Promise<ChildGrant> {
    return this.serial.run(async () => {
      const parentToken = this.requireRefreshToken();
      const ath = await sha256Base64url(parentToken);
      // A proof with `ath` over the parent grant (DESIGN 2.4); oauth4webapi signs it with this mission's key.
      const proofWithAth = oauth.DPoP(this.issuer.client, { privateKey: this.key.privateKey, publicKey: this.key.publicKey }, {
        [oauth.modifyAssertion]: (_header, payload) => {
          payload['ath'] = ath;
        },
      });
      const actor = typeof request.actor === 'string' ? { sub: request.actor } : request.actor;
      const parameters = new URLSearchParams({
        parent: this.id,
        parent_token: parentToken,
        child_actor: JSON.stringify(actor),
        mission_intent: intentJson({
          goal: request.goal ?? `Sub-task for ${actor.sub}`,
          resources: request.resources ?? [...new Set(request.authority.map((entry) => new URL(entry.resource).origin))],
          expiresAt: request.expiresAt,
        } satisfies MissionIntent),
        authorization_details: JSON.stringify(request.authority),
        ...(request.cascadeMode !== undefined ? { cascade_mode: request.cascadeMode } : {}),
      });
      const answer = await mapped(() =>
        withDpopNonceRetry(async () =>
          oauth.processPushedAuthorizationResponse(this.issuer.metadata, this.issuer.client,
            await oauth.pushedAuthorizationRequest(this.issuer.metadata, this.issuer.client, this.issuer.clientAuth, parameters, { ...this.issuer.options, DPoP: proofWithAth })),
        ),
      );
      return { requestUri: answer.request_uri, expiresIn: answer.expires_in };
    });
  }

  /** Verified Mission Status of this mission (fails closed: see {@link IssuerClient.status}). */
  status(): Promise<MissionStatus> {
    return this.issuer.status(this.id);
  }

  /** Calls a protected resource with the DPoP-bound access token (RFC 9449 §7). */
  fetchResource(method: string, url: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    return mapped(() =>
      withDpopNonceRetry(async () => {
        try {
          return await oauth.protectedResourceRequest(this.accessToken, method, new URL(url), new Headers(options.headers), options.body ?? null, { ...this.issuer.options, DPoP: this.dpop });
        } catch (error) {
          // A refusal with a challenge is the resource's answer: hand it to the caller (a nonce challenge is retried above).
          if (error instanceof oauth.WWWAuthenticateChallengeError && !oauth.isDPoPNonceError(error)) return error.response;
          throw error;
        }
      }),
    );
  }

  private requireRefreshToken(): string {
    const token = this.current.refresh_token;
    if (token === undefined) throw new MissionClientError('no_refresh_token', `mission ${this.id} holds no refresh token`);
    return token;
  }
}
