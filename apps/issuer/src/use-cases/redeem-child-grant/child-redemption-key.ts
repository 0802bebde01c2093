import { randomUUID } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import type { RequestTrace } from '@mission/es-kit';
import { delegationIdFromBytes, type ChildEvidence, type Grant, type Mission } from '@mission/issuer-domain';
import { InvalidGrantError } from '@mission/issuer-oauth';
import { secureRandomBytes } from '@mission/platform';
import { appendDeniedEvidence } from '../../evidence/child-evidence.writer.js';

/**
 * Spec 1 item 4, 2.5 rule 8, 5 rules 3–4 at redemption: a Child Mission's tokens are bound to the child
 * actor's own key, never to the key of the parent grant or of any ancestor grant (the creation grant lists
 * them). Such a redemption is refused with `invalid_grant` and leaves `denied` Child Evidence on the parent's
 * evidence stream (reason `child_actor_not_allowed`, check `redemption_key`); the grant stays redeemable by the
 * child actor with its own key. The grant decider refuses the same redemption (ChildKeyIsLineageKeyError).
 */
export async function refuseLineageKeyAtRedemption(
  store: EventStore, grant: Grant, child: Mission, redeemingClientId: string, jkt: string, now: Date, trace: RequestTrace | undefined,
): Promise<void> {
  if (grant.kind !== 'child_creation' || !(grant.lineageJkts ?? []).includes(jkt) || child.parent === undefined) return;
  const detail = 'the DPoP key is the key of the parent grant or of an ancestor grant; child tokens must be bound to the child actor\'s own key';
  const evidence: ChildEvidence = {
    evidence_id: delegationIdFromBytes(secureRandomBytes(16)),
    parent: { id: child.parent.id, issuer: child.parent.issuer, authority_hash: child.parent.authority_hash },
    child: { id: child.missionId, issuer: child.issuer, authority_hash: child.authorityHash },
    child_actor: { sub: grant.clientId },
    requested_by: redeemingClientId,
    attenuation: { result: 'not_evaluated', checks: ['redemption_key'], refused_by: 'redemption_key', detail },
    cascade_mode: child.parent.cascade_mode,
    decision: 'denied',
    denial_reason: 'child_actor_not_allowed',
    created_at: now.toISOString(),
  };
  const actor = { id: redeemingClientId, role: 'client' };
  await appendDeniedEvidence(store, child.parent.id, evidence, { correlationId: randomUUID(), causationId: `token:${grant.grantId}`, actor, now, trace });
  throw new InvalidGrantError(detail);
}
