import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiResponse, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { TERMINATION_REASONS } from '@mission/ps-domain';
import { ProposalDecisionBody } from '../../use-cases/decide-proposal/proposal-decision.body.js';
import { BlobDeletionBody } from '../../use-cases/delete-mission-body/blob-deletion.body.js';
import { TokenRequestBody } from '../../use-cases/issue-auth-token/token-request.body.js';
import { PendingProposalsBody } from '../../use-cases/list-pending-proposals/pending-proposals.body.js';
import { RevocationRequestBody } from '../../use-cases/revoke-auth-token/revocation-request.body.js';
import { DelegationTreeOperationBody, MissionProposalBody, StatusOperationBody, TerminateOperationBody } from './documented-bodies.js';
import { JSON_TYPE, JsonAnswer, ProblemErrors } from './problem-answers.js';

export const SIGNATURE = 'RFC9421';
export const SIGNATURE_KEY = 'SignatureKey';

type Model = abstract new (...args: never[]) => unknown;
const ref = (model: Model): { $ref: string } => ({ $ref: getSchemaPath(model as never) });
/** DESIGN 3.2: every request is signed (RFC 9421) with the key named by `Signature-Key`. */
const Signed = () => ApiSecurity({ [SIGNATURE]: [], [SIGNATURE_KEY]: [] } as never);
const JsonBody = (schema: Record<string, unknown>) => applyDecorators(ApiConsumes(JSON_TYPE), ApiBody({ required: true, schema }));

const DATE_TIME = { type: 'string', format: 'date-time' } as const;
/** Spec 2.3. */
export const STATUS_SCHEMA = {
  type: 'object',
  required: ['mission_s256', 'mission_status', 'approved_at', 'observed_at', 'fresh_until'],
  properties: {
    mission_s256: { type: 'string' },
    mission_status: { type: 'string', enum: ['active', 'terminated'] },
    approved_at: DATE_TIME,
    expires_at: DATE_TIME,
    terminated_at: DATE_TIME,
    termination_reason: { type: 'string', examples: [...TERMINATION_REASONS] },
    observed_at: DATE_TIME,
    fresh_until: DATE_TIME,
  },
};
/** Spec 2.5. */
const TOKEN_RESIDUAL = {
  type: 'object',
  required: ['tracked', 'revocation_attempted', 'revocation_confirmed', 'complete'],
  properties: { tracked: { type: 'integer' }, revocation_attempted: { type: 'integer' }, revocation_confirmed: { type: 'integer' }, residual_until: DATE_TIME, complete: { type: 'boolean' } },
};
/** Spec 2.7. */
const TREE_NODE = {
  type: 'object',
  required: ['agent', 'relationship'],
  properties: {
    agent: { type: 'string' },
    relationship: { type: 'string', enum: ['root', 'sub_agent', 'call_chain'] },
    parent_agent: { type: 'string' },
    tokens: { type: 'array', items: { type: 'object', required: ['iss', 'jti'], properties: { iss: { type: 'string' }, jti: { type: 'string' } } } },
  },
};
const PENDING = { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['pending'] } } };

export const MissionOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({
    summary: 'The mission endpoint: an agent’s proposal (no `operation`), or a management operation (spec 4)',
    description: 'Without `operation`: a proposal, answered `202` with `Location: /mission/pending/{id}` and `Retry-After`. With `operation`: `status` (4.1), `terminate` (4.2: idempotent by `request_id`, answers the terminal status and `token_residual`), `delegation_tree` (4.3). Unknown and not-authorized missions are the identical `404 mission_not_found`.',
  }),
  Signed(),
  JsonBody({
    oneOf: [
      { title: 'proposal', ...ref(MissionProposalBody) },
      { title: 'status', ...ref(StatusOperationBody) },
      { title: 'terminate', ...ref(TerminateOperationBody) },
      { title: 'delegation_tree', ...ref(DelegationTreeOperationBody) },
    ],
  }),
  JsonAnswer(200, '`status`: the status (spec 2.3); `terminate`: the status plus `token_residual` (2.5) and `request_id`; `delegation_tree`: a page of nodes (2.7)', {
    oneOf: [
      { title: 'status', ...STATUS_SCHEMA },
      { title: 'terminate', allOf: [STATUS_SCHEMA, { type: 'object', required: ['token_residual'], properties: { token_residual: TOKEN_RESIDUAL, request_id: { type: 'string' } } }] },
      { title: 'delegation_tree', type: 'object', required: ['nodes', 'complete'], properties: { nodes: { type: 'array', items: TREE_NODE }, complete: { type: 'boolean' }, next_cursor: { type: 'string' } } },
    ],
  }),
  ApiResponse({
    status: 202,
    description: 'Proposal recorded; poll `Location` after `Retry-After` seconds',
    content: { [JSON_TYPE]: { schema: PENDING } },
    headers: { Location: { schema: { type: 'string', format: 'uri' } }, 'Retry-After': { schema: { type: 'integer' } } },
  }),
  ProblemErrors({
    400: ['invalid_request', 'invalid_mission_reference', 'unsupported_operation', 'invalid_termination_reason'],
    403: ['access_denied', 'mission_terminated'],
    404: ['mission_not_found'],
    409: ['idempotency_conflict'],
    503: ['temporarily_unavailable'],
  }),
);

