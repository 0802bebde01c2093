import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { DpopNonces } from '@mission/issuer-oauth';
import type { Observable } from 'rxjs';
import { DPOP_NONCES } from './dpop-nonce-config.js';

/** RFC 9449 §8.2: successful answers of DPoP endpoints carry the next nonce, saving the client a round trip. */
@Injectable()
export class DpopNonceInterceptor implements NestInterceptor {
  constructor(@Inject(DPOP_NONCES) private readonly nonces: DpopNonces | undefined) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.nonces) context.switchToHttp().getResponse<FastifyReply>().header('DPoP-Nonce', this.nonces.issue());
    return next.handle();
  }
}
