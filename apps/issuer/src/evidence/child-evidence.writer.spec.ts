import type { EventStore } from '@mission/event-store';
import type { ChildEvidence } from '@mission/issuer-domain';
import { appendDeniedEvidence } from './child-evidence.writer.js';
import { TemporarilyUnavailableError } from '@mission/issuer-oauth';

const EVIDENCE = { evidence_id: 'dlg_x', decision: 'denied' } as unknown as ChildEvidence;
const CONTEXT = { correlationId: 'c', causationId: 'par:child:dlg_x', actor: { id: 'demo-agent', role: 'client' }, now: new Date('2026-11-25T00:00:00Z') };

/** A store whose appends fail `failures` times, then succeed; it records what reached it. */
function flakyStore(failures: number): { store: EventStore; appended: unknown[]; attempts: () => number } {
  let attempts = 0;
  const appended: unknown[] = [];
  const store = {
    appendToStream: async (stream: string, events: unknown[]) => {
      attempts += 1;
      if (attempts <= failures) throw new Error('disk full');
      appended.push({ stream, events });
      return { nextExpectedRevision: 0n };
    },
  } as unknown as EventStore;
  return { store, appended, attempts: () => attempts };
}

describe('denied Child Evidence is never silently lost (spec 2.6, 6 rule 2; issue 11 defect 7)', () => {
  it('spec 6 rule 2: a transient store failure is retried and the record lands on evidence-<parent>', async () => {
    const { store, appended, attempts } = flakyStore(2);
    await appendDeniedEvidence(store, 'msn_parent', EVIDENCE, CONTEXT);
    expect(attempts()).toBe(3);
    expect(appended).toEqual([{ stream: 'evidence-msn_parent', events: [expect.objectContaining({ type: 'ChildCreationDenied' })] }]);
  });

  it('spec 6 rule 2: when the record cannot be written the refusal is not answered as if audited: 503 temporarily_unavailable', async () => {
    const { store, appended } = flakyStore(99);
    const outcome = appendDeniedEvidence(store, 'msn_parent', EVIDENCE, CONTEXT);
    await expect(outcome).rejects.toBeInstanceOf(TemporarilyUnavailableError);
    await expect(outcome).rejects.toMatchObject({ status: 503, code: 'temporarily_unavailable' });
    expect(appended).toEqual([]);
  });
});
