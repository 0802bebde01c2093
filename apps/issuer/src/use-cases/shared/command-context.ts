import { randomUUID } from 'node:crypto';
import type { CommandContext, RequestTrace } from '@mission/es-kit';
import type { Actor } from '@mission/issuer-domain';

/**
 * The metadata every append of a use case carries (DESIGN 1): a fresh correlation id, what caused it, who, when,
 * and the request it ran for (ADR 0050), handed down from the controller (ADR 0082).
 */
export function commandContext(actor: Actor, causationId: string, now: Date, trace: RequestTrace | undefined): CommandContext {
  return { correlationId: randomUUID(), causationId, actor, now, trace };
}

/** Where the browser goes after `/authorize` decided (RFC 6749 §4.1.2). */
export interface Redirect {
  readonly location: string;
}

// RFC 6749 §4.1.2 / RFC 9207 §2: response parameters are added to the registered redirect URI's query, keeping its own.
export function redirectWith(redirectUri: string, parameters: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.toString();
}
