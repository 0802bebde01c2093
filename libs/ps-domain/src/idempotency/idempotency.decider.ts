import type { Decider } from '@mission/decider';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { assertDate } from '../shared/guards.js';
import { canonicalJson, isJsonObject, type JsonObject } from '../shared/json.js';
import { idempotencyKey, isContentDigest } from './idempotency-key.js';
import type { IdempotencyCommand, RecordRequestResult } from './idempotency.commands.js';
import type { IdempotencyEvent } from './idempotency.events.js';
import { idempotentReplay, initialIdempotencyState, type IdempotencyState } from './idempotency.state.js';

/**
 * The idempotency record of one (caller, `request_id`) (stream `psidem-<key>`, spec 4.2 rule 2):
 * the first request's content digest and result. Appending with the expected revision makes the
 * first of two concurrent first requests win; the other then sees the record.
 */
export const idempotencyDecider: Decider<IdempotencyCommand, IdempotencyEvent, IdempotencyState> = {
  initialState: initialIdempotencyState,

  decide(command, state) {
    if (command.type !== 'record') throw new InvalidCommandError('unknown idempotency command');
    return decideRecord(command, state);
  },

  evolve(state, event) {
    if (state.status === 'recorded') return state;
    const data = event.data;
    return {
      status: 'recorded',
      key: data.key,
      caller: { id: data.caller.id, role: data.caller.role },
      requestId: data.request_id,
      contentDigest: data.content_digest,
      result: data.result,
      recordedAt: new Date(data.recorded_at),
    };
  },
};

function decideRecord(command: RecordRequestResult, state: IdempotencyState): IdempotencyEvent[] {
  const key = idempotencyKey(command.caller, command.requestId);
  if (!isContentDigest(command.contentDigest)) throw new InvalidCommandError('contentDigest must come from requestContentDigest');
  if (!isJsonObject(command.result)) throw new InvalidCommandError('result must be a plain JSON object');
  assertDate(command.now, 'now');
  if (state.status === 'recorded' && state.key !== key) throw new InvalidCommandError('this record belongs to another caller and request_id');

  // A repeat with the same content decides nothing; different content is idempotency_conflict.
  if (idempotentReplay(state, command.contentDigest) !== undefined) return [];

  return [
    {
      type: 'RequestResultRecorded',
      data: {
        key,
        caller: { id: command.caller.id, role: command.caller.role },
        request_id: command.requestId,
        content_digest: command.contentDigest,
        result: JSON.parse(canonicalJson(command.result)) as JsonObject,
        recorded_at: command.now.toISOString(),
      },
    },
  ];
}
