import { randomUUID } from 'node:crypto';
import type { CommandContext, RequestTrace } from '@mission/es-kit';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';

/** Who an append is attributed to (spec 2.8: actor and role): the agent identifier or the principal's id. */
export function callerActor(caller: AuthenticatedCaller): { readonly id: string; readonly role: string } {
  return caller.kind === 'agent' ? { id: caller.agent, role: 'agent' } : { id: caller.id, role: caller.role };
}

/**
 * The metadata every append of a use case carries (DESIGN 1): a fresh correlation id, what caused it, who, when,
 * and the request it ran for (ADR 0050), handed down from the controller (ADR 0082).
 */
export function commandContext(caller: AuthenticatedCaller, now: Date, causationId: string, trace: RequestTrace | undefined): CommandContext {
  return { correlationId: randomUUID(), causationId, actor: callerActor(caller), now, trace };
}
