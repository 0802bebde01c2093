import type { EventData } from '@mission/event-store';
import { CHILD_DENIAL_REASONS, isChildDenialReason } from '@mission/issuer-domain';
import type { AppendObserver } from '@mission/platform';
import { Counter, type Registry } from 'prom-client';
import { CHILD_CREATION_GRANT_TYPE, SUPPORTED_GRANT_TYPES, type SupportedGrantType } from '../endpoints/token-parameters.js';

/** The lifecycle state each transition event leads to (DESIGN 2.1, spec child-mission-delegation 3). */
const TRANSITION_TO: Readonly<Record<string, string>> = {
  MissionSuspended: 'suspended',
  MissionResumed: 'active',
  MissionRevoked: 'revoked',
  MissionCompleted: 'completed',
  MissionExpired: 'expired',
  MissionCascaded: 'cascaded',
  MissionCascadedBeforeCreation: 'cascaded',
};

/** The grant whose redemption each event records: every token response of /token commits exactly one of them. */
const GRANT_OF_EVENT: Readonly<Record<string, SupportedGrantType>> = {
  AuthorizationCodeRedeemed: 'authorization_code',
  RefreshTokenRotated: 'refresh_token',
  ChildGrantRedeemed: CHILD_CREATION_GRANT_TYPE,
};

/**
 * The issuer's domain metrics (issue 18, ADR 0046), counted from the events the store committed, so a
 * decision retried after a conflict or refused counts nothing. Labels are closed sets: denial reasons
 * are the spec 7 table's (anything else would be a bug and is counted as `other`), `to` the lifecycle
 * states, `grant_type` the grants /token answers.
 */
export function issuerDomainMetrics(registry: Registry): AppendObserver {
  const registers = [registry];
  const created = new Counter({ name: 'issuer_missions_created_total', help: 'Missions created, root or child', labelNames: ['kind'], registers });
  const denied = new Counter({
    name: 'issuer_child_creation_denied_total',
    help: 'Child Mission creations denied, by the spec 7 denial reason (recorded as Child Evidence)',
    labelNames: ['reason'],
    registers,
  });
  const transitions = new Counter({ name: 'issuer_lifecycle_transitions_total', help: 'Mission lifecycle transitions, by the state entered', labelNames: ['to'], registers });
  const tokens = new Counter({ name: 'issuer_tokens_issued_total', help: 'Token responses issued at /token, by grant type', labelNames: ['grant_type'], registers });
  // Every label value exists from the start, so a rate() over a reason that never happened is 0, not absent.
  for (const kind of ['root', 'child']) created.inc({ kind }, 0);
  for (const reason of CHILD_DENIAL_REASONS) denied.inc({ reason }, 0);
  for (const to of new Set(Object.values(TRANSITION_TO))) transitions.inc({ to }, 0);
  for (const grantType of SUPPORTED_GRANT_TYPES) tokens.inc({ grant_type: grantType }, 0);

  return (_streamName: string, events: readonly EventData[]) => {
    for (const event of events) {
      if (event.type === 'MissionCreated') created.inc({ kind: event.data['parent'] === undefined ? 'root' : 'child' });
      else if (event.type === 'ChildCreationDenied') denied.inc({ reason: denialReasonOf(event) });
      else if (Object.hasOwn(TRANSITION_TO, event.type)) transitions.inc({ to: TRANSITION_TO[event.type]! });
      else if (Object.hasOwn(GRANT_OF_EVENT, event.type)) tokens.inc({ grant_type: GRANT_OF_EVENT[event.type]! });
    }
  };
}

function denialReasonOf(event: EventData): string {
  const evidence = event.data['evidence'];
  const reason = typeof evidence === 'object' && evidence !== null && !Array.isArray(evidence) ? evidence['denial_reason'] : undefined;
  return isChildDenialReason(reason) ? reason : 'other';
}
