import { InvalidRequestError } from '../errors/management.errors.js';
import { T0 } from '../testing/fixtures.js';
import { parseMissionProposal, PROPOSAL_LIMITS } from './mission-proposal.js';

describe('mission proposal members (DESIGN 3.1 POST /mission without operation)', () => {
  it('DESIGN 3.1: accepts description, tools, resources and a future expires_at, normalising expires_at', () => {
    expect(
      parseMissionProposal({ description: 'Reconcile invoices', tools: ['invoices.read'], resources: ['https://erp.example.com/invoices'], expires_at: '2026-11-22T19:00:00+02:00' }, T0),
    ).toEqual({ description: 'Reconcile invoices', tools: ['invoices.read'], resources: ['https://erp.example.com/invoices'], expires_at: '2026-11-22T17:00:00.000Z' });
  });

  it('DESIGN 3.1: only description is required; absent members stay absent', () => {
    const proposal = parseMissionProposal({ description: 'Reconcile invoices' }, T0);
    expect(proposal).toEqual({ description: 'Reconcile invoices' });
    expect(Object.keys(proposal)).toEqual(['description']);
  });

  it('DESIGN 3.1: accepts the limits exactly', () => {
    const tools = Array.from({ length: PROPOSAL_LIMITS.maxTools }, (_, i) => `t${i}`.padEnd(PROPOSAL_LIMITS.maxToolLength, 'x'));
    expect(() => parseMissionProposal({ description: 'd'.repeat(PROPOSAL_LIMITS.maxDescriptionLength), tools, resources: [] }, T0)).not.toThrow();
  });

  it.each([
    ['a body that is not an object', ['description']],
    ['an unknown member (closed member set)', { description: 'x', approver: 'https://evil.example' }],
    ['a missing description', {}],
    ['an empty description', { description: '' }],
    ['a blank description', { description: ' \u00a0 ' }],
    ['a description over the limit', { description: 'd'.repeat(PROPOSAL_LIMITS.maxDescriptionLength + 1) }],
    ['a description with a line feed', { description: 'a\nb' }],
    ['a description with a C1 control character', { description: 'a\u0085b' }],
    ['a description with a lone surrogate', { description: 'a\ud800b' }],
    ['tools that is not an array', { description: 'x', tools: 'invoices.read' }],
    ['tools with an empty string', { description: 'x', tools: [''] }],
    ['tools with a non-string', { description: 'x', tools: [1] }],
    ['duplicate tools', { description: 'x', tools: ['a', 'a'] }],
    ['too many tools', { description: 'x', tools: Array.from({ length: PROPOSAL_LIMITS.maxTools + 1 }, (_, i) => `t${i}`) }],
    ['a tool over the length limit', { description: 'x', tools: ['t'.repeat(PROPOSAL_LIMITS.maxToolLength + 1)] }],
    ['a resource with a control character', { description: 'x', resources: ['https://a.example/\u0000'] }],
    ['expires_at that is not RFC 3339', { description: 'x', expires_at: 'tomorrow' }],
    ['expires_at that is a number', { description: 'x', expires_at: 1_800_000_000 }],
    ['expires_at equal to now', { description: 'x', expires_at: T0.toISOString() }],
    ['expires_at in the past', { description: 'x', expires_at: '2026-11-22T08:59:59Z' }],
  ])('DESIGN 3.1: refuses %s with invalid_request', (_, body) => {
    expect(() => parseMissionProposal(body, T0)).toThrow(InvalidRequestError);
  });

  it('spec 7: refusals never quote the input value', () => {
    try {
      parseMissionProposal({ description: 'secret\u0007value' }, T0);
      throw new Error('not refused');
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
      expect((error as Error).message).not.toContain('secret');
    }
  });
});
