import type { Projection } from '@mission/es-kit';
import type { RecordedEvent } from '@mission/event-store';
import { PROPOSAL_STREAM_CATEGORY, type ProposalSubmittedData } from '@mission/ps-domain';

/** A proposal still waiting for a person's decision: who proposed it and when (never its content). */
export interface PendingProposalEntry {
  readonly pendingId: string;
  readonly agent: string;
  readonly submittedAt: string;
}

/**
 * The proposals of `psproposal-*` that are neither approved nor declined (ADR 0034), in memory and
 * rebuilt from the store on every start. Visibility is not decided here: the handler filters by caller.
 */
export class PendingProposalsProjection implements Projection {
  readonly name = 'ps_pending_proposals';
  readonly categories = [PROPOSAL_STREAM_CATEGORY];
  readonly eventTypes = ['ProposalSubmitted', 'ProposalApproved', 'ProposalDeclined'];
  private readonly pending = new Map<string, PendingProposalEntry>();

  apply(event: RecordedEvent): void {
    const pendingId = event.data['pending_id'];
    if (typeof pendingId !== 'string') return;
    if (event.type === 'ProposalSubmitted') {
      const data = event.data as unknown as ProposalSubmittedData;
      this.pending.set(pendingId, { pendingId, agent: data.agent, submittedAt: data.submitted_at });
    } else if (event.type === 'ProposalApproved' || event.type === 'ProposalDeclined') {
      this.pending.delete(pendingId);
    }
  }

  reset(): void {
    this.pending.clear();
  }

  /** Every pending proposal, oldest first (ties by pending id), so pages are stable. */
  ordered(): PendingProposalEntry[] {
    return [...this.pending.values()].sort(comparePending);
  }
}

export function comparePending(a: Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'>, b: Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'>): number {
  if (a.submittedAt !== b.submittedAt) return a.submittedAt < b.submittedAt ? -1 : 1;
  return a.pendingId < b.pendingId ? -1 : a.pendingId > b.pendingId ? 1 : 0;
}
