import { Set as PersistentSet } from 'immutable';
import { isActor } from '@mission/decider';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { actorData, type Actor } from '../shared/actor.js';
import { isPlainObject, type JsonObject } from '../shared/json.js';
import { isMissionS256 } from '../blob/mission-s256.js';
import { missionExists, type Mission, type MissionState, type Termination } from './mission.state.js';
import { isTerminationReason } from './termination-rules.js';

/**
 * ADR 0059: a persisted snapshot of the folded `psmission-<s256>` (what `evolveMission` made of it up to one
 * revision), so the first decision after a restart or an eviction reads the snapshot and only the events after it,
 * not every logged read since the approval. The JSON form of `MissionState` below; the application binds it to the
 * stream's revision and event hash and authenticates it (apps/person-server `MissionSnapshots`).
 *
 * `MISSION_SNAPSHOT_VERSION` names the fold that produced the state: change it whenever `evolveMission` folds an
 * event differently, and every older snapshot is ignored (the stream is folded again from its start once).
 */
export const MISSION_SNAPSHOT_VERSION = 1;

/** Snapshot streams (`pssnapshot-<s256>`): bookkeeping beside the mission log, never part of it (spec 2.8, 6). */
export const SNAPSHOT_STREAM_CATEGORY = 'pssnapshot';

export function snapshotStreamName(s256: string): string {
  if (!isMissionS256(s256)) throw new InvalidCommandError('s256 must be a mission digest');
  return `${SNAPSHOT_STREAM_CATEGORY}-${s256}`;
}

/** The state as JSON: dates as RFC 3339, the request keys as a sorted array (one text per state). */
export function encodeMissionState(state: MissionState): JsonObject {
  if (!missionExists(state)) throw new InvalidCommandError('only an approved mission is snapshotted');
  return {
    status: state.status,
    approver: state.approver,
    mission_s256: state.missionS256,
    agent: state.agent,
    approved_by: state.approvedBy,
    tenant: state.tenant,
    approved_at: state.approvedAt.toISOString(),
    ...(state.expiresAt !== undefined ? { expires_at: state.expiresAt.toISOString() } : {}),
    ...(state.pendingId !== undefined ? { pending_id: state.pendingId } : {}),
    sequence: state.sequence,
    request_keys: [...state.requestKeys].sort(),
    ...(state.blobDeleted !== undefined ? { blob_deleted: { at: state.blobDeleted.at.toISOString(), actor: actorJson(state.blobDeleted.actor) } } : {}),
    ...(state.status === 'terminated' ? { termination: encodeTermination(state.termination) } : {}),
  };
}

function encodeTermination(termination: Termination): JsonObject {
  return {
    reason: termination.reason,
    terminated_at: termination.terminatedAt.toISOString(),
    actor: actorJson(termination.actor),
    ...(termination.requestId !== undefined ? { request_id: termination.requestId } : {}),
    ...(termination.replacementS256 !== undefined ? { replacement_s256: termination.replacementS256 } : {}),
  };
}

function actorJson(actor: Actor): JsonObject {
  return { id: actor.id, role: actor.role };
}

/** The inverse of `encodeMissionState`; anything else (a member missing or of the wrong kind) throws. */
export function decodeMissionState(json: unknown): Mission {
  if (!isPlainObject(json)) return malformed('the snapshot state is not an object');
  const text = (name: string): string => (typeof json[name] === 'string' && json[name] !== '' ? json[name] : malformed(`${name} must be text`));
  const optionalText = (name: string): string | undefined => (json[name] === undefined ? undefined : text(name));
  const status = json['status'];
  if (status !== 'active' && status !== 'terminated') return malformed('status must be active or terminated');
  const sequence = json['sequence'];
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1) return malformed('sequence must be a positive integer');
  const keys = json['request_keys'];
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string')) return malformed('request_keys must be an array of text');
  const expiresAt = optionalText('expires_at');
  const pendingId = optionalText('pending_id');
  const base = {
    approver: text('approver'),
    missionS256: text('mission_s256'),
    agent: text('agent'),
    approvedBy: text('approved_by'),
    tenant: text('tenant'),
    approvedAt: date(text('approved_at')),
    ...(expiresAt !== undefined ? { expiresAt: date(expiresAt) } : {}),
    ...(pendingId !== undefined ? { pendingId } : {}),
    sequence,
    requestKeys: PersistentSet(keys as string[]),
    ...(json['blob_deleted'] !== undefined ? { blobDeleted: blobDeleted(json['blob_deleted']) } : {}),
  };
  if (status === 'active') {
    if (json['termination'] !== undefined || base.blobDeleted !== undefined) return malformed('an active mission has no termination and no deleted body');
    return { ...base, status };
  }
  return { ...base, status, termination: termination(json['termination']) };
}

function termination(json: unknown): Termination {
  if (!isPlainObject(json)) return malformed('a terminated mission has a termination');
  const { reason, terminated_at: at, actor, request_id: requestId, replacement_s256: replacement } = json;
  if (!isTerminationReason(reason)) return malformed('termination.reason must be a termination reason');
  if (typeof at !== 'string') return malformed('termination.terminated_at must be text');
  if (requestId !== undefined && typeof requestId !== 'string') return malformed('termination.request_id must be text');
  if (replacement !== undefined && typeof replacement !== 'string') return malformed('termination.replacement_s256 must be text');
  return {
    reason,
    terminatedAt: date(at),
    actor: actorOf(actor),
    ...(requestId !== undefined ? { requestId } : {}),
    ...(replacement !== undefined ? { replacementS256: replacement } : {}),
  };
}

function blobDeleted(json: unknown): { at: Date; actor: Actor } {
  if (!isPlainObject(json) || typeof json['at'] !== 'string') return malformed('blob_deleted must be {at, actor}');
  return { at: date(json['at']), actor: actorOf(json['actor']) };
}

function actorOf(json: unknown): Actor {
  if (!isActor(json, 2048)) return malformed('an actor must be {id, role}');
  return actorData(json);
}

function date(text: string): Date {
  const value = new Date(text);
  if (Number.isNaN(value.getTime())) return malformed(`${text} is not a time`);
  return value;
}

function malformed(message: string): never {
  throw new InvalidCommandError(`mission snapshot: ${message}`);
}
