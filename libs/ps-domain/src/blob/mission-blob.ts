import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { canonicalJson, isPlainObject } from '../shared/json.js';
import { parseRfc3339 } from '@mission/decider';
import { base64url } from '../shared/sha256.js';
import { isBoundedText } from '../shared/text.js';
import { descriptionProblem, resourcesProblem, toolsProblem } from './mission-proposal.js';

/**
 * DESIGN 3.1: the members of the mission blob — a closed set. `approved_at` and `expires_at` are
 * written in `Date.toISOString()` form (milliseconds, `Z`) so each instant has one spelling.
 */
export interface MissionBlobFields {
  /** The approving PS (its issuer identifier): the `approver` half of the Mission Reference. */
  readonly approver: string;
  /** The Owning Agent (spec 1 terms). */
  readonly agent: string;
  readonly approved_at: string;
  readonly description: string;
  readonly expires_at?: string;
  readonly approved_tools?: readonly string[];
  readonly approved_resources?: readonly string[];
}

export const MISSION_BLOB_MEMBERS = ['approver', 'agent', 'approved_at', 'description', 'expires_at', 'approved_tools', 'approved_resources'] as const;

export const MAX_IDENTIFIER_LENGTH = 2048;

/** Why `fields` is not a valid blob, or undefined. */
export function missionBlobProblem(fields: unknown): string | undefined {
  if (!isPlainObject(fields)) return 'the mission blob must be an object';
  for (const name of Object.keys(fields)) {
    if (!(MISSION_BLOB_MEMBERS as readonly string[]).includes(name)) return `the mission blob may only have the members ${MISSION_BLOB_MEMBERS.join(', ')}`;
  }
  if (!isBoundedText(fields['approver'], MAX_IDENTIFIER_LENGTH)) return 'approver must be a non-empty identifier';
  if (!isBoundedText(fields['agent'], MAX_IDENTIFIER_LENGTH)) return 'agent must be a non-empty identifier';
  const approvedAt = isoInstant(fields['approved_at']);
  if (approvedAt === undefined) return 'approved_at must be a date-time in toISOString form';
  const description = descriptionProblem(fields['description']);
  if (description) return `description ${description}`;
  if (fields['expires_at'] !== undefined) {
    const expiresAt = isoInstant(fields['expires_at']);
    if (expiresAt === undefined) return 'expires_at must be a date-time in toISOString form';
    if (expiresAt.getTime() <= approvedAt.getTime()) return 'expires_at must be later than approved_at';
  }
  if (fields['approved_tools'] !== undefined) {
    const problem = toolsProblem(fields['approved_tools']);
    if (problem) return `approved_tools ${problem}`;
  }
  if (fields['approved_resources'] !== undefined) {
    const problem = resourcesProblem(fields['approved_resources']);
    if (problem) return `approved_resources ${problem}`;
  }
  return undefined;
}

/**
 * DESIGN 3.1: the blob as compact JSON text, made deterministic with RFC 8785 (JCS): members sorted
 * by UTF-16 code units, no whitespace, absent optional members omitted.
 *
 * @throws InvalidCommandError when the fields are not a valid blob (the application built them)
 */
export function missionBlobText(fields: MissionBlobFields): string {
  const problem = missionBlobProblem(fields);
  if (problem) throw new InvalidCommandError(problem);
  return canonicalJson({
    approver: fields.approver,
    agent: fields.agent,
    approved_at: fields.approved_at,
    description: fields.description,
    expires_at: fields.expires_at,
    approved_tools: fields.approved_tools,
    approved_resources: fields.approved_resources,
  });
}

/** DESIGN 3.1: the exact blob bytes (UTF-8 of `missionBlobText`), serialized once at approval and stored as is. */
export function missionBlobBytes(fields: MissionBlobFields): Uint8Array {
  return new TextEncoder().encode(missionBlobText(fields));
}

/** DESIGN 3.1: the `mission` member of the approved poll response: base64url of the exact blob bytes. */
export function encodeMissionBlob(bytes: Uint8Array): string {
  return base64url(bytes);
}

/**
 * Reads stored blob bytes back (audit, status). Refuses bytes that are not a valid blob or not in the
 * canonical form `missionBlobBytes` writes, so a parsed blob always re-serializes to the same bytes.
 */
export function parseMissionBlob(bytes: Uint8Array): MissionBlobFields {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new InvalidCommandError('the mission blob is not UTF-8 JSON');
  }
  const problem = missionBlobProblem(value);
  if (problem) throw new InvalidCommandError(problem);
  const fields = value as MissionBlobFields;
  if (!Buffer.from(missionBlobBytes(fields)).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
    throw new InvalidCommandError('the mission blob is not in canonical form');
  }
  return fields;
}

function isoInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const instant = parseRfc3339(value);
  return instant?.toISOString() === value ? instant : undefined;
}
