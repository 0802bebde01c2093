import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { EventStore } from '@mission/event-store';
import { aggregateStream } from '@mission/es-kit';
import {
  authorizationRequestDecider, parStreamName, pendingAuthorizationRequest, requestIdFromUri, type AuthorizationRequest,
} from '@mission/issuer-domain';
import { InvalidRequestError, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE } from '@mission/platform';
import { asProtocolErrors } from '../../errors/domain-refusals.js';
import { CLOCK } from '../../oauth/clock.js';

/** `/authorize` (RFC 9126 §4): the pending request a `request_uri` names, for the named client. */
export class ReadPendingAuthorizationRequest extends Query<AuthorizationRequest> {
  constructor(
    readonly requestUri: string,
    readonly clientId: string,
  ) {
    super();
  }
}

/** Unknown, foreign, used and expired request_uris are refused alike, before anything is redirected. */
@QueryHandler(ReadPendingAuthorizationRequest)
export class ReadPendingAuthorizationRequestHandler implements IQueryHandler<ReadPendingAuthorizationRequest> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ requestUri, clientId }: ReadPendingAuthorizationRequest): Promise<AuthorizationRequest> {
    const requestId = requestIdFromUri(requestUri);
    if (requestId === undefined) throw new InvalidRequestError('request_uri: the request_uri is unknown');
    const { state } = await aggregateStream(this.store, parStreamName(requestId), authorizationRequestDecider);
    return asProtocolErrors(async () => pendingAuthorizationRequest(state, { clientId, now: this.clock.now() }));
  }
}
