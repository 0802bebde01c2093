import type { FastifyRequest } from 'fastify';
import { requestFacts } from './request-facts.js';

/** A request as Fastify hands it over, counting how often its (computed) `ip` is asked for. */
function request(ip: string, id: string): { request: FastifyRequest; ipReads: () => number } {
  let reads = 0;
  const fake = {
    get ip() {
      reads++;
      return ip;
    },
    method: 'POST',
    url: '/mission?x=1',
    id,
  } as unknown as FastifyRequest;
  return { request: fake, ipReads: () => reads };
}

describe('requestFacts (spec 5.9, 6: what the security audit records of a request)', () => {
  it('issue 15: built once per request — the guard and the controller share it', () => {
    const one = request('192.0.2.1', 'r1');
    const first = requestFacts(one.request);
    expect(requestFacts(one.request)).toBe(first);
    expect(one.ipReads()).toBe(1);
    expect(first).toEqual({ source: '192.0.2.1', method: 'POST', path: '/mission', requestId: 'r1' });
  });

  it('spec 5.9: another request (another source) never gets the facts of the first', () => {
    const first = requestFacts(request('192.0.2.1', 'r1').request);
    const second = requestFacts(request('198.51.100.7', 'r2').request);
    expect(second).toEqual({ source: '198.51.100.7', method: 'POST', path: '/mission', requestId: 'r2' });
    expect(second).not.toBe(first);
  });
});
