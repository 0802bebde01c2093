import type { VerifiedSignature } from '@mission/http-signatures';
import type { Clock } from '../time/clock.js';
import { TemporarilyUnavailableProblem } from '../errors/problems.js';
import { SignatureVerificationProblem } from '../errors/signature-verification.problem.js';
import { SIGNATURE_MAX_AGE_SECONDS, type SigningKey } from './authentication-rules.js';
import { signatureIdentity, type SignatureReplayCache } from './signature-replay-cache.js';
import { SignatureClaimUnavailableError, type StoredSignatureClaims } from './stored-signature-claims.js';

/**
 * Spec 5.6, DESIGN 3.2: a signature value is accepted once within its validity window (`created` + 60 s,
 * or `expires` if sooner). The in-memory cache answers repeats seen by this replica without any IO; a first
 * use here is then claimed in the event store (`claims`, issue 12 defect 8), which refuses a signature any
 * replica — or this one before a restart — already accepted. Without `claims` the check is per process.
 */
export async function signatureNotReplayed(
  verified: VerifiedSignature,
  signingKey: Pick<SigningKey, 'key'>,
  cache: SignatureReplayCache,
  clock: Clock,
  maxAgeSeconds = SIGNATURE_MAX_AGE_SECONDS,
  claims?: StoredSignatureClaims,
): Promise<void> {
  const created = verified.params.created ?? 0;
  const windowEnd = Math.min(created + maxAgeSeconds, verified.params.expires ?? Number.POSITIVE_INFINITY);
  const identity = signatureIdentity(signingKey.key.alg, verified.signature);
  const validUntilMs = (windowEnd + 1) * 1000;
  const now = clock.now();
  const verdict = cache.remember(identity, validUntilMs, now.getTime());
  if (verdict === 'replayed') throwReplayed();
  // Fail closed: a full cache could no longer tell a replay from a first use.
  if (verdict === 'full') throw new TemporarilyUnavailableProblem('the request cannot be checked for replay right now', 1);
  if (claims === undefined) return;
  let shared: 'first_use' | 'replayed';
  try {
    shared = await claims.claim(identity, new Date(validUntilMs), now);
  } catch (error) {
    // Fail closed as well: without the store, a replay accepted elsewhere cannot be ruled out.
    if (error instanceof SignatureClaimUnavailableError) throw new TemporarilyUnavailableProblem('the request cannot be checked for replay right now', 1);
    throw error;
  }
  if (shared === 'replayed') throwReplayed();
}

function throwReplayed(): never {
  throw new SignatureVerificationProblem('replayed_signature');
}
