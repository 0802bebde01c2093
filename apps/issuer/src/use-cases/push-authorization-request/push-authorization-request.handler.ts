import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import { handleCommand } from '@mission/es-kit';
import {
  authorizationRequestDecider, parStreamName, requestIdFromBytes, requestUriFor, type PushAuthorizationRequest as PushCommand,
} from '@mission/issuer-domain';
import type { Clock } from '@mission/issuer-oauth';
import { EVENT_STORE } from '@mission/platform';
import { asProtocolErrors } from '../../errors/domain-refusals.js';
import { CLOCK } from '../../oauth/clock.js';
import { commandContext } from '../shared/command-context.js';

/** RFC 9126 §2.2: how long a request_uri may be used at /authorize. */
export const REQUEST_URI_LIFETIME_SECONDS = 60;

export type PushedRequest = Omit<PushCommand, 'type' | 'requestId' | 'expiresAt' | 'now'>;

/** `POST /par` for a root mission (RFC 9126, DESIGN 2.1, 2.3): the checked request to record. */
export class PushAuthorizationRequest extends Command<{ requestUri: string; expiresIn: number }> {
  constructor(readonly request: PushedRequest) {
    super();
  }
}

/** RFC 9126 §2.2: records the request on a fresh `par-<id>` (expected revision no_stream). */
@CommandHandler(PushAuthorizationRequest)
export class PushAuthorizationRequestHandler implements ICommandHandler<PushAuthorizationRequest> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ request }: PushAuthorizationRequest): Promise<{ requestUri: string; expiresIn: number }> {
    const now = this.clock.now();
    const requestId = requestIdFromBytes(randomBytes(16));
    const actor = { id: request.clientId, role: 'client' };
    const command: PushCommand = {
      ...request,
      type: 'PushAuthorizationRequest',
      requestId,
      expiresAt: new Date(now.getTime() + REQUEST_URI_LIFETIME_SECONDS * 1000),
      now,
    };
    await asProtocolErrors(() => handleCommand(this.store, parStreamName(requestId), authorizationRequestDecider, command, commandContext(actor, `par:${requestId}`, now)));
    return { requestUri: requestUriFor(requestId), expiresIn: REQUEST_URI_LIFETIME_SECONDS };
  }
}
