import { CHILD_DENIAL_REASONS } from '@mission/issuer-domain';
import { describeOpenApiContract } from '@mission/platform/testing';
import { startIssuer } from '../testing/run-issuer.js';

/** RFC 6749 §5.2, RFC 7009, RFC 9449, RFC 9396 and our own (DESIGN 2.1) codes the issuer answers with. */
const OAUTH_ERRORS = [
  'invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'access_denied',
  'invalid_authorization_details', 'invalid_dpop_proof', 'use_dpop_nonce', 'unsupported_token_type', 'not_found', 'conflict', 'temporarily_unavailable',
];

describeOpenApiContract({
  serviceName: 'issuer',
  start: (dataDir) => startIssuer(dataDir),
  // Spec child-mission-delegation 7: every denial reason, as `mission_denial_reason`.
  errorCodes: [...OAUTH_ERRORS, ...CHILD_DENIAL_REASONS],
});
