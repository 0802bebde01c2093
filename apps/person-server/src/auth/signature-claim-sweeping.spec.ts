import { DEFAULT_EXPIRED_RECORD_GRACE_MS, ExpiredRecordSweeper } from '@mission/es-kit';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { SIGNATURE_CLAIM_RECORDS, signatureClaimStreamName, StoredSignatureClaims } from './stored-signature-claims.js';

describe('issue 15 item 5: signature claims are swept only once the signature is refused on its own (ADR 0057)', () => {
  let env: TempEmbeddedStore;
  beforeEach(async () => (env = await openTempEmbeddedStore('ps-sig-sweep-')));
  afterEach(() => env.dispose());

  it('spec 5.6: a replay inside the window is still refused after a sweep; the claim goes only after valid_until + grace', async () => {
    const start = Date.parse('2026-11-26T10:00:00Z');
    let now = start;
    const sweeper = new ExpiredRecordSweeper(env.store, SIGNATURE_CLAIM_RECORDS, { clock: () => new Date(now), graceMs: DEFAULT_EXPIRED_RECORD_GRACE_MS });
    const claims = new StoredSignatureClaims(env.store);
    const validUntil = new Date(start + 61_000);
    expect(await claims.claim('sig-1', validUntil, new Date(now))).toBe('first_use');

    now = validUntil.getTime() - 1;
    expect(await sweeper.sweep()).toBe(0);
    expect(await claims.claim('sig-1', validUntil, new Date(now))).toBe('replayed');
    now = validUntil.getTime() + DEFAULT_EXPIRED_RECORD_GRACE_MS - 1;
    expect(await sweeper.sweep()).toBe(0);
    now += 1;
    expect(await sweeper.sweep()).toBe(1);
    expect(await env.store.streamRevision(signatureClaimStreamName('sig-1'))).toBe('no_stream');
  });
});
