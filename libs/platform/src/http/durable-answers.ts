import type { EventStore } from '@mission/event-store';
import type { FastifyInstance } from 'fastify';

/**
 * No answer leaves before every write acknowledged so far is on disk (ADR 0067). Writes acknowledged at commit
 * (`acknowledge: 'committed'`: a request's replay records) rely on this; other writes are durable when
 * acknowledged and then nothing waits here. When the store can no longer make them durable (a failed fsync) the
 * connection is cut: the client sees a failure, never an answer resting on a write a power loss could take back.
 */
export function answerOnlyWhenDurable(fastify: FastifyInstance, store: EventStore): void {
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    const waiting = store.whenDurable();
    if (waiting === undefined) return done(null, payload);
    waiting.then(
      () => done(null, payload),
      (error: unknown) => void reply.raw.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  });
}
