import { InvalidRequestError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { assertDate } from '../shared/guards.js';
import { isPlainObject } from '../shared/json.js';
import { parseRfc3339 } from '@mission/decider';
import { isBoundedText } from '../shared/text.js';

/** Bounds of the proposal members (DESIGN 3.1 `POST /mission` without `operation`). */
export const PROPOSAL_LIMITS = {
  maxDescriptionLength: 4000,
  maxTools: 100,
  maxToolLength: 256,
  maxResources: 100,
  maxResourceLength: 2048,
} as const;

/** The closed member set of a proposal body; any other member is refused. */
export const PROPOSAL_MEMBERS = ['description', 'tools', 'resources', 'expires_at'] as const;

/**
 * A validated mission proposal. `expires_at` is normalised to `Date.toISOString()` form (milliseconds,
 * `Z`): the instant the PS enforces is exactly the one the blob states.
 */
export interface MissionProposal {
  readonly description: string;
  readonly tools?: readonly string[];
  readonly resources?: readonly string[];
  readonly expires_at?: string;
}

/** Why `value` is not an acceptable description (non-empty bounded text, no control characters), or undefined. */
export function descriptionProblem(value: unknown): string | undefined {
  if (!isBoundedText(value, PROPOSAL_LIMITS.maxDescriptionLength) || value.trim().length === 0) {
    return `must be non-blank text of at most ${PROPOSAL_LIMITS.maxDescriptionLength} characters without control characters`;
  }
  return undefined;
}

/** Why `value` is not an acceptable list of tools or resources (distinct bounded strings), or undefined. */
export function stringListProblem(value: unknown, maxItems: number, maxLength: number): string | undefined {
  const rule = `must be an array of at most ${maxItems} distinct non-empty strings of at most ${maxLength} characters without control characters`;
  if (!Array.isArray(value) || value.length > maxItems) return rule;
  if (!value.every((item) => isBoundedText(item, maxLength))) return rule;
  if (new Set(value).size !== value.length) return rule;
  return undefined;
}

export function toolsProblem(value: unknown): string | undefined {
  return stringListProblem(value, PROPOSAL_LIMITS.maxTools, PROPOSAL_LIMITS.maxToolLength);
}

export function resourcesProblem(value: unknown): string | undefined {
  return stringListProblem(value, PROPOSAL_LIMITS.maxResources, PROPOSAL_LIMITS.maxResourceLength);
}

/**
 * Validates the body of a mission proposal (DESIGN 3.1): `{description, tools?, resources?, expires_at?}`,
 * closed member set, `expires_at` an RFC 3339 date-time later than `now`. Refusals are
 * `invalid_request` naming only the member and the rule.
 */
export function parseMissionProposal(body: unknown, now: Date): MissionProposal {
  assertDate(now, 'now');
  if (!isPlainObject(body)) throw new InvalidRequestError('the proposal must be a JSON object');
  for (const name of Object.keys(body)) {
    if (!(PROPOSAL_MEMBERS as readonly string[]).includes(name)) {
      throw new InvalidRequestError(`the proposal may only have the members ${PROPOSAL_MEMBERS.join(', ')}`);
    }
  }
  const description = body['description'];
  const problem = descriptionProblem(description);
  if (problem) throw new InvalidRequestError(`description ${problem}`);
  const proposal: { description: string; tools?: readonly string[]; resources?: readonly string[]; expires_at?: string } = { description: description as string };

  if (body['tools'] !== undefined) {
    const tools = body['tools'];
    const toolProblem = toolsProblem(tools);
    if (toolProblem) throw new InvalidRequestError(`tools ${toolProblem}`);
    proposal.tools = [...(tools as string[])];
  }
  if (body['resources'] !== undefined) {
    const resources = body['resources'];
    const resourceProblem = resourcesProblem(resources);
    if (resourceProblem) throw new InvalidRequestError(`resources ${resourceProblem}`);
    proposal.resources = [...(resources as string[])];
  }
  if (body['expires_at'] !== undefined) {
    proposal.expires_at = futureInstant(body['expires_at'], now, 'expires_at').toISOString();
  }
  return proposal;
}

/** An RFC 3339 date-time strictly later than `now`, or `invalid_request`. */
export function futureInstant(value: unknown, now: Date, member: string): Date {
  const instant = typeof value === 'string' ? parseRfc3339(value) : undefined;
  if (instant === undefined) throw new InvalidRequestError(`${member} must be an RFC 3339 date-time`);
  if (instant.getTime() <= now.getTime()) throw new InvalidRequestError(`${member} must be in the future`);
  return instant;
}

/** A proposal this module produced (for commands built by the application). */
export function assertMissionProposal(value: unknown, what: string): asserts value is MissionProposal {
  const ok =
    isPlainObject(value) &&
    Object.keys(value).every((name) => (PROPOSAL_MEMBERS as readonly string[]).includes(name)) &&
    descriptionProblem(value['description']) === undefined &&
    (value['tools'] === undefined || toolsProblem(value['tools']) === undefined) &&
    (value['resources'] === undefined || resourcesProblem(value['resources']) === undefined) &&
    (value['expires_at'] === undefined || (typeof value['expires_at'] === 'string' && parseRfc3339(value['expires_at'])?.toISOString() === value['expires_at']));
  if (!ok) throw new InvalidCommandError(`${what} must be a proposal from parseMissionProposal`);
}
