import type { RecordedEvent } from '@mission/event-store';
import { JTI_CATEGORIES, JTI_EVENT_TYPES } from './event-store-jti-registry.js';

/**
 * The issuer's replay records as a sweeper sees them (es-kit `ExpiringRecords`, ADR 0057): each `…Used` event
 * carries `expires_at`, the first instant its token is refused on its own time claims.
 */
export const JTI_REPLAY_RECORDS = {
  name: 'jti_replay',
  categories: JTI_CATEGORIES,
  eventTypes: JTI_EVENT_TYPES,
  expiresAt(event: RecordedEvent): Date | undefined {
    const text = event.data['expires_at'];
    if (typeof text !== 'string') return undefined;
    const at = new Date(text);
    return Number.isNaN(at.getTime()) ? undefined : at;
  },
} as const;
