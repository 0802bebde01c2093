import type { Decider } from '@mission/decider';
import { unknownCommand } from '@mission/decider';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { assertDate } from '../shared/guards.js';
import { canonicalJson, isJsonObject, type JsonObject } from '../shared/json.js';
import { idempotencyKey, isContentDigest, type IdempotencyCaller } from './idempotency-key.js';
import type { ClaimRequest, IdempotencyCommand, RecordRequestResult } from './idempotency.commands.js';
import type { IdempotencyEvent } from './idempotency.events.js';
import { idempotentReplay, initialIdempotencyState, type IdempotencyState } from './idempotency.state.js';

/**
 * The idempotency record of one (caller, `request_id`) (stream `psidem-<key>`, spec 4.2 rule 2): the
 * claim of the first content (ADR 0017: written before that request acts) and then its result.
 * Appending with the expected revision makes the first of two concurrent claims win; the other then
 * sees the claim and either completes the same request or gets `idempotency_conflict` untouched.
 */
export const idempotencyDecider: Decider<IdempotencyCommand, IdempotencyEvent, IdempotencyState> = {
  initialState: initialIdempotencyState,

  decide(command, state) {
    switch (command.type) {
      case 'ClaimRequest':
        return decideClaim(command, state);
      case 'RecordRequestResult':
        return decideRecord(command, state);
      default:
        return unknownCommand(command, () => new InvalidCommandError('unknown idempotency command'));
    }
  },

  evolve(state, event) {
    const data = event.data;
    const base = { key: data.key, caller: { id: data.caller.id, role: data.caller.role }, requestId: data.request_id, contentDigest: data.content_digest };
    if (event.type === 'RequestClaimed') return state.status === 'none' ? { status: 'claimed', ...base, claimedAt: new Date(event.data.claimed_at) } : state;
    // The first result of the claimed content stands; nothing replaces it.
    if (state.status === 'recorded' || (state.status === 'claimed' && state.contentDigest !== data.content_digest)) return state;
    return { status: 'recorded', ...base, result: event.data.result, recordedAt: new Date(event.data.recorded_at) };
  },
};

function checked(command: ClaimRequest | RecordRequestResult, state: IdempotencyState): { key: string; caller: IdempotencyCaller } {
  const key = idempotencyKey(command.caller, command.requestId);
  if (!isContentDigest(command.contentDigest)) throw new InvalidCommandError('contentDigest must come from requestContentDigest');
  assertDate(command.now, 'now');
  if (state.status !== 'none' && state.key !== key) throw new InvalidCommandError('this record belongs to another caller and request_id');
  return { key, caller: { id: command.caller.id, role: command.caller.role } };
}

function decideClaim(command: ClaimRequest, state: IdempotencyState): IdempotencyEvent[] {
  const { key, caller } = checked(command, state);
  // Same content: already claimed (or answered) by this request; different content: idempotency_conflict.
  if (state.status !== 'none') {
    idempotentReplay(state, command.contentDigest);
    return [];
  }
  return [{ type: 'RequestClaimed', data: { key, caller, request_id: command.requestId, content_digest: command.contentDigest, claimed_at: command.now.toISOString() } }];
}

function decideRecord(command: RecordRequestResult, state: IdempotencyState): IdempotencyEvent[] {
  const { key, caller } = checked(command, state);
  if (!isJsonObject(command.result)) throw new InvalidCommandError('result must be a plain JSON object');
  // A repeat with the same content decides nothing; different content is idempotency_conflict.
  if (idempotentReplay(state, command.contentDigest) !== undefined) return [];
  return [
    {
      type: 'RequestResultRecorded',
      data: {
        key,
        caller,
        request_id: command.requestId,
        content_digest: command.contentDigest,
        result: JSON.parse(canonicalJson(command.result)) as JsonObject,
        recorded_at: command.now.toISOString(),
      },
    },
  ];
}
