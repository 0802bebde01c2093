import { given } from '@mission/decider';
import { fold } from '@mission/decider';
import { missionBlobBytes, parseMissionBlob } from '../blob/mission-blob.js';
import { parseMissionProposal } from '../blob/mission-proposal.js';
import { matchesMissionS256, missionS256 } from '../blob/mission-s256.js';
import { InvalidRequestError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AGENT, AGENT_JKT, APPROVER, EXPIRES_AT, OTHER_AGENT, T0, T1, T2, TENANT, at } from '../testing/fixtures.js';
import { isPendingId, pendingIdFromBytes, proposalStreamName } from './pending-id.js';
import type { ApproveProposal, DeclineProposal, SubmitProposal } from './proposal.commands.js';
import { proposalDecider } from './proposal.decider.js';
import { ProposalAlreadyDecidedError, ProposalNotFoundError } from './proposal.errors.js';
import { proposalContentDigest } from './proposal-content.js';
import type { ProposalApproved, ProposalDeclined, ProposalEvent, ProposalSubmitted } from './proposal.events.js';
import { proposalBlobFields, proposalView, proposalViewForAgent } from './proposal.state.js';

const PENDING_ID = pendingIdFromBytes(new Uint8Array(16).fill(7));
const PERSON = { id: 'alice', tenant: TENANT };
const PROPOSAL = parseMissionProposal({ description: 'Reconcile November invoices', tools: ['invoices.read'], resources: ['https://erp.example.com/invoices'], expires_at: EXPIRES_AT.toISOString() }, T0);

const submit = (overrides: Partial<SubmitProposal> = {}): SubmitProposal => ({ type: 'SubmitProposal', pendingId: PENDING_ID, agent: AGENT, agentJkt: AGENT_JKT, proposal: PROPOSAL, now: T0, ...overrides });

const submitted: ProposalSubmitted = {
  type: 'ProposalSubmitted',
  data: {
    pending_id: PENDING_ID,
    agent: AGENT,
    agent_jkt: AGENT_JKT,
    content_digest: proposalContentDigest(PROPOSAL),
    submitted_at: T0.toISOString(),
  },
};

const pending = fold(proposalDecider, [submitted]);
const s256For = (now: Date, expiresAt?: Date): string => missionS256(missionBlobBytes(proposalBlobFields(pending, PROPOSAL, { approver: APPROVER, now, ...(expiresAt ? { expiresAt } : {}) })));
const S256 = s256For(T1);

const approve = (overrides: Partial<ApproveProposal> = {}): ApproveProposal => ({ type: 'ApproveProposal', person: PERSON, ownsAgent: true, approver: APPROVER, content: PROPOSAL, s256: S256, now: T1, ...overrides });
const decline = (overrides: Partial<DeclineProposal> = {}): DeclineProposal => ({ type: 'DeclineProposal', person: PERSON, ownsAgent: true, now: T1, ...overrides });

const approved: ProposalApproved = {
  type: 'ProposalApproved',
  data: { pending_id: PENDING_ID, s256: S256, approved_by: 'alice', tenant: TENANT, approved_at: T1.toISOString(), expires_at: EXPIRES_AT.toISOString() },
};
const declined: ProposalDeclined = { type: 'ProposalDeclined', data: { pending_id: PENDING_ID, declined_by: 'alice', declined_at: T1.toISOString() } };

describe('pending ids (DESIGN 3.1, DESIGN 1 stream psproposal-<pending_id>)', () => {
  it('DESIGN 3.1: pnd_ + 22 base64url characters from 16 random bytes, one spelling per id', () => {
    expect(PENDING_ID).toMatch(/^pnd_[A-Za-z0-9_-]{22}$/);
    expect(isPendingId(PENDING_ID)).toBe(true);
    expect(proposalStreamName(PENDING_ID)).toBe(`psproposal-${PENDING_ID}`);
    expect(isPendingId(`${PENDING_ID.slice(0, -1)}B`)).toBe(false);
    expect(isPendingId('pnd_short')).toBe(false);
    expect(isPendingId(PENDING_ID.replace('pnd_', 'msn_'))).toBe(false);
    expect(() => pendingIdFromBytes(new Uint8Array(15))).toThrow(InvalidCommandError);
    expect(() => proposalStreamName('pnd_../x')).toThrow(InvalidCommandError);
  });
});

