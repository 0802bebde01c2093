import type { AddressInfo } from 'node:net';
import type { EventStore } from '@mission/event-store';
import Fastify, { type FastifyInstance } from 'fastify';
import { answerOnlyWhenDurable } from './durable-answers.js';

/** ADR 0067: no answer before every acknowledged write is durable; a store that cannot make them durable cuts the answer. */
describe('answerOnlyWhenDurable (ADR 0067)', () => {
  let server: FastifyInstance;
  let whenDurable: () => Promise<void> | undefined;
  let url: string;
  beforeEach(async () => {
    whenDurable = () => undefined;
    server = Fastify();
    answerOnlyWhenDurable(server, { whenDurable: () => whenDurable() } as unknown as EventStore);
    server.post('/token', async () => ({ access_token: 'granted' }));
    await server.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/token`;
  });
  afterEach(() => server.close());

  it('answers at once when nothing waits for the disk', async () => {
    const reply = await fetch(url, { method: 'POST' });
    expect(await reply.json()).toEqual({ access_token: 'granted' });
  });

  it('holds the answer until the writes acknowledged before it are on disk', async () => {
    let release!: () => void;
    let asked = 0;
    whenDurable = () => {
      asked += 1;
      return new Promise<void>((resolve) => (release = resolve));
    };
    let received = false;
    const answer = fetch(url, { method: 'POST' }).then(async (reply) => {
      received = true;
      return reply.json();
    });
    while (asked === 0) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toBe(false);
    release();
    expect(await answer).toEqual({ access_token: 'granted' });
  });

  it('cuts the connection instead of answering when the writes can no longer be made durable (failed fsync)', async () => {
    whenDurable = () => Promise.reject(new Error('fsync of the write-ahead log failed'));
    await expect(fetch(url, { method: 'POST' }).then((reply) => reply.text())).rejects.toThrow();
  });
});
