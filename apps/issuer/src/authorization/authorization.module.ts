import { Module } from '@nestjs/common';
import { AuthorizationRequests } from './authorization-requests.service.js';
import { AuthorizeController } from './authorize.controller.js';
import { ParController } from './par.controller.js';
import { TokenController } from './token.controller.js';
import { TokenService } from './token.service.js';

/** Root-mission authorization flows: PAR, /authorize (policy or consent), /token, /revoke (issue 3 items 3, 4, 5, 8). */
@Module({
  controllers: [ParController, AuthorizeController, TokenController],
  providers: [AuthorizationRequests, TokenService],
})
export class AuthorizationModule {}
