import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { RequestTrace } from '@mission/es-kit';
import { grantTokenHash } from '@mission/issuer-domain';
import { assertDpopBinding, s256CodeChallenge, verifyPkce, type VerifiedDpopProof } from '@mission/issuer-oauth';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { grantIdOf } from '../../tokens/token-claims.js';
import { TokenIssuance, type Derivable, type TokenResponse } from '../../tokens/token-issuance.js';

/** `POST /token` with `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 9449 §5/§10). */
export class RedeemAuthorizationCode extends Command<TokenResponse> {
  constructor(
    readonly client: ClientRegistration,
    readonly code: string,
    readonly redirectUri: string,
    readonly codeVerifier: string | undefined,
    readonly proof: VerifiedDpopProof,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

/** Redeems a code once, DPoP-bound; a redeemed code revokes its grant (RFC 6749 §4.1.2). */
@CommandHandler(RedeemAuthorizationCode)
export class RedeemAuthorizationCodeHandler implements ICommandHandler<RedeemAuthorizationCode> {
  constructor(private readonly issuance: TokenIssuance) {}

  async execute({ client, code, redirectUri, codeVerifier, proof, trace }: RedeemAuthorizationCode): Promise<TokenResponse> {
    const grantId = grantIdOf(code, 'authorization code');
    const codeHash = grantTokenHash(code);
    const grant = await this.issuance.grant(grantId);
    let mission: Derivable | undefined;
    // Only a fresh code is pre-checked here; a redeemed one goes straight to the decider, which revokes the grant (RFC 6749 §4.1.2).
    if (grant.status === 'code_issued' && grant.kind === 'authorization_code' && !grant.codeRedeemed && grant.codeHash === codeHash && grant.clientId === client.client_id) {
      verifyPkce(codeVerifier, grant.codeChallenge!);
      if (grant.dpopJkt !== undefined) assertDpopBinding(proof, grant.dpopJkt, 'authorization_code');
      mission = await this.issuance.derivableMission(grant.missionId);
    }
    const refreshToken = this.issuance.newRefreshToken(client, grantId);
    const redeemed = await this.issuance.decide(grantId, client, {
      type: 'RedeemAuthorizationCode', codeHash, clientId: client.client_id, redirectUri, dpopJkt: proof.jkt, now: this.issuance.clock.now(),
      codeVerifierChallenge: s256CodeChallenge(codeVerifier ?? ''),
      ...(refreshToken !== undefined ? { refreshTokenHash: grantTokenHash(refreshToken) } : {}),
    }, trace);
    return this.issuance.tokens(client, mission ?? (await this.issuance.derivableMission(redeemed.missionId)), proof.jkt, refreshToken);
  }
}
