import { fold, type Decider, type DomainEvent } from '@mission/decider';
import * as domain from './index.js';

const {
  proposalDecider,
  missionDecider,
  idempotencyDecider,
  parseMissionProposal,
  pendingIdFromBytes,
  proposalStreamName,
  proposalBlobFields,
  proposalViewForAgent,
  missionBlobBytes,
  missionS256,
  matchesMissionS256,
  encodeMissionBlob,
  missionApprovalCommand,
  missionStreamName,
  missionStatusRepresentation,
  terminationResult,
  assertMissionActive,
  idempotencyStreamName,
  idempotentReplay,
  requestContentDigest,
  terminateRequestContent,
  IdempotencyConflictError,
  MissionTerminatedError,
} = domain;

/** Runs commands through a decider like handleCommand does, storing events as JSON text. */
function stream<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  const stored: string[] = [];
  const events = (): E[] => stored.map((text) => JSON.parse(text) as E);
  return {
    handle(command: C): S {
      for (const event of decider.decide(command, fold(decider, events()))) {
        const text = JSON.stringify(event);
        expect(JSON.parse(text)).toEqual(event);
        stored.push(text);
      }
      return fold(decider, events());
    },
    state: (): S => fold(decider, events()),
    events,
  };
}

describe('ps-domain public API: proposal → approval → status → terminate (DESIGN 3.1, spec 4)', () => {
  it('DESIGN 3.1 / spec 4.2: a mission from proposal to termination, with an idempotent repeat and a conflict', () => {
    const approver = 'http://localhost:4100';
    const agent = 'aauth:agent-a@agents.example';
    const person = { role: 'person', id: 'alice', tenant: 't1', ownedAgents: [agent] } as const;
    const t0 = new Date('2026-11-22T09:00:00.000Z');
    const t1 = new Date('2026-11-22T09:05:00.000Z');
    const t2 = new Date('2026-11-22T09:10:00.000Z');

    // POST /mission (agent proposes)
    const pendingId = pendingIdFromBytes(new Uint8Array(16).fill(3));
    expect(proposalStreamName(pendingId)).toMatch(/^psproposal-pnd_/);
    const proposals = stream(proposalDecider);
    const proposal = parseMissionProposal({ description: 'Reconcile invoices', tools: ['invoices.read'], expires_at: '2026-11-22T17:00:00Z' }, t0);
    proposals.handle({ type: 'SubmitProposal', pendingId, agent, agentJkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', proposal, now: t0 });
    expect(proposalViewForAgent(proposals.state(), agent)).toEqual({ status: 'pending' });

    // POST /mission/approvals (person approves): serialize the blob once
    const bytes = missionBlobBytes(proposalBlobFields(proposals.state(), proposal, { approver, now: t1 }));
    const s256 = missionS256(bytes);
    proposals.handle({ type: 'ApproveProposal', person: { id: 'alice', tenant: 't1' }, ownsAgent: true, approver, content: proposal, s256, now: t1 });
    const view = proposalViewForAgent(proposals.state(), agent);
    expect(view).toEqual({ status: 'approved', s256 });
    expect(matchesMissionS256(new Uint8Array(Buffer.from(encodeMissionBlob(bytes), 'base64url')), s256)).toBe(true);

    const mission = stream(missionDecider);
    expect(missionStreamName(s256)).toBe(`psmission-${s256}`);
    mission.handle(missionApprovalCommand(proposals.state(), approver));

    // status
    expect(() => domain.assertMissionReference(s256)).not.toThrow();
    const afterStatus = mission.handle({ type: 'ReadMissionStatus', caller: person, now: t1 });
    expect(missionStatusRepresentation(afterStatus, t1, 30)).toMatchObject({ mission_s256: s256, mission_status: 'active', fresh_until: '2026-11-22T09:05:30.000Z' });

    // terminate, with idempotency
    const body = { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: 'r-0123456789abcdefghijkl' };
    const caller = { role: 'agent', id: agent } as const;
    const idem = stream(idempotencyDecider);
    expect(idempotencyStreamName(caller, body.request_id)).toMatch(/^psidem-[A-Za-z0-9_-]{43}$/);
    const digest = requestContentDigest(terminateRequestContent(body));
    expect(idempotentReplay(idem.state(), digest)).toBeUndefined();
    const terminated = mission.handle({ type: 'TerminateMission', caller, reason: body.reason, requestId: body.request_id, now: t2 });
    const result = { ...terminationResult(terminated, t2), token_residual: { tracked: 0, revocation_attempted: 0, revocation_confirmed: 0, complete: true } };
    idem.handle({ type: 'RecordRequestResult', caller, requestId: body.request_id, contentDigest: digest, result, now: t2 });

    // repeat: same result, no second lifecycle event
    const before = mission.events().length;
    expect(idempotentReplay(idem.state(), requestContentDigest(terminateRequestContent({ ...body })))).toEqual(result);
    mission.handle({ type: 'TerminateMission', caller, reason: body.reason, requestId: body.request_id, now: t2 });
    expect(mission.events()).toHaveLength(before);
    // same request_id, other content
    expect(() => idempotentReplay(idem.state(), requestContentDigest(terminateRequestContent({ ...body, purpose: 'x' })))).toThrow(IdempotencyConflictError);

    expect(() => assertMissionActive(mission.state(), t2)).toThrow(MissionTerminatedError);
    expect(mission.events().map((event) => [event.type, event.data.sequence])).toEqual([
      ['MissionApproved', 1],
      ['MissionStatusRead', 2],
      ['MissionTerminated', 3],
    ]);
  });
});
