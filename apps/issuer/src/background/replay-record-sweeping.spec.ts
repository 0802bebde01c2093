import { ExpiredRecordSweeper, DEFAULT_EXPIRED_RECORD_GRACE_MS } from '@mission/es-kit';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { EventStoreJtiRegistry, InvalidDpopProofError, JTI_REPLAY_RECORDS, jtiStreamName, verifyDpopProof, type Clock } from '@mission/issuer-oauth';
import { DpopKey } from '@mission/mission-client';

const TOKEN_URL = 'https://issuer.example/token';

/** A clock the test moves. */
class TestClock implements Clock {
  private current = Date.parse('2026-11-26T10:00:00Z');
  now(): Date {
    return new Date(this.current);
  }
  advanceMs(ms: number): void {
    this.current += ms;
  }
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidDpopProofError);
  return (error as InvalidDpopProofError).description ?? '';
}

describe('issue 15 item 5: swept replay records never let a replay through (ADR 0057)', () => {
  let env: TempEmbeddedStore;
  let clock: TestClock;
  let sweeper: ExpiredRecordSweeper;
  const deps = () => ({ jtis: new EventStoreJtiRegistry(env.store, clock), clock });
  beforeEach(async () => {
    env = await openTempEmbeddedStore('issuer-replay-');
    clock = new TestClock();
    sweeper = new ExpiredRecordSweeper(env.store, JTI_REPLAY_RECORDS, { clock: () => clock.now(), graceMs: DEFAULT_EXPIRED_RECORD_GRACE_MS });
  });
  afterEach(() => env.dispose());

  it('RFC 9449 §11.1: a proof replayed inside its window is still refused after a sweep', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof('POST', TOKEN_URL, { now: clock.now() });
    await verifyDpopProof({ method: 'POST', url: TOKEN_URL, dpop: proof }, deps());
    clock.advanceMs(59_000);
    expect(await sweeper.sweep()).toBe(0);
    expect(await refusal(verifyDpopProof({ method: 'POST', url: TOKEN_URL, dpop: proof }, deps()))).toBe('DPoP proof was already used');
  });

  it('RFC 9449 §4.3 step 11: once swept, a replay after the window is refused by the iat window check', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof('POST', TOKEN_URL, { now: clock.now() });
    const verified = await verifyDpopProof({ method: 'POST', url: TOKEN_URL, dpop: proof }, deps());
    // Other proofs keep arriving; they are younger and stay.
    const later = await DpopKey.generate();
    clock.advanceMs(61_000 + DEFAULT_EXPIRED_RECORD_GRACE_MS);
    await verifyDpopProof({ method: 'POST', url: TOKEN_URL, dpop: await later.proof('POST', TOKEN_URL, { now: clock.now() }) }, deps());
    expect(await sweeper.sweep()).toBe(1);
    expect(await env.store.streamRevision(jtiStreamName('dpop_proof', verified.jkt, jtiOf(proof)))).toBe('no_stream');
    expect(await refusal(verifyDpopProof({ method: 'POST', url: TOKEN_URL, dpop: proof }, deps()))).toBe('DPoP proof is too old');
  });
});

function jtiOf(jwt: string): string {
  return (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string }).jti;
}
