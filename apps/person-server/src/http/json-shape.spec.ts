import { InvalidRequestProblem, UnsupportedOperationProblem } from '../errors/problems.js';
import { ManagementOperationBody } from '../endpoints/management-operation.body.js';
import { ProposalDecisionBody } from '../use-cases/decide-proposal/proposal-decision.body.js';
import { DelegationTreeBody } from '../use-cases/read-delegation-tree/delegation-tree.body.js';
import { RevocationRequestBody } from '../use-cases/revoke-auth-token/revocation-request.body.js';
import { MAX_TOKEN_LENGTH, TokenRequestBody } from '../use-cases/issue-auth-token/token-request.body.js';
import { jsonShape } from './json-shape.js';

/** The problem `jsonShape` refuses `body` with, as `error` code and `detail`. */
function refusal(dto: new () => object, body: unknown): { error: string; detail: unknown } {
  try {
    jsonShape(dto, body, 'the request must be a JSON object');
  } catch (error) {
    const problem = error as InvalidRequestProblem;
    return { error: problem.code, detail: problem.toBody()['detail'] };
  }
  throw new Error('the body was accepted');
}

describe('JSON body shapes (class-validator DTOs; spec 7 invalid_request with the same detail as the hand-written checks)', () => {
  it('spec 7: a body that is no JSON object is invalid_request', () => {
    for (const body of [null, [], 'x', 3]) expect(refusal(TokenRequestBody, body)).toEqual({ error: 'invalid_request', detail: 'the request must be a JSON object' });
  });

  it('DESIGN 3.1 POST /token: a member that is no string is "must be a non-empty string", never the length message (checks run in the order written)', () => {
    expect(refusal(TokenRequestBody, { resource_token: 5 })).toEqual({ error: 'invalid_request', detail: 'resource_token must be a non-empty string' });
    expect(refusal(TokenRequestBody, {})).toEqual({ error: 'invalid_request', detail: 'resource_token must be a non-empty string' });
    expect(refusal(TokenRequestBody, { resource_token: '' })).toEqual({ error: 'invalid_request', detail: 'resource_token must be a non-empty string' });
    expect(refusal(TokenRequestBody, { resource_token: 'x'.repeat(MAX_TOKEN_LENGTH + 1) })).toEqual({ error: 'invalid_request', detail: `resource_token is longer than ${MAX_TOKEN_LENGTH} characters` });
    // Absent is fine; null is present and not a token.
    expect(refusal(TokenRequestBody, { resource_token: 'r', subagent_token: null })).toEqual({ error: 'invalid_request', detail: 'subagent_token must be a non-empty string' });
    expect(jsonShape(TokenRequestBody, { resource_token: 'r', other: 1 }, '')).toMatchObject({ resource_token: 'r', subagent_token: undefined, upstream_token: undefined });
  });

  it('spec 4: a non-string operation is invalid_request; an unknown one unsupported_operation', () => {
    expect(refusal(ManagementOperationBody, { operation: 5 })).toEqual({ error: 'invalid_request', detail: 'operation must be a string' });
    expect(() => jsonShape(ManagementOperationBody, { operation: 'reopen' }, '')).toThrow(UnsupportedOperationProblem);
  });

  it('spec 4.3, DESIGN 3.3: max_results is an integer from 1 to 200 (null or absent: the default); cursor a string when present', () => {
    for (const maxResults of [0, 201, 1.5, '5', true]) expect(refusal(DelegationTreeBody, { max_results: maxResults })).toEqual({ error: 'invalid_request', detail: 'max_results must be an integer from 1 to 200' });
    expect(jsonShape(DelegationTreeBody, { max_results: null }, '')).toMatchObject({ max_results: null });
    expect(refusal(DelegationTreeBody, { cursor: null })).toEqual({ error: 'invalid_request', detail: 'cursor must be a string' });
  });

  it('DESIGN 3.1 approvals and ADR 0016 revocation: each member names its own check', () => {
    expect(refusal(ProposalDecisionBody, { decision: 'approve' })).toEqual({ error: 'invalid_request', detail: 'pending_id is required' });
    expect(refusal(ProposalDecisionBody, { pending_id: 'p', decision: 'maybe' })).toEqual({ error: 'invalid_request', detail: 'decision must be "approve" or "decline"' });
    expect(refusal(RevocationRequestBody, { iss: 'x'.repeat(2049), jti: 'j' })).toEqual({ error: 'invalid_request', detail: 'iss must be a non-empty string' });
    expect(refusal(RevocationRequestBody, { iss: 'i', jti: 'j'.repeat(257) })).toEqual({ error: 'invalid_request', detail: 'jti must be a non-empty string' });
  });
});
