import { entriesDigest, sealGenesis, sealStreamName, sha256Text, verifySealJws, type SealEntry, type SealPayload } from '@mission/es-kit';
import { comparePositions, formatPosition, parsePosition, type Position } from '@mission/event-store';
import type { JWK } from 'jose';
import type { AuditSource } from '../source/audit-source.js';
import type { Findings } from './finding.js';

/** A seal whose signature, place in the seal chain and entries all check out. */
export interface VerifiedSeal {
  readonly seq: number;
  readonly payload: SealPayload;
  readonly entries: readonly SealEntry[];
  readonly after: Position | undefined;
  readonly through: Position;
}

/**
 * Reads `auditseal-<service>` and keeps the seals that verify with the public JWKS and follow each other
 * (seq +1, `prev` = hash of the previous seal, ranges back to back). Every other seal is a finding: an
 * edited or forged seal fails its signature, a deleted one breaks the `prev` link of the next.
 */
export async function loadSeals(source: AuditSource, service: string, jwks: { keys: readonly JWK[] }, findings: Findings): Promise<VerifiedSeal[]> {
  const stream = sealStreamName(service);
  const seals: VerifiedSeal[] = [];
  let expectedSeq = 0;
  let prevJws: string | undefined;
  let lastThrough: Position | undefined;
  for await (const event of source.readStream(stream)) {
    const at = { stream, revision: event.revision.toString(), position: formatPosition(event.position) };
    const fail = (rule: string, message: string) => findings.add({ check: 'seal', rule, message: `${stream} revision ${event.revision}: ${message}`, ...at });
    const jws = event.data['jws'];
    const entries = event.data['entries'] as SealEntry[] | undefined;
    if (typeof jws !== 'string' || !Array.isArray(entries)) {
      fail('seal.malformed', 'not a seal (no jws or entries)');
      continue;
    }
    const signature = await verifySealJws(jws, jwks);
    if (!signature.ok) {
      fail('seal.signature', `seal does not verify with the service's public keys: ${signature.reason}`);
      continue;
    }
    const payload = signature.payload;
    let ok = true;
    if (payload.service !== service) {
      fail('seal.service', `seal of service ${JSON.stringify(payload.service)} in ${stream}`);
      ok = false;
    }
    // A missing or replaced seal before this one is a finding; this seal still vouches for its own range.
    if (payload.seq !== expectedSeq) {
      fail('seal.sequence', payload.seq > expectedSeq ? `seal ${payload.seq} follows seal ${expectedSeq - 1}: seal(s) ${expectedSeq}..${payload.seq - 1} are missing` : `seal ${payload.seq} repeats or goes back (expected ${expectedSeq})`);
    } else if (payload.prev !== (prevJws === undefined ? sealGenesis(service) : sha256Text(prevJws))) {
      fail('seal.prev', `seal ${payload.seq} does not link to the seal before it (a seal was removed or replaced)`);
    }
    if (entriesDigest(entries) !== payload.entries_digest) {
      fail('seal.entries', `seal ${payload.seq}: its entries were edited (digest differs from the signed one)`);
      ok = false;
    }
    const after = payload.after === null ? undefined : parsePosition(payload.after);
    if (ok && lastThrough !== undefined && (after === undefined || comparePositions(after, lastThrough) < 0)) {
      fail('seal.range', `seal ${payload.seq} starts after ${payload.after ?? 'the beginning'}, inside the range of the seal before it (${formatPosition(lastThrough)})`);
      ok = false;
    }
    expectedSeq = payload.seq + 1;
    prevJws = jws;
    if (!ok) continue;
    const through = parsePosition(payload.through);
    seals.push({ seq: payload.seq, payload, entries, after, through });
    lastThrough = through;
  }
  return seals;
}
