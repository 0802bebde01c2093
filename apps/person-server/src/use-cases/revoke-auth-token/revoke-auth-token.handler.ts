import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import { tokenKey, type TokenIdentity, type TokenRevoker, type TrackedToken } from '@mission/ps-domain';
import { ProbeLimiter } from '../../abuse/probe-limiter.js';
import { SecurityAudit } from '../../abuse/security-audit.js';
import { callerKey } from '../../identity/authenticated-caller.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { jsonShape } from '../../http/json-shape.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { missionOfAuthTokenJti } from '../../tokens/auth-tokens.js';
import { TokenLedger } from '../../store/token-ledger.js';
import { RevocationRequestBody } from './revocation-request.body.js';
import { revokerKey, type Revoker } from '../../auth/revoker.js';

/** `{iss, jti}`: strings of bounded length (RevocationRequestBody); unknown members are ignored. */
export function parseRevocationRequest(body: unknown): TokenIdentity {
  const { iss, jti } = jsonShape(RevocationRequestBody, body, 'the request must be a JSON object {iss, jti}');
  return { iss, jti };
}

/** ADR 0016: the holder (the agent the token was issued to) or the audience (the resource it is for); nobody else. */
export function revokerRole(revoker: Revoker, token: TrackedToken): TokenRevoker | undefined {
  if (revoker.kind === 'agent' && revoker.agent === token.agent) return 'holder';
  if (revoker.kind === 'resource' && revoker.resource === token.aud) return 'audience';
  return undefined;
}

/** `POST /revoke` by `revoker` with the request's JSON body (DESIGN 3.1, ADR 0016). */
export class RevokeAuthToken extends Command<void> {
  constructor(
    readonly revoker: Revoker,
    readonly body: unknown,
    readonly facts: RequestFacts,
  ) {
    super();
  }
}

/**
 * The PS revocation endpoint (DESIGN 3.1, ADR 0016): the holder or the audience of an Auth Token this PS issued
 * revokes it by `(iss, jti)`; the revocation is recorded on the token's `pstokens-<s256>` (`AuthTokenRevoked`,
 * part of the mission log), after which the PS honours the token nowhere. Every well-formed request gets the
 * same answer (200, empty), whether the token exists, is someone else's or was already revoked, so the endpoint
 * is no oracle; a refused one goes to the security audit and counts against the caller's failed-lookup allowance.
 */
@CommandHandler(RevokeAuthToken)
export class RevokeAuthTokenHandler implements ICommandHandler<RevokeAuthToken> {
  constructor(
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly ledger: TokenLedger,
    private readonly audit: SecurityAudit,
    private readonly probes: ProbeLimiter,
  ) {}

  async execute({ revoker, body, facts }: RevokeAuthToken): Promise<void> {
    const key = revokerKey(revoker, callerKey);
    // Spec 5.9, 8: a caller out of failed lookups is refused before any lookup.
    this.probes.check(key);
    const identity = parseRevocationRequest(body);
    // Spec 2.6: the identity is (iss, jti) together — only tokens this PS issued can be found here.
    const s256 = identity.iss === this.settings.baseUrl ? missionOfAuthTokenJti(identity.jti) : undefined;
    const token = s256 !== undefined ? (await this.ledger.state(s256)).tokens.get(tokenKey(identity)) : undefined;
    const by = token !== undefined && token.released ? revokerRole(revoker, token) : undefined;
    if (s256 === undefined || token === undefined || by === undefined) {
      this.audit.record({
        kind: 'token_revocation_probe',
        reason: token === undefined ? 'unknown' : 'not_authorized',
        ...(revoker.kind !== 'resource' ? { caller: revoker } : {}),
        ...facts,
      });
      this.probes.recordFailure(key);
      return;
    }
    const now = this.clock.now();
    const actor = revoker.kind === 'resource' ? { id: revoker.resource, role: 'resource' } : { id: revoker.kind === 'agent' ? revoker.agent : revoker.id, role: 'agent' };
    await this.ledger.execute(s256, { type: 'RevokeToken', token: identity, by, actor, now }, { correlationId: randomUUID(), causationId: `revoke:${identity.jti}`, actor, now, trace: facts.trace });
  }
}
