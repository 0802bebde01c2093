import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { RequestTrace } from '@mission/es-kit';
import { grantTokenHash } from '@mission/issuer-domain';
import type { VerifiedDpopProof } from '@mission/issuer-oauth';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { grantIdOf } from '../../tokens/token-claims.js';
import { TokenIssuance, type Derivable, type TokenResponse } from '../../tokens/token-issuance.js';
import { refuseLineageKeyAtRedemption } from './child-redemption-key.js';

/** `POST /token` with the `mission-child-creation` grant: the child actor redeems its creation grant (DESIGN 2.4). */
export class RedeemChildGrant extends Command<TokenResponse> {
  constructor(
    readonly client: ClientRegistration,
    readonly grantToken: string,
    readonly proof: VerifiedDpopProof,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

/**
 * DESIGN 2.4 child redemption: the child actor named in the creation, once, with its own client
 * authentication and its own DPoP key (spec 2.5 rule 8, 5 rule 3) — the tokens never reach the parent.
 * The child and every ancestor must be active now (spec 3.2 rule 5).
 */
@CommandHandler(RedeemChildGrant)
export class RedeemChildGrantHandler implements ICommandHandler<RedeemChildGrant> {
  constructor(private readonly issuance: TokenIssuance) {}

  async execute({ client, grantToken, proof, trace }: RedeemChildGrant): Promise<TokenResponse> {
    const grantId = grantIdOf(grantToken, 'child creation grant');
    const grantHash = grantTokenHash(grantToken);
    const grant = await this.issuance.grant(grantId);
    let mission: Derivable | undefined;
    if (grant.status === 'code_issued' && grant.kind === 'child_creation' && !grant.codeRedeemed && grant.codeHash === grantHash && grant.clientId === client.client_id) {
      mission = await this.issuance.derivableMission(grant.missionId);
      await refuseLineageKeyAtRedemption(this.issuance.store, grant, mission.mission, client.client_id, proof.jkt, this.issuance.clock.now(), trace);
    }
    const refreshToken = this.issuance.newRefreshToken(client, grantId);
    const redeemed = await this.issuance.decide(grantId, client, {
      type: 'RedeemChildGrant', grantHash, clientId: client.client_id, dpopJkt: proof.jkt, now: this.issuance.clock.now(),
      ...(refreshToken !== undefined ? { refreshTokenHash: grantTokenHash(refreshToken) } : {}),
    }, trace);
    return this.issuance.tokens(client, mission ?? (await this.issuance.derivableMission(redeemed.missionId)), proof.jkt, refreshToken);
  }
}
