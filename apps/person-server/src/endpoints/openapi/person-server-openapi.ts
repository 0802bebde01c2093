import type { OpenApiDefinition } from '@mission/platform';
import { ProposalDecisionBody } from '../../use-cases/decide-proposal/proposal-decision.body.js';
import { BlobDeletionBody } from '../../use-cases/delete-mission-body/blob-deletion.body.js';
import { TokenRequestBody } from '../../use-cases/issue-auth-token/token-request.body.js';
import { PendingProposalsBody } from '../../use-cases/list-pending-proposals/pending-proposals.body.js';
import { RevocationRequestBody } from '../../use-cases/revoke-auth-token/revocation-request.body.js';
import { DelegationTreeOperationBody, MissionProposalBody, StatusOperationBody, TerminateOperationBody } from './documented-bodies.js';
import { SIGNATURE, SIGNATURE_KEY } from './operations.js';

/** The Person Server's OpenAPI 3.1 document (ADR 0047): served at /openapi.json, Swagger UI at /docs. */
export const personServerOpenApi: OpenApiDefinition = {
  title: 'AAuth Person Server',
  description: [
    'Missions approved by a person, and the management operations `status`, `terminate` and `delegation_tree` (spec mission-management; DESIGN 3).',
    'Every request is signed with RFC 9421 HTTP Message Signatures, its key named by the `Signature-Key` header (`jwt` with an Agent Token for agents, `hwk` with a registered key for persons and administrators, `jwks_uri` for resources at /revoke); `Content-Digest` (RFC 9530) covers the body bytes received.',
    'Errors are `application/problem+json` (RFC 9457) with the spec 7 code in `error`; every answer carries `Cache-Control: no-store`.',
  ].join('\n\n'),
  securitySchemes: () => ({
    [SIGNATURE]: {
      type: 'apiKey',
      in: 'header',
      name: 'Signature',
      description: 'RFC 9421 HTTP Message Signature with its `Signature-Input` (covered components include `@method`, `@target-uri`, `content-digest` and `signature-key`; `created` within the window; each signature accepted once across replicas, ADR 0016). A refusal is `401` with a `Signature-Error` header.',
    },
    [SIGNATURE_KEY]: {
      type: 'apiKey',
      in: 'header',
      name: 'Signature-Key',
      description: 'The Signature-Key draft: `sig=jwt;jwt="<Agent Token>"` (agents), `sig=hwk;…` (persons, administrators: the key’s thumbprint is registered), `sig=jwks_uri;id=…;dwk=…;kid=…` (resources revoking Auth Tokens).',
    },
  }),
  tags: [
    { name: 'metadata', description: 'PS metadata (spec 2.2)' },
    { name: 'missions', description: 'Proposals, approvals and the management operations' },
    { name: 'tokens', description: 'Auth Tokens and their revocation' },
    { name: 'keys', description: 'The PS signing keys' },
    { name: 'operations', description: 'Probes and metrics (on MANAGEMENT_PORT when it is set)' },
  ],
  extraModels: [
    MissionProposalBody, StatusOperationBody, TerminateOperationBody, DelegationTreeOperationBody,
    ProposalDecisionBody, PendingProposalsBody, BlobDeletionBody, TokenRequestBody, RevocationRequestBody,
  ],
};
