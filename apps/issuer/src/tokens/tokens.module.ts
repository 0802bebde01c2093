import { Module } from '@nestjs/common';
import { LineageModule } from '../lineage/lineage.module.js';
import { IssuerOAuthModule } from '../oauth/oauth.module.js';
import { TokenIssuance } from './token-issuance.js';

/** What the token endpoint's grants share (grant reads, mission re-checks, token responses). */
@Module({
  imports: [IssuerOAuthModule, LineageModule],
  providers: [TokenIssuance],
  exports: [TokenIssuance],
})
export class TokensModule {}
