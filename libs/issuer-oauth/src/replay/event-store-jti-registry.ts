import { createHash } from 'node:crypto';
import { StreamDeletedError, WrongExpectedRevisionError, type EventStore } from '@mission/event-store';
import type { Clock } from '../pipeline/clock.js';
import type { JtiRegistry, SingleUse, SingleUseKind } from './jti-registry.js';

const CATEGORY: Readonly<Record<SingleUseKind, string>> = { client_assertion: 'clientjti', dpop_proof: 'dpopjti' };
const EVENT_TYPE: Readonly<Record<SingleUseKind, string>> = { client_assertion: 'ClientAssertionUsed', dpop_proof: 'DpopProofUsed' };
export const JTI_CATEGORIES: readonly string[] = Object.values(CATEGORY);
export const JTI_EVENT_TYPES: readonly string[] = Object.values(EVENT_TYPE);
/** Who used the token, in the event metadata (DESIGN 1 `actor`): the client, or the holder of a DPoP key. */
const ACTOR_ROLE: Readonly<Record<SingleUseKind, string>> = { client_assertion: 'client', dpop_proof: 'dpop_key' };

/** `<category>-<base64url(SHA-256(JSON [scope, jti]))>`: fixed length, no control characters, unambiguous. */
export function jtiStreamName(kind: SingleUseKind, scope: string, jti: string): string {
  return `${CATEGORY[kind]}-${createHash('sha256').update(JSON.stringify([scope, jti]), 'utf8').digest('base64url')}`;
}

/**
 * Single use through the event store: the first use appends one event to a stream named from
 * (scope, jti) with expected revision `no_stream`; any later use loses that append
 * (`WrongExpectedRevisionError`) and is a replay. Correct across replicas sharing one EventStoreDB
 * cluster and across restarts, because the store decides (DESIGN 1: consistency from optimistic
 * concurrency on streams). A tombstoned stream also counts as used. A record is swept (ADR 0057) only after
 * its `expires_at`, once the token is refused on its own time claims, so a replay never finds it gone earlier.
 */
export class EventStoreJtiRegistry implements JtiRegistry {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  async use(use: SingleUse): Promise<boolean> {
    const stream = jtiStreamName(use.kind, use.scope, use.jti);
    try {
      await this.store.appendToStream(
        stream,
        [
          {
            type: EVENT_TYPE[use.kind],
            data: { scope: use.scope, jti: use.jti, expires_at: use.expiresAt.toISOString(), ...use.data },
            metadata: { occurred_at: this.clock.now().toISOString(), actor: { id: use.scope, role: ACTOR_ROLE[use.kind] } },
          },
        ],
        // Decided at commit; on disk before the request's answer leaves (the HTTP layer waits for whenDurable, ADR 0067).
        { expectedRevision: 'no_stream', acknowledge: 'committed' },
      );
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError) return false;
      throw error;
    }
  }
}