export const PendingProposalOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'Poll a pending proposal (DESIGN 3.1)', description: 'The proposing agent (or a person owning it) polls until the person decided.' }),
  Signed(),
  ApiParam({ name: 'id', description: 'The pending id from `Location`', schema: { type: 'string' } }),
  JsonAnswer(200, 'Approved: the Mission Reference and the exact blob', { type: 'object', required: ['s256', 'mission'], properties: { s256: { type: 'string' }, mission: { type: 'object', additionalProperties: true } } }),
  ApiResponse({ status: 202, description: 'Still pending (`Retry-After`)', content: { [JSON_TYPE]: { schema: PENDING } }, headers: { 'Retry-After': { schema: { type: 'integer' } } } }),
  ApiResponse({ status: 403, description: 'Declined by the person', content: { [JSON_TYPE]: { schema: { type: 'object', required: ['error'], properties: { error: { type: 'string', enum: ['denied'] } } } } } }),
  ProblemErrors({ 404: ['not_found'] }),
);

export const ApprovalsOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'The owning person approves or declines a proposal (DESIGN 3.1)' }),
  Signed(),
  JsonBody(ref(ProposalDecisionBody)),
  JsonAnswer(200, 'Decided: approved (the Mission Reference), or declined', {
    oneOf: [
      { title: 'approved', type: 'object', required: ['s256'], properties: { s256: { type: 'string' } } },
      { title: 'declined', type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['declined'] } } },
    ],
  }),
  ProblemErrors({ 400: ['invalid_request'], 403: ['access_denied'], 404: ['not_found'], 503: ['temporarily_unavailable'] }),
);

export const PendingProposalsOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'Proposals waiting for a decision, oldest first, paged (ADR 0034)', description: 'A person’s own agents’, an administrator’s tenant’s; everyone else gets the empty listing.' }),
  Signed(),
  JsonBody(ref(PendingProposalsBody)),
  JsonAnswer(200, 'A page of pending proposals', {
    type: 'object',
    required: ['proposals', 'complete'],
    properties: {
      proposals: { type: 'array', items: { type: 'object', required: ['pending_id', 'agent', 'submitted_at', 'description'], properties: { pending_id: { type: 'string' }, agent: { type: 'string' }, submitted_at: DATE_TIME, description: { type: 'string' }, tools: { type: 'array', items: { type: 'object' } }, resources: { type: 'array', items: { type: 'object' } }, expires_at: DATE_TIME } } },
      complete: { type: 'boolean' },
      next_cursor: { type: 'string' },
    },
  }),
  ProblemErrors({ 400: ['invalid_request'] }),
);

export const BlobDeletionOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'An administrator deletes the body of a terminated mission (spec 3 rule 5)', description: '`psmission-<s256>` stays as the tombstone.' }),
  Signed(),
  JsonBody(ref(BlobDeletionBody)),
  JsonAnswer(200, 'Deleted (or already deleted): the terminal status of the tombstone', { type: 'object', required: ['mission_s256', 'mission_status'], properties: { mission_s256: { type: 'string' }, mission_status: { type: 'string', enum: ['terminated'] }, termination_reason: { type: 'string' } }, additionalProperties: true }),
  ProblemErrors({ 400: ['invalid_request', 'invalid_mission_reference'], 403: ['access_denied'], 404: ['mission_not_found'], 409: ['mission_active', 'idempotency_conflict'], 503: ['temporarily_unavailable'] }),
);

export const AuthTokenOperation = () => applyDecorators(
  ApiTags('tokens'),
  ApiOperation({ summary: 'An Owning Agent exchanges a resource token for an Auth Token (DESIGN 3.1)', description: '`exp` never past the mission’s `expires_at`; recorded as a Tracked Auth Token before it is returned.' }),
  Signed(),
  JsonBody(ref(TokenRequestBody)),
  JsonAnswer(200, 'The Auth Token', { type: 'object', required: ['auth_token', 'expires_in', 'token_type'], properties: { auth_token: { type: 'string' }, expires_in: { type: 'integer' }, token_type: { type: 'string', enum: ['aa-auth+jwt'] } } }),
  ProblemErrors({ 400: ['invalid_request'], 403: ['access_denied', 'mission_terminated'], 404: ['mission_not_found'], 503: ['temporarily_unavailable'] }),
);

export const RevocationOperation = () => applyDecorators(
  ApiTags('tokens'),
  ApiOperation({
    summary: 'Revoke an Auth Token as its holder (the agent) or its audience (the resource) (ADR 0016)',
    description: 'The resource signs with its configured key: `Signature-Key: sig=jwks_uri;id="<resource>";dwk="aauth-resource.json";kid="…"`. Every well-formed request is answered the same, known token or not.',
  }),
  Signed(),
  JsonBody(ref(RevocationRequestBody)),
  ApiResponse({ status: 200, description: 'Revoked, or nothing to revoke (empty body)' }),
  ProblemErrors({ 400: ['invalid_request'], 503: ['temporarily_unavailable'] }),
);
