import { IsIn, Matches, ValidateBy } from 'class-validator';
import { LIFECYCLE_OPERATIONS } from '@mission/issuer-domain';
import { MAX_EVIDENCE_RESULTS } from '../evidence/child-evidence.reader.js';
import { FormParameter } from '../http/form-parameters.js';

/** DESIGN 2.1 `/missions/*`: the mission a request names (a malformed one is answered 404 like an unknown one). */
export class MissionForm {
  @FormParameter(64, { doc: { description: 'The mission (`mis_…`); unknown, malformed and foreign ones are all `404 not_found`' } })
  mission_id: string | undefined = undefined;
}

/** DESIGN 2.1 `POST /missions/lifecycle`. */
export class LifecycleForm extends MissionForm {
  @IsIn([...LIFECYCLE_OPERATIONS], { message: 'operation must be one of revoke, suspend, resume, complete' })
  @FormParameter(16, { required: true, doc: { enum: [...LIFECYCLE_OPERATIONS] } })
  operation: string | undefined = undefined;

  @Matches(/^[1-9][0-9]{0,9}$/, { message: 'expected_version must be a positive integer' })
  @FormParameter(10, { doc: { pattern: '^[1-9][0-9]{0,9}$', description: 'Compare-and-set on the mission’s version' } })
  expected_version: string | undefined = undefined;

  @FormParameter(256, { doc: { description: 'Idempotency key: a retry with the same nonce gets the first answer' } })
  nonce: string | undefined = undefined;
}

/** The lifecycle request's `reason`, checked after the mission's own state (DESIGN 2.1). */
export class LifecycleReasonForm {
  @FormParameter(4096, { required: true })
  reason: string | undefined = undefined;
}

/** DESIGN 2.1 `POST /missions/status`: `audience` defaults to the caller, `nonce` is echoed. */
export class StatusForm extends MissionForm {
  @FormParameter(256)
  nonce: string | undefined = undefined;

  @FormParameter(2048)
  audience: string | undefined = undefined;
}

/** DESIGN 2.1 `POST /missions/tree`. */
export class TreeForm extends MissionForm {}

const MAX_RESULTS_MESSAGE = `max_results must be an integer from 1 to ${MAX_EVIDENCE_RESULTS}`;

/** DESIGN 2.1 `POST /missions/evidence`: a page size and the opaque cursor of the previous page. */
export class EvidenceForm extends MissionForm {
  @ValidateBy({ name: 'atMostMaxResults', validator: { validate: (value: unknown) => Number(value) <= MAX_EVIDENCE_RESULTS } }, { message: MAX_RESULTS_MESSAGE })
  @Matches(/^[1-9][0-9]{0,3}$/, { message: MAX_RESULTS_MESSAGE })
  @FormParameter(4, { doc: { pattern: '^[1-9][0-9]{0,3}$', description: `1 to ${MAX_EVIDENCE_RESULTS}` } })
  max_results: string | undefined = undefined;

  @FormParameter(512)
  cursor: string | undefined = undefined;
}

/** RFC 7662 §2.1 `POST /introspect`. */
export class IntrospectionForm {
  @FormParameter(16_384, { required: true })
  token: string | undefined = undefined;
}
