import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { RequestTrace } from '@mission/es-kit';
import { grantTokenFromBytes, grantTokenHash } from '@mission/issuer-domain';
import { assertDpopBinding, type VerifiedDpopProof } from '@mission/issuer-oauth';
import { secureRandomBytes } from '@mission/platform';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { grantIdOf } from '../../tokens/token-claims.js';
import { TokenIssuance, type Derivable, type TokenResponse } from '../../tokens/token-issuance.js';

/** `POST /token` with `grant_type=refresh_token` (RFC 6749 §6, RFC 9449 §5, Security BCP §4.14.2). */
export class RefreshTokens extends Command<TokenResponse> {
  constructor(
    readonly client: ClientRegistration,
    readonly refreshToken: string,
    readonly proof: VerifiedDpopProof,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

/** Rotates a DPoP-bound refresh token; reuse of a retired one revokes the grant. */
@CommandHandler(RefreshTokens)
export class RefreshTokensHandler implements ICommandHandler<RefreshTokens> {
  constructor(private readonly issuance: TokenIssuance) {}

  async execute({ client, refreshToken, proof, trace }: RefreshTokens): Promise<TokenResponse> {
    const grantId = grantIdOf(refreshToken, 'refresh token');
    const hash = grantTokenHash(refreshToken);
    const grant = await this.issuance.grant(grantId);
    let mission: Derivable | undefined;
    // The current token of a live grant: check its key and mission first (a retired one goes to the decider: reuse).
    if (grant.status === 'active' && grant.refreshTokenHash === hash && grant.clientId === client.client_id) {
      assertDpopBinding(proof, grant.jkt!, 'refresh_token');
      mission = await this.issuance.derivableMission(grant.missionId);
    }
    const next = grantTokenFromBytes(grantId, secureRandomBytes(32));
    const refreshed = await this.issuance.decide(grantId, client, {
      type: 'RotateRefreshToken', refreshTokenHash: hash, newRefreshTokenHash: grantTokenHash(next), clientId: client.client_id, dpopJkt: proof.jkt, now: this.issuance.clock.now(),
    }, trace);
    return this.issuance.tokens(client, mission ?? (await this.issuance.derivableMission(refreshed.missionId)), proof.jkt, next);
  }
}
