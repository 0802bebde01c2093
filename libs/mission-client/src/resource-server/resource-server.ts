import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import type { IssuerClient } from '../issuer/issuer-client.js';
import { sdkError } from '../issuer/oauth-errors.js';
import { CascadeEnforcement, type CascadeMode, type MissionStateDecision } from './cascade-enforcement.js';
import { ResourceAccessError } from './errors.js';
import { InMemoryProofReplayCache, type ProofReplayCache } from './replay-cache.js';

export interface ResourceServerOptions {
  /** The issuer whose tokens are accepted, as a client with `status` permission over the missions (for state checks). */
  readonly issuer: IssuerClient;
  /** This resource's identifier: it must be in the token's `aud` (RFC 9068 §4). */
  readonly audience: string;
  /** `immediate` mode: how old a confirmed-active answer may be (default 0: check on every request). */
  readonly immediateFreshnessSeconds?: number;
  /** `bounded_staleness` bound (default: the issuer's `mission_max_stale_seconds`, spec 3.3). */
  readonly stalenessBoundSeconds?: number;
  readonly replayCache?: ProofReplayCache;
  readonly now?: () => Date;
}

/** What the resource needs to allow: an action on a resource (default: the resource's own identifier). */
export interface RequiredAuthority {
  readonly action: string;
  readonly resource?: string;
}

export interface AuthorizedRequest {
  readonly claims: oauth.JWTAccessTokenClaims;
  readonly missionId: string;
  readonly cascadeMode: CascadeMode;
  readonly decision: MissionStateDecision;
}

const PROOF_WINDOW_MS = 5 * 60_000;

/**
 * The resource-server helper DESIGN 2.4 promises: verifies a mission-bound `at+jwt` and its DPoP proof
 * (oauth4webapi: `typ`, signature, `iss`, `aud`, `exp`, `htm`, `htu`, `ath`, `cnf.jkt`), refuses a replayed
 * proof `jti`, checks `authorization_details` against the requested action, and enforces the mission
 * state per cascade mode (spec 3.3). Framework-free: {@link authorize} takes a WHATWG `Request`.
 */
export class MissionResourceServer {
  private readonly cascade: CascadeEnforcement;
  private readonly replay: ProofReplayCache;
  private readonly now: () => Date;

  constructor(private readonly options: ResourceServerOptions) {
    this.now = options.now ?? (() => new Date());
    this.replay = options.replayCache ?? new InMemoryProofReplayCache();
    const bound = options.stalenessBoundSeconds ?? Number(options.issuer.metadata['mission_max_stale_seconds'] ?? 60);
    this.cascade = new CascadeEnforcement((missionId) => options.issuer.status(missionId, { now: this.now }), {
      immediateFreshnessMs: (options.immediateFreshnessSeconds ?? 0) * 1000,
      stalenessBoundMs: bound * 1000,
    });
  }

  async authorize(request: Request, required: RequiredAuthority): Promise<AuthorizedRequest> {
    const claims = await this.verifyToken(request);
    this.refuseReplayedProof(request);
    const mission = claims['mission'] as { id?: unknown; parent?: { cascade_mode?: unknown } } | undefined;
    if (typeof mission?.id !== 'string') throw new ResourceAccessError(401, 'invalid_token', 'the token is not mission-bound (no mission claim)');
    checkAuthority(claims, required.resource ?? this.options.audience, required.action);
    const mode = (mission.parent?.cascade_mode ?? 'immediate') as CascadeMode;
    if (!['immediate', 'bounded_staleness', 'status_required'].includes(mode)) throw new ResourceAccessError(403, 'mission_not_active', `unknown cascade mode ${String(mode)}`);
    const decision = await this.cascade.decide(mission.id, mode, this.now().getTime());
    if (!decision.allowed) throw new ResourceAccessError(403, decision.code ?? 'mission_not_active', decision.reason);
    return { claims, missionId: mission.id, cascadeMode: mode, decision };
  }

  private async verifyToken(request: Request): Promise<oauth.JWTAccessTokenClaims> {
    try {
      return await oauth.validateJwtAccessToken(this.options.issuer.metadata, request, this.options.audience, {
        requireDPoP: true, signingAlgorithms: ['ES256', 'EdDSA', 'Ed25519'], ...this.options.issuer.options,
      });
    } catch (error) {
      const mapped = sdkError(error);
      throw new ResourceAccessError(401, /dpop/i.test(mapped.message) ? 'invalid_dpop_proof' : 'invalid_token', mapped.message);
    }
  }

  private refuseReplayedProof(request: Request): void {
    const proof = request.headers.get('dpop')!;
    const { jti, iat } = decodeJwt(proof);
    const nowMs = this.now().getTime();
    if (typeof jti !== 'string' || !this.replay.firstUse(jti, (iat ?? nowMs / 1000) * 1000 + PROOF_WINDOW_MS, nowMs)) {
      throw new ResourceAccessError(401, 'invalid_dpop_proof', 'the DPoP proof was already used');
    }
  }
}

/** RFC 9396: some `authorization_details` entry for `resource` lists `action`. */
function checkAuthority(claims: oauth.JWTAccessTokenClaims, resource: string, action: string): void {
  const details = (claims.authorization_details ?? []) as { type?: unknown; resource?: unknown; actions?: unknown }[];
  const allowed = details.some((entry) => entry.type === 'mission_resource_access' && entry.resource === resource && Array.isArray(entry.actions) && entry.actions.includes(action));
  if (!allowed) throw new ResourceAccessError(403, 'insufficient_authorization', `the mission grants no ${action} on ${resource}`);
}
