import type { EventData } from '@mission/event-store';
import type { AppendObserver } from '@mission/platform';
import { REVOCATION_FAILURES, TERMINATION_REASONS } from '@mission/ps-domain';
import { Counter, type Registry } from 'prom-client';
import { SECURITY_EVENT_RECORDED } from '../abuse/security-audit.js';

/** A revocation attempt's result: the resource confirmed (200), or one of the recorded failures. */
const REVOCATION_OUTCOMES = ['confirmed', ...REVOCATION_FAILURES] as const;

/**
 * The Person Server's domain metrics (issue 18, ADR 0046), counted from the events the store committed
 * (the mission log's and token ledger's group commits included), never in controllers or deciders.
 * Labels are closed sets: spec 2.4's termination reasons and the recorded revocation outcomes; any other
 * value would be a bug and is counted as `other`.
 */
export function personServerDomainMetrics(registry: Registry): AppendObserver {
  const registers = [registry];
  const terminations = new Counter({ name: 'ps_terminations_total', help: 'Missions terminated, by termination reason (spec 2.4)', labelNames: ['reason'], registers });
  const attempts = new Counter({
    name: 'ps_revocation_attempts_total',
    help: "Results of revocation calls to resources' revocation endpoints after a termination, by outcome",
    labelNames: ['outcome'],
    registers,
  });
  const probes = new Counter({
    name: 'ps_probes_refused_total',
    help: 'Requests about a mission that is absent or not the caller\'s, refused alike (spec 5.9), as recorded in the security audit (repeats folded there are counted when the next one is written)',
    registers,
  });
  for (const reason of TERMINATION_REASONS) terminations.inc({ reason }, 0);
  for (const outcome of REVOCATION_OUTCOMES) attempts.inc({ outcome }, 0);

  return (_streamName: string, events: readonly EventData[]) => {
    for (const event of events) {
      if (event.type === 'MissionTerminated') terminations.inc({ reason: closed(event.data['reason'], TERMINATION_REASONS) });
      else if (event.type === 'TokenRevocationConfirmed') attempts.inc({ outcome: 'confirmed' });
      else if (event.type === 'TokenRevocationFailed') attempts.inc({ outcome: closed(event.data['outcome'], REVOCATION_FAILURES) });
      else if (event.type === SECURITY_EVENT_RECORDED && event.data['kind'] === 'mission_probe') probes.inc(1 + suppressedOf(event));
    }
  };
}

function closed(value: unknown, allowed: readonly string[]): string {
  return typeof value === 'string' && allowed.includes(value) ? value : 'other';
}

/** The security audit writes identical events at most once a minute and carries the count of those it left out. */
function suppressedOf(event: EventData): number {
  const suppressed = event.data['suppressed'];
  return typeof suppressed === 'number' && Number.isSafeInteger(suppressed) && suppressed > 0 ? suppressed : 0;
}
