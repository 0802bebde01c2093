import { Inject, Optional } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { WrongExpectedRevisionError, type EventStore } from '@mission/event-store';
import { decideAndAppend, type RequestTrace } from '@mission/es-kit';
import {
  authorizationRequestDecider, AuthorizationRequestExistsError, parStreamName, requestIdFromBytes, requestUriFor,
  type PushAuthorizationRequest as PushCommand,
} from '@mission/issuer-domain';
import type { Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, secureRandomBytes } from '@mission/platform';
import { asProtocolErrors } from '../../errors/domain-refusals.js';
import { CLOCK } from '../../oauth/clock.js';
import { commandContext } from '../shared/command-context.js';

/** RFC 9126 §2.2: how long a request_uri may be used at /authorize. */
export const REQUEST_URI_LIFETIME_SECONDS = 60;

/** Where a new request's id comes from (tests inject a fixed one to collide). */
export const PAR_REQUEST_IDS = Symbol('PAR_REQUEST_IDS');
const randomRequestId = (): string => requestIdFromBytes(secureRandomBytes(16));

export type PushedRequest = Omit<PushCommand, 'type' | 'requestId' | 'expiresAt' | 'now'>;

/** `POST /par` for a root mission (RFC 9126, DESIGN 2.1, 2.3): the checked request to record. */
export class PushAuthorizationRequest extends Command<{ requestUri: string; expiresIn: number }> {
  constructor(
    readonly request: PushedRequest,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

/**
 * RFC 9126 §2.2: records the request on a fresh `par-<id>`. The id was generated just now, so the stream is
 * not read first: the decider runs on its initial state and the append expects `no_stream`, which leaves
 * refusing a collision to the store (one SQL probe and its promises less per PAR, issue 15). A collision is
 * answered as the read would have answered it: AuthorizationRequestExistsError.
 */
@CommandHandler(PushAuthorizationRequest)
export class PushAuthorizationRequestHandler implements ICommandHandler<PushAuthorizationRequest> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(PAR_REQUEST_IDS) private readonly newRequestId: () => string = randomRequestId,
  ) {}

  async execute({ request, trace }: PushAuthorizationRequest): Promise<{ requestUri: string; expiresIn: number }> {
    const now = this.clock.now();
    const requestId = this.newRequestId();
    const actor = { id: request.clientId, role: 'client' };
    const command: PushCommand = {
      ...request,
      type: 'PushAuthorizationRequest',
      requestId,
      expiresAt: new Date(now.getTime() + REQUEST_URI_LIFETIME_SECONDS * 1000),
      now,
    };
    const fresh = { state: authorizationRequestDecider.initialState, revision: 'no_stream' as const };
    const streamName = parStreamName(requestId);
    await asProtocolErrors(async () => {
      try {
        await decideAndAppend(this.store, streamName, authorizationRequestDecider, fresh, command, commandContext(actor, `par:${requestId}`, now, trace));
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) throw new AuthorizationRequestExistsError('authorization request already exists');
        throw error;
      }
    });
    return { requestUri: requestUriFor(requestId), expiresIn: REQUEST_URI_LIFETIME_SECONDS };
  }
}
