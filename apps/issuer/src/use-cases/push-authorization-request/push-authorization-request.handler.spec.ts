import { collect, openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import type { EventStore } from '@mission/event-store';
import { AuthorizationRequestExistsError, parStreamName, requestIdFromBytes, sha256Base64url } from '@mission/issuer-domain';
import { PushAuthorizationRequest, PushAuthorizationRequestHandler, type PushedRequest } from './push-authorization-request.handler.js';

const NOW = new Date('2026-11-26T09:00:00.000Z');
const clock = { now: () => NOW };
const REQUEST_ID = requestIdFromBytes(new Uint8Array(16).fill(7));
const pushed: PushedRequest = {
  clientId: 'agent-a',
  redirectUri: 'http://127.0.0.1:9000/cb',
  codeChallenge: sha256Base64url('verifier-verifier-verifier-verifier-verifier'),
  codeChallengeMethod: 'S256',
  authoritySet: [{ type: 'mission_resource_access', resource: 'https://erp.example.com', actions: ['invoices.read'] }],
  intent: { goal: 'pay invoices', resources: ['https://erp.example.com'], expires_at: '2026-11-26T17:00:00.000Z' },
};

/** The store, with the names of the streams read through it. */
function watchingReads(store: EventStore): { store: EventStore; reads: string[] } {
  const reads: string[] = [];
  const watched = Object.create(store) as EventStore;
  watched.readStream = (name, ...rest) => {
    reads.push(name);
    return store.readStream(name, ...rest);
  };
  return { store: watched, reads };
}

describe('PAR records a request on a fresh stream (RFC 9126 §2.2)', () => {
  let temp: TempEmbeddedStore;
  beforeEach(async () => {
    temp = await openTempEmbeddedStore('par-handler-');
  });
  afterEach(async () => temp.dispose());

  it('RFC 9126 §2.2: appends the new request without reading its stream first (the id was generated just now)', async () => {
    const { store, reads } = watchingReads(temp.store);
    const handler = new PushAuthorizationRequestHandler(store, clock, () => REQUEST_ID);
    const result = await handler.execute(new PushAuthorizationRequest(pushed, { requestId: 'req-par-1', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }));
    expect(result).toEqual({ requestUri: `urn:ietf:params:oauth:request_uri:${REQUEST_ID}`, expiresIn: 60 });
    expect(reads).toEqual([]);
    const events = await collect(temp.store.readStream(parStreamName(REQUEST_ID)));
    expect(events.map((event) => [event.type, event.revision])).toEqual([['PushedAuthorizationRequestReceived', 0n]]);
    expect(events[0]!.data).toMatchObject({ request_id: REQUEST_ID, client_id: 'agent-a', expires_at: '2026-11-26T09:01:00.000Z' });
    // ADR 0050 / 0082: the request's trace, handed to the command, is in the event's metadata.
    expect(events[0]!.metadata).toMatchObject({ request_id: 'req-par-1', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', causation_id: `par:${REQUEST_ID}` });
  });

  it('RFC 9126 §2.2: a colliding request id is refused by the store (expected no_stream) and the first request is left as it was', async () => {
    const first = new PushAuthorizationRequestHandler(temp.store, clock, () => REQUEST_ID);
    await first.execute(new PushAuthorizationRequest(pushed, undefined));
    const second = new PushAuthorizationRequestHandler(temp.store, clock, () => REQUEST_ID);
    await expect(second.execute(new PushAuthorizationRequest({ ...pushed, clientId: 'agent-b' }, undefined))).rejects.toThrow(AuthorizationRequestExistsError);
    const events = await collect(temp.store.readStream(parStreamName(REQUEST_ID)));
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ client_id: 'agent-a' });
  });
});
