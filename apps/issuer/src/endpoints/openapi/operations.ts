import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { MISSION_STATUS_MEDIA_TYPE } from '../../use-cases/read-mission-status/mission-status-response.js';
import { AuthorizationCodeForm, CHILD_CREATION_GRANT_TYPE, ChildCreationGrantForm, RefreshTokenForm, RevocationForm } from '../token-parameters.js';
import { EvidenceForm, IntrospectionForm, LifecycleForm, LifecycleReasonForm, StatusForm, TreeForm } from '../mission-forms.js';
import { ChildMissionRequestForm, ClientAuthenticationForm, ConsentDecisionForm, RootMissionRequestForm } from './documented-forms.js';
import { CLIENT_AUTH, DPOP } from './issuer-openapi.js';
import { FORM, JsonAnswer, OAuthErrors } from './oauth-answers.js';

type Model = abstract new (...args: never[]) => unknown;
const ref = (model: Model): { $ref: string } => ({ $ref: getSchemaPath(model as never) });
const grant = (grantType: string, model: Model) => ({
  title: grantType,
  allOf: [ref(ClientAuthenticationForm), { type: 'object', required: ['grant_type'], properties: { grant_type: { type: 'string', enum: [grantType] } } }, ref(model)],
});
/** An authenticated form: the client's `private_key_jwt` members and the endpoint's own parameters. */
const authenticatedForm = (...models: Model[]) => ({ allOf: [ref(ClientAuthenticationForm), ...models.map(ref)] });
const Authenticated = (...schemes: string[]) => ApiSecurity(Object.fromEntries([CLIENT_AUTH, ...schemes].map((name) => [name, []])) as never);
const FormBody = (schema: Record<string, unknown>) => applyDecorators(ApiConsumes(FORM), ApiBody({ required: true, schema }));

const PAR_RESPONSE = {
  type: 'object', required: ['request_uri', 'expires_in'],
  properties: { request_uri: { type: 'string', examples: ['urn:ietf:params:oauth:request_uri:…'] }, expires_in: { type: 'integer', minimum: 1 } },
};
const MISSION_MEMBER = {
  type: 'object', required: ['id', 'issuer', 'authority_hash', 'state'],
  properties: { id: { type: 'string' }, issuer: { type: 'string' }, authority_hash: { type: 'string' }, state: { type: 'string' } },
};
const TOKEN_RESPONSE = {
  type: 'object', required: ['access_token', 'token_type', 'expires_in', 'authorization_details', 'mission_id', 'mission_expires_at'],
  properties: {
    access_token: { type: 'string', description: 'RFC 9068 `at+jwt`, DPoP-bound (`cnf.jkt`); its `mission` claim carries `parent` for a child' },
    token_type: { type: 'string', enum: ['DPoP'] },
    expires_in: { type: 'integer' },
    refresh_token: { type: 'string', description: 'DPoP-bound, rotated on every use' },
    authorization_details: { type: 'array', items: { type: 'object' } },
    mission_id: { type: 'string' },
    mission_expires_at: { type: 'string', format: 'date-time' },
    parent: { type: 'object', description: 'Child Missions (spec 2.3)' },
  },
};

export const ParOperation = () => applyDecorators(
  ApiTags('authorization'),
  ApiOperation({
    summary: 'Pushed authorization request (RFC 9126): a root mission, or a Child Mission creation',
    description: 'A request with `parent`, `parent_token` and `child_actor` creates a Child Mission (spec child-mission-delegation 4.1; a DPoP proof of the parent grant’s key with `ath` is required). Otherwise a root mission request; a DPoP proof is optional and binds the code.',
  }),
  Authenticated(DPOP),
  FormBody({ oneOf: [{ title: 'root mission', ...authenticatedForm(RootMissionRequestForm) }, { title: 'Child Mission creation', ...authenticatedForm(ChildMissionRequestForm) }] }),
  JsonAnswer(201, 'The pushed request: redeem `request_uri` at /authorize (root) or, as the child actor, at /token (child)', PAR_RESPONSE),
  OAuthErrors(
    { 400: ['invalid_request', 'invalid_authorization_details', 'invalid_grant', 'unauthorized_client', 'invalid_dpop_proof', 'use_dpop_nonce'], 401: ['invalid_client'], 403: ['access_denied'], 503: ['temporarily_unavailable'] },
    { denialReasons: true },
  ),
);

export const AuthorizeOperation = () => applyDecorators(
  ApiTags('authorization'),
  ApiOperation({ summary: 'Authorization endpoint with a pushed request (RFC 9126 §4)', description: 'Approval by the client’s registered policy (302 to the redirect URI) or by a person on the consent page (200 HTML). `parent_token` on this front channel is refused.' }),
  ApiQuery({ name: 'client_id', required: true, schema: { type: 'string', maxLength: 255 } }),
  ApiQuery({ name: 'request_uri', required: true, schema: { type: 'string', maxLength: 256 } }),
  ApiResponse({ status: 200, description: 'The consent page (sets the CSRF cookie)', content: { 'text/html; charset=utf-8': { schema: { type: 'string' } } } }),
  ApiResponse({ status: 302, description: 'Approved by policy: `Location` is the redirect URI with `code`, `state`, `iss` (RFC 9207)', headers: { Location: { schema: { type: 'string', format: 'uri' } } } }),
  OAuthErrors({ 400: ['invalid_request'] }),
);