describe('Proposal decider (DESIGN 3.1)', () => {
  describe('SubmitProposal', () => {
    it('spec 3 rule 5 (ADR 0019): records ProposalSubmitted with the agent, its key thumbprint and the digest of the proposal — never its content; the view is pending', () => {
      const state = given(proposalDecider).when(submit()).then([submitted]);
      expect(proposalView(state)).toEqual({ status: 'pending' });
    });

    it('DESIGN 3.1: a proposal without optional members records none of them', () => {
      given(proposalDecider)
        .when(submit({ proposal: { description: 'x' } }))
        .then([{ type: 'ProposalSubmitted', data: { pending_id: PENDING_ID, agent: AGENT, agent_jkt: AGENT_JKT, content_digest: proposalContentDigest({ description: 'x' }), submitted_at: T0.toISOString() } }]);
    });

    it('DESIGN 3.1: refuses a proposal whose expires_at has passed by the time it is decided (invalid_request)', () => {
      given(proposalDecider).when(submit({ now: EXPIRES_AT })).thenThrows(InvalidRequestError);
    });

    it.each([
      ['a malformed pending id', { pendingId: 'pnd_x' }],
      ['an empty agent', { agent: '' }],
      ['a malformed thumbprint', { agentJkt: 'abc' }],
      ['a proposal not from parseMissionProposal', { proposal: { description: 'x', extra: 1 } as never }],
      ['an invalid now', { now: new Date(Number.NaN) }],
    ])('refuses %s as a bug at the caller', (_, change) => {
      given(proposalDecider).when(submit(change)).thenThrows(InvalidCommandError);
    });

    it('refuses a second submission on the same stream', () => {
      given(proposalDecider, [submitted]).when(submit()).thenThrows(InvalidCommandError);
    });
  });

  describe('ApproveProposal', () => {
    it('DESIGN 3.1: records ProposalApproved {s256, approved_by, tenant, approved_at, expires_at}; the view carries s256', () => {
      const state = given(proposalDecider, [submitted]).when(approve()).then([approved]);
      expect(proposalView(state)).toEqual({ status: 'approved', s256: S256 });
    });

    it('DESIGN 3.1: the recorded s256 is the digest of the blob the approval serializes (verified by re-hashing)', () => {
      const bytes = missionBlobBytes(proposalBlobFields(pending, PROPOSAL, { approver: APPROVER, now: T1 }));
      expect(matchesMissionS256(bytes, approved.data.s256)).toBe(true);
      expect(parseMissionBlob(bytes)).toEqual({
        approver: APPROVER,
        agent: AGENT,
        approved_at: T1.toISOString(),
        description: 'Reconcile November invoices',
        expires_at: EXPIRES_AT.toISOString(),
        approved_tools: ['invoices.read'],
        approved_resources: ['https://erp.example.com/invoices'],
      });
    });

    it('DESIGN 3.1: the person may override expires_at; the blob and the event carry the override', () => {
      const override = at('2026-11-22T13:00:00.000Z');
      given(proposalDecider, [submitted])
        .when(approve({ expiresAt: override, s256: s256For(T1, override) }))
        .then([{ type: 'ProposalApproved', data: { ...approved.data, s256: s256For(T1, override), expires_at: override.toISOString() } }]);
    });

    it('DESIGN 3.1: a proposal without expires_at approves to a mission without expires_at', () => {
      const plain: ProposalSubmitted = { type: 'ProposalSubmitted', data: { pending_id: PENDING_ID, agent: AGENT, agent_jkt: AGENT_JKT, content_digest: proposalContentDigest({ description: 'x' }), submitted_at: T0.toISOString() } };
      const s256 = missionS256(missionBlobBytes(proposalBlobFields(fold(proposalDecider, [plain]), { description: 'x' }, { approver: APPROVER, now: T1 })));
      given(proposalDecider, [plain])
        .when(approve({ s256, content: { description: 'x' } }))
        .then([{ type: 'ProposalApproved', data: { pending_id: PENDING_ID, s256, approved_by: 'alice', tenant: TENANT, approved_at: T1.toISOString() } }]);
    });

    it('spec 3 rule 5 (ADR 0019): refuses content other than the submitted one (its digest is on the proposal stream)', () => {
      given(proposalDecider, [submitted]).when(approve({ content: { ...PROPOSAL, description: 'Pay every invoice' } })).thenThrows(InvalidCommandError);
    });

    it('DESIGN 3.1: refuses an s256 that is not the digest of this approval\'s blob', () => {
      given(proposalDecider, [submitted]).when(approve({ s256: s256For(T2) })).thenThrows(InvalidCommandError);
      given(proposalDecider, [submitted]).when(approve({ approver: 'https://other-ps.example' })).thenThrows(InvalidCommandError);
      given(proposalDecider, [submitted]).when(approve({ s256: 'x' })).thenThrows(InvalidCommandError);
    });

    it('DESIGN 3.1: refuses an override in the past and a proposal expires_at passed while pending (invalid_request)', () => {
      given(proposalDecider, [submitted]).when(approve({ expiresAt: T1, s256: S256 })).thenThrows(InvalidRequestError);
      given(proposalDecider, [submitted]).when(approve({ now: EXPIRES_AT })).thenThrows(InvalidRequestError);
    });

    it('DESIGN 3.2: only a person owning the agent may decide; anyone else gets not_found, like an unknown id', () => {
      given(proposalDecider, [submitted])
        .when(approve({ ownsAgent: false }))
        .thenThrows(ProposalNotFoundError, (error) => expect(error).toMatchObject({ code: 'not_found', status: 404, auditDetail: 'not_owner', message: 'pending mission proposal not found' }));
      given(proposalDecider)
        .when(approve())
        .thenThrows(ProposalNotFoundError, (error) => expect(error).toMatchObject({ code: 'not_found', auditDetail: 'absent', message: 'pending mission proposal not found' }));
    });

    it('DESIGN 3.2: a non-owner learns nothing about a decided proposal either', () => {
      given(proposalDecider, [submitted, approved]).when(approve({ ownsAgent: false })).thenThrows(ProposalNotFoundError);
    });

    it('refuses a malformed person principal as a bug at the caller', () => {
      given(proposalDecider, [submitted]).when(approve({ person: { id: '', tenant: TENANT } })).thenThrows(InvalidCommandError);
      given(proposalDecider, [submitted]).when(decline({ ownsAgent: 'yes' as never })).thenThrows(InvalidCommandError);
    });
  });

  describe('DeclineProposal', () => {
    it('DESIGN 3.1: records ProposalDeclined; the view is declined', () => {
      const state = given(proposalDecider, [submitted]).when(decline()).then([declined]);
      expect(proposalView(state)).toEqual({ status: 'declined' });
    });

    it('DESIGN 3.2: a person not owning the agent cannot decline', () => {
      given(proposalDecider, [submitted]).when(decline({ ownsAgent: false })).thenThrows(ProposalNotFoundError);
    });
  });

  describe('single decision', () => {
    it.each([
      ['approve after approve', [submitted, approved], approve({ now: T2, s256: s256For(T2) })],
      ['decline after approve', [submitted, approved], decline({ now: T2 })],
      ['approve after decline', [submitted, declined], approve({ now: T2, s256: s256For(T2) })],
      ['decline after decline', [submitted, declined], decline({ now: T2 })],
    ] as [string, ProposalEvent[], ApproveProposal | DeclineProposal][])('DESIGN 3.1: refuses %s (invalid_request)', (_, history, command) => {
      given(proposalDecider, history)
        .when(command)
        .thenThrows(ProposalAlreadyDecidedError, (error) => expect(error).toMatchObject({ code: 'invalid_request', status: 400 }));
    });

    it('DESIGN 3.1: the first decision stands in the state even if a second one were stored', () => {
      const state = fold(proposalDecider, [submitted, approved, declined]);
      expect(proposalView(state)).toEqual({ status: 'approved', s256: S256 });
    });
  });

  describe('polling view (DESIGN 3.1 GET /mission/pending/{id})', () => {
    it('DESIGN 3.1: the submitting agent sees pending, then approved with s256, or declined', () => {
      expect(proposalViewForAgent(fold(proposalDecider, [submitted]), AGENT)).toEqual({ status: 'pending' });
      expect(proposalViewForAgent(fold(proposalDecider, [submitted, approved]), AGENT)).toEqual({ status: 'approved', s256: S256 });
      expect(proposalViewForAgent(fold(proposalDecider, [submitted, declined]), AGENT)).toEqual({ status: 'declined' });
    });

    it('DESIGN 3.1: another agent and an unknown id both get not_found', () => {
      expect(() => proposalViewForAgent(fold(proposalDecider, [submitted]), OTHER_AGENT)).toThrow(ProposalNotFoundError);
      expect(() => proposalViewForAgent(proposalDecider.initialState, AGENT)).toThrow(ProposalNotFoundError);
      expect(() => proposalView(proposalDecider.initialState)).toThrow(ProposalNotFoundError);
    });
  });
});
