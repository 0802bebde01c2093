import { describeOpenApiContract } from '@mission/platform/testing';
import { SIGNATURE_ERROR_CODES } from './errors/signature-verification.problem.js';
import { startPersonServer } from './testing/run-person-server.js';

/** Spec mission-management 7's table, the base protocol's `mission_terminated`, and DESIGN 3.1's own codes. */
const SPEC_7 = ['invalid_request', 'invalid_mission_reference', 'unsupported_operation', 'invalid_termination_reason', 'idempotency_conflict', 'mission_not_found', 'rate_limited'];
const OWN = ['mission_terminated', 'access_denied', 'not_found', 'mission_active', 'temporarily_unavailable'];

describeOpenApiContract({ serviceName: 'person-server', start: (dataDir) => startPersonServer(dataDir), errorCodes: [...SPEC_7, ...OWN, ...SIGNATURE_ERROR_CODES] });
