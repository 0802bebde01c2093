import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { handleCommand, type RequestTrace } from '@mission/es-kit';
import { grantDecider, grantIdOfToken, grantStreamName, grantTokenHash, type GrantCommand } from '@mission/issuer-domain';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { asProtocolErrors } from '../../errors/domain-refusals.js';
import { TokenIssuance } from '../../tokens/token-issuance.js';

/** `POST /revoke` (RFC 7009): the client revokes one of its refresh tokens. */
export class RevokeToken extends Command<void> {
  constructor(
    readonly client: ClientRegistration,
    readonly token: string,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

/** RFC 7009 §2.1: the whole grant goes; unknown tokens change nothing (§2.2). */
@CommandHandler(RevokeToken)
export class RevokeTokenHandler implements ICommandHandler<RevokeToken> {
  constructor(private readonly issuance: TokenIssuance) {}

  async execute({ client, token, trace }: RevokeToken): Promise<void> {
    const grantId = grantIdOfToken(token);
    if (grantId === undefined) return;
    const command: GrantCommand = { type: 'RevokeRefreshToken', refreshTokenHash: grantTokenHash(token), clientId: client.client_id, now: this.issuance.clock.now() };
    await asProtocolErrors(() => handleCommand(this.issuance.store, grantStreamName(grantId), grantDecider, command, this.issuance.context(client, `revoke:${grantId}`, trace)));
  }
}
