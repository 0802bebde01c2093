import { fold } from '@mission/decider';
import { missionBlobBytes, parseMissionBlob } from '../blob/mission-blob.js';
import { matchesMissionS256, missionS256 } from '../blob/mission-s256.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { pendingIdFromBytes } from '../proposal/pending-id.js';
import { proposalDecider } from '../proposal/proposal.decider.js';
import type { ProposalEvent } from '../proposal/proposal.events.js';
import { proposalBlobFields } from '../proposal/proposal.state.js';
import { AGENT, AGENT_JKT, APPROVER, EXPIRES_AT, T0, T1, TENANT } from '../testing/fixtures.js';
import { missionDecider } from './mission.decider.js';
import { missionApprovalCommand } from './mission-approval.js';
import { effectiveState } from './mission.state.js';

describe('from an approved proposal to the mission (DESIGN 3.1)', () => {
  const pendingId = pendingIdFromBytes(new Uint8Array(16).fill(9));
  const proposalEvents: ProposalEvent[] = [];
  const apply = (events: ProposalEvent[]) => proposalEvents.push(...events);
  const content = { description: 'Reconcile invoices', expires_at: EXPIRES_AT.toISOString() };
  apply(proposalDecider.decide({ type: 'SubmitProposal', pendingId, agent: AGENT, agentJkt: AGENT_JKT, proposal: content, now: T0 }, fold(proposalDecider, proposalEvents)));
  const bytes = missionBlobBytes(proposalBlobFields(fold(proposalDecider, proposalEvents), content, { approver: APPROVER, now: T1 }));
  const s256 = missionS256(bytes);
  apply(proposalDecider.decide({ type: 'ApproveProposal', person: { id: 'alice', tenant: TENANT }, ownsAgent: true, approver: APPROVER, content, s256, now: T1 }, fold(proposalDecider, proposalEvents)));

  it('DESIGN 3.1: MissionApproved carries the approval\'s digest, agent, person, tenant and times — the blob\'s own values', () => {
    const events = missionDecider.decide(missionApprovalCommand(fold(proposalDecider, proposalEvents), APPROVER), missionDecider.initialState);
    expect(events).toHaveLength(1);
    const data = events[0]!.data;
    expect(data).toMatchObject({ mission_s256: s256, pending_id: pendingId, agent: AGENT, approved_by: 'alice', tenant: TENANT, approved_at: T1.toISOString(), expires_at: EXPIRES_AT.toISOString(), sequence: 1 });
    const blob = parseMissionBlob(bytes);
    expect([blob.approver, blob.agent, blob.approved_at, blob.expires_at]).toEqual([data.approver, AGENT, T1.toISOString(), EXPIRES_AT.toISOString()]);
    expect(matchesMissionS256(bytes, data.mission_s256)).toBe(true);
    expect(effectiveState(fold(missionDecider, events), T1)).toBe('active');
  });

  it('refuses a proposal that is not approved', () => {
    expect(() => missionApprovalCommand(fold(proposalDecider, proposalEvents.slice(0, 1)), APPROVER)).toThrow(InvalidCommandError);
  });
});
