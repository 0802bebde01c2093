import { StoredModelProjection } from '@mission/es-kit';
import type { RecordedEvent } from '@mission/event-store';
import { PROPOSAL_STREAM_CATEGORY, type ProposalSubmittedData } from '@mission/ps-domain';
import { PendingProposalsStore } from './pending-proposals.store.js';

/** A proposal still waiting for a person's decision: who proposed it and when (never its content). */
export interface PendingProposalEntry {
  readonly pendingId: string;
  readonly agent: string;
  readonly submittedAt: string;
}

/**
 * The proposals of `psproposal-*` that are neither approved nor declined (ADR 0034), kept in a SQLite file of its own
 * and resumed from the position stored there (ADR 0088). Visibility is not decided here: the handler asks for the
 * caller's agents and filters again.
 */
export class PendingProposalsProjection extends StoredModelProjection<PendingProposalsStore> {
  readonly name = 'ps_pending_proposals';
  readonly categories = [PROPOSAL_STREAM_CATEGORY];
  readonly eventTypes = ['ProposalSubmitted', 'ProposalApproved', 'ProposalDeclined'];

  /** `store`: the model's storage (ADR 0088); an in-memory SQLite database unless given one. */
  constructor(store: PendingProposalsStore = PendingProposalsStore.open(':memory:')) {
    super(store);
  }

  apply(event: RecordedEvent): void {
    const applied = { position: event.position, created: event.created };
    const pendingId = event.data['pending_id'];
    if (typeof pendingId !== 'string') return this.model.skipped(applied);
    if (event.type === 'ProposalSubmitted') {
      const data = event.data as unknown as ProposalSubmittedData;
      return this.model.submitted({ pendingId, agent: data.agent, submittedAt: data.submitted_at }, applied);
    }
    if (event.type === 'ProposalApproved' || event.type === 'ProposalDeclined') return this.model.decided(pendingId, applied);
    this.model.skipped(applied);
  }

  /** Proposals pending in the model. */
  get size(): number {
    return this.model.size;
  }

  /** At most `limit` pending proposals of `agents` strictly after `after`, oldest first (ties by id). */
  page(agents: Iterable<string>, after: Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'> | undefined, limit: number): PendingProposalEntry[] {
    return this.model.page(agents, after, limit);
  }
}
