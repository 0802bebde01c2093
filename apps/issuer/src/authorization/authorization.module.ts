import { Module } from '@nestjs/common';
import { AuthorizationRequests } from './authorization-requests.service.js';
import { AuthorizeController } from './authorize.controller.js';
import { ParController } from './par.controller.js';
import { TokenController } from './token.controller.js';
import { TokenService } from './token.service.js';
import { ChildCreations } from '../child-creation/child-creation.service.js';

/** Authorization flows: PAR (root missions and Child Mission creation), /authorize (policy or consent), /token, /revoke. */
@Module({
  controllers: [ParController, AuthorizeController, TokenController],
  providers: [AuthorizationRequests, TokenService, ChildCreations],
})
export class AuthorizationModule {}
