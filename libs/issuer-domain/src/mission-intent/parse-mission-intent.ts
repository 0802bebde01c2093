import { describeName, hasControlCharacters, isPlainObject, isWellFormedString } from '../shared/json.js';
import { isValidDate, parseRfc3339 } from '@mission/decider';
import { absoluteUriProblem } from '../shared/uri.js';
import { InvalidMissionIntentError } from './invalid-mission-intent.error.js';
import { MISSION_INTENT_LIMITS as L, type MissionIntent } from './mission-intent.js';

export interface MissionIntentContext {
  /** The request time (from the injected clock). */
  readonly now: Date;
  /** The longest mission this issuer grants, in seconds. */
  readonly maxLifetimeSeconds: number;
}

const INTENT_MEMBERS = new Set(['goal', 'resources', 'expires_at']);

/**
 * Validates a JSON-parsed `mission_intent` (the closed member set documented on `MissionIntent`).
 *
 * @throws InvalidMissionIntentError
 */
export function parseMissionIntent(value: unknown, context: MissionIntentContext): MissionIntent {
  if (!isValidDate(context.now)) throw new TypeError('context.now must be a valid Date');
  if (!Number.isSafeInteger(context.maxLifetimeSeconds) || context.maxLifetimeSeconds <= 0) {
    throw new TypeError('context.maxLifetimeSeconds must be a positive integer');
  }

  if (!isPlainObject(value)) fail('mission_intent must be a JSON object');
  for (const name of Object.keys(value)) {
    if (name !== 'intent') fail(`mission_intent has an unknown member ${describeName(name)} (expected only intent)`);
  }
  if (!Object.hasOwn(value, 'intent')) fail('mission_intent is missing the member intent');
  const intent = value['intent'];
  if (!isPlainObject(intent)) fail('mission_intent.intent must be a JSON object');
  for (const name of Object.keys(intent)) {
    if (!INTENT_MEMBERS.has(name)) fail(`mission_intent.intent has an unknown member ${describeName(name)}`);
  }
  for (const name of INTENT_MEMBERS) {
    if (!Object.hasOwn(intent, name)) fail(`mission_intent.intent is missing the member ${name}`);
  }

  return {
    goal: parseGoal(intent['goal']),
    resources: parseResources(intent['resources']),
    expires_at: parseExpiresAt(intent['expires_at'], context),
  };
}

function parseGoal(goal: unknown): string {
  const path = 'mission_intent.intent.goal';
  if (typeof goal !== 'string' || goal.length === 0 || goal.length > L.maxGoalLength) {
    fail(`${path} must be a non-empty string of at most ${L.maxGoalLength} characters`);
  }
  if (goal.trim().length === 0) fail(`${path} must not be only white space`);
  if (hasControlCharacters(goal, true) || !isWellFormedString(goal)) fail(`${path} must not contain control characters or lone surrogates`);
  return goal;
}

function parseResources(resources: unknown): string[] {
  const path = 'mission_intent.intent.resources';
  if (!Array.isArray(resources)) fail(`${path} must be a JSON array of absolute URIs`);
  if (resources.length === 0 || resources.length > L.maxResources) fail(`${path} must contain between 1 and ${L.maxResources} resources`);
  const seen = new Set<string>();
  return resources.map((resource, index) => {
    const problem = absoluteUriProblem(resource);
    if (problem) fail(`${path}[${index}] ${problem}`);
    if (seen.has(resource as string)) fail(`${path}[${index}] repeats an earlier resource`);
    seen.add(resource as string);
    return resource as string;
  });
}

function parseExpiresAt(expiresAt: unknown, context: MissionIntentContext): string {
  const path = 'mission_intent.intent.expires_at';
  if (typeof expiresAt !== 'string') fail(`${path} must be an RFC 3339 date-time string`);
  const date = parseRfc3339(expiresAt);
  if (!date) fail(`${path} must be an RFC 3339 date-time (for example 2026-11-22T17:00:00Z)`);
  const millis = date.getTime();
  const now = context.now.getTime();
  if (millis <= now) fail(`${path} must be in the future`);
  if (millis - now > context.maxLifetimeSeconds * 1000) fail(`${path} must be at most ${context.maxLifetimeSeconds} seconds from now`);
  return date.toISOString();
}

function fail(message: string): never {
  throw new InvalidMissionIntentError(message);
}
