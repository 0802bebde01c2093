import { createHash } from 'node:crypto';
import fc from 'fast-check';
import canonicalize from 'canonicalize';
import { entriesDigest, SealSegment, type SealEntry } from './seal-segment.js';

/**
 * The entries and their digest are what seals sign and what `mission-audit` recomputes: any change to how they are
 * computed must give the same bytes. The reference is the segment as written before issue 15's change (one running
 * SHA-256 per stream), kept here verbatim.
 */
function referenceEntries(events: ReadonlyArray<readonly [string, bigint, string]>): SealEntry[] {
  const streams = new Map<string, { from: bigint; to: bigint; hash: ReturnType<typeof createHash> }>();
  for (const [streamName, revision, hash] of events) {
    let entry = streams.get(streamName);
    if (!entry) {
      entry = { from: revision, to: revision, hash: createHash('sha256').update(`${streamName}\n`, 'utf8') };
      streams.set(streamName, entry);
    }
    entry.to = revision;
    entry.hash.update(`${revision}\n${hash}\n`, 'utf8');
  }
  return [...streams.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([stream, entry]) => ({ stream, from: entry.from.toString(), to: entry.to.toString(), digest: `sha-256:${entry.hash.digest('base64url')}` }));
}

const event = fc.tuple(fc.constantFrom('mission-a', 'clientjti-x', 'dpopjti-é', 'par-1', 'b', 'a\u{1F600}'), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.string({ maxLength: 60 }));

describe('SealSegment entries (ADR 0028)', () => {
  it('gives the same entries, canonical JSON and digest as the running-hash version (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const segment = new SealSegment();
        for (const [stream, revision, hash] of events) segment.add(stream, revision, hash);
        const entries = segment.entries();
        const reference = referenceEntries(events);
        expect(entries).toEqual(reference);
        expect(JSON.stringify(entries)).toBe(canonicalize(reference));
        expect(entriesDigest(entries)).toBe(`sha-256:${createHash('sha256').update(canonicalize(reference)!, 'utf8').digest('base64url')}`);
        expect(segment.events).toBe(events.length);
      }),
      { numRuns: 300 },
    );
  });
});