export const ConsentDecisionOperation = () => applyDecorators(
  ApiTags('authorization'),
  ApiOperation({ summary: 'The consent page’s decision (a person approves or declines)', description: 'Needs the CSRF cookie set by GET /authorize and the same token in the form.' }),
  FormBody({ allOf: [ref(ConsentDecisionForm)] }),
  ApiResponse({ status: 302, description: 'Decided: `Location` is the redirect URI with `code` (approved) or `error=access_denied` (declined)', headers: { Location: { schema: { type: 'string', format: 'uri' } } } }),
  ApiResponse({ status: 401, description: 'Wrong person or password: the consent page again', content: { 'text/html; charset=utf-8': { schema: { type: 'string' } } } }),
  OAuthErrors({ 400: ['invalid_request'] }),
);

export const TokenOperation = () => applyDecorators(
  ApiTags('tokens'),
  ApiOperation({ summary: 'Token endpoint: authorization_code (PKCE + DPoP), refresh_token (rotated) and the Child Mission creation grant', description: 'Every grant requires a DPoP proof; the tokens are bound to its key.' }),
  Authenticated(DPOP),
  FormBody({ oneOf: [grant('authorization_code', AuthorizationCodeForm), grant('refresh_token', RefreshTokenForm), grant(CHILD_CREATION_GRANT_TYPE, ChildCreationGrantForm)] }),
  JsonAnswer(200, 'RFC 6749 §5.1 token response (`Cache-Control: no-store`, `Pragma: no-cache`)', TOKEN_RESPONSE),
  OAuthErrors({ 400: ['invalid_request', 'invalid_grant', 'unsupported_grant_type', 'unauthorized_client', 'invalid_dpop_proof', 'use_dpop_nonce'], 401: ['invalid_client'], 503: ['temporarily_unavailable'] }),
);

export const RevokeOperation = () => applyDecorators(
  ApiTags('tokens'),
  ApiOperation({ summary: 'Token revocation (RFC 7009) for refresh tokens', description: 'Unknown tokens are answered 200 as well (RFC 7009 §2.2).' }),
  Authenticated(),
  FormBody(authenticatedForm(RevocationForm)),
  JsonAnswer(200, 'Revoked, or nothing to revoke', { type: 'object', maxProperties: 0 }),
  OAuthErrors({ 400: ['invalid_request', 'unsupported_token_type'], 401: ['invalid_client'] }),
);

export const IntrospectOperation = () => applyDecorators(
  ApiTags('tokens'),
  ApiOperation({ summary: 'Token introspection (RFC 7662) with the mission', description: '`active` only while the token is valid and its mission (and every ancestor) is active.' }),
  Authenticated(),
  FormBody(authenticatedForm(IntrospectionForm)),
  JsonAnswer(200, 'RFC 7662 §2.2 answer; `mission` when active', { type: 'object', required: ['active'], properties: { active: { type: 'boolean' }, mission: MISSION_MEMBER }, additionalProperties: true }),
  OAuthErrors({ 400: ['invalid_request'], 401: ['invalid_client'] }),
);

export const MissionLifecycleOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'Revoke, suspend, resume or complete a mission (DESIGN 2.1)', description: '`expected_version` is a compare-and-set (409 `conflict` with `reason: stale_version`); `nonce` makes a retry idempotent.' }),
  Authenticated(),
  FormBody(authenticatedForm(LifecycleForm, LifecycleReasonForm)),
  JsonAnswer(200, 'The mission’s state and version after the request', { type: 'object', required: ['mission_id', 'state', 'version'], properties: { mission_id: { type: 'string' }, state: { type: 'string' }, version: { type: 'integer' } }, additionalProperties: true }),
  OAuthErrors({ 400: ['invalid_request'], 401: ['invalid_client'], 404: ['not_found'], 409: ['conflict'], 503: ['temporarily_unavailable'] }),
);

export const StatusOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'Signed mission status', description: 'A JWS signed with the issuer’s /jwks key; `fresh_until` ≤ `iat` + `mission_max_stale_seconds`; a child reports its lineage state and `parent`.' }),
  Authenticated(),
  FormBody(authenticatedForm(StatusForm)),
  ApiResponse({ status: 200, description: 'The signed status (`Cache-Control: no-store`)', content: { [MISSION_STATUS_MEDIA_TYPE]: { schema: { type: 'string', description: 'JWS compact serialization' } } } }),
  OAuthErrors({ 400: ['invalid_request'], 401: ['invalid_client'], 404: ['not_found'] }),
);

export const TreeOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'The delegation tree under a mission (permission `audit`)' }),
  Authenticated(),
  FormBody(authenticatedForm(TreeForm)),
  JsonAnswer(200, 'The tree: states, depth, cascade mode and fan-out counters per entry', { type: 'object', additionalProperties: true }),
  OAuthErrors({ 400: ['invalid_request'], 401: ['invalid_client'], 404: ['not_found'] }),
);

export const EvidenceOperation = () => applyDecorators(
  ApiTags('missions'),
  ApiOperation({ summary: 'Child Evidence records (spec 2.6) under a mission, created and denied, paged (permission `audit`)' }),
  Authenticated(),
  FormBody(authenticatedForm(EvidenceForm)),
  JsonAnswer(200, 'A page of records and the cursor of the next', { type: 'object', additionalProperties: true }),
  OAuthErrors({ 400: ['invalid_request'], 401: ['invalid_client'], 404: ['not_found'] }),
);

