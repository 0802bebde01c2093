import type { ActorMatcher } from '../authority-set/authority-set.js';
import { hasControlCharacters, isWellFormedString } from '../shared/json.js';
import { IssuerDomainError } from '../shared/errors.js';

/** Spec 2.2 `child_actor`. */
export interface ChildActor {
  readonly sub: string;
  readonly iss?: string;
  readonly sub_profile?: string;
}

/** A malformed `child_actor` parameter (spec 4.1): `invalid_request`. */
export class InvalidChildActorError extends IssuerDomainError {
  readonly error = 'invalid_request';
}

const MEMBERS = new Set(['sub', 'iss', 'sub_profile']);
const PROFILE_LIST = /^[a-z][a-z0-9_]*( [a-z][a-z0-9_]*)*$/;
const MAX_LENGTH = 255;

/**
 * Spec 2.2: `{sub, iss?, sub_profile?}`, strings. Members outside 2.2 are refused rather than
 * ignored: the object is copied into the child record and evidence, which must say exactly what
 * was asked for.
 */
export function parseChildActor(value: unknown): ChildActor {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidChildActorError('child_actor must be a JSON object');
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (!MEMBERS.has(name)) throw new InvalidChildActorError('child_actor may contain only sub, iss and sub_profile');
  }
  const text = (name: string): string | undefined => {
    const member = record[name];
    if (member === undefined) return undefined;
    if (typeof member !== 'string' || member.length === 0 || member.length > MAX_LENGTH || hasControlCharacters(member) || !isWellFormedString(member)) {
      throw new InvalidChildActorError(`child_actor.${name} must be a non-empty string of at most ${MAX_LENGTH} characters without control characters`);
    }
    return member;
  };
  const sub = text('sub');
  if (sub === undefined) throw new InvalidChildActorError('child_actor.sub is required');
  const iss = text('iss');
  const subProfile = text('sub_profile');
  if (subProfile !== undefined && !PROFILE_LIST.test(subProfile)) {
    throw new InvalidChildActorError('child_actor.sub_profile must be one or more space-separated profile names');
  }
  return { sub, ...(iss !== undefined ? { iss } : {}), ...(subProfile !== undefined ? { sub_profile: subProfile } : {}) };
}

/** What the issuer knows about the child actor from its own registration (DESIGN 2.2), never from the request. */
export interface RegisteredActor {
  readonly sub: string;
  readonly iss: string;
  /** Space-separated list (spec 2.2). */
  readonly sub_profile: string;
}

function profiles(list: string): Set<string> {
  return new Set(list.split(' ').filter((value) => value.length > 0));
}

/** DESIGN 2.2: every profile the request claims must be backed by the registration. */
export function claimedProfilesBacked(actor: ChildActor, registered: RegisteredActor): boolean {
  if (actor.sub_profile === undefined) return true;
  const backed = profiles(registered.sub_profile);
  return [...profiles(actor.sub_profile)].every((profile) => backed.has(profile));
}

/**
 * Spec 2.4 `allowed_child_actors` (matching as `allowed_delegates`): absent → any actor; otherwise
 * some matcher whose every member matches. `sub_profile` matches when its value is among the actor's
 * registered profiles (spec 2.2); `sub` and `iss` match exactly. A matcher member the issuer does not
 * know cannot be enforced, so that matcher never matches (spec 2.4 rule 1).
 */
export function childActorAllowed(matchers: readonly ActorMatcher[] | undefined, actor: RegisteredActor): boolean {
  if (matchers === undefined) return true;
  const registeredProfiles = profiles(actor.sub_profile);
  return matchers.some((matcher) =>
    Object.entries(matcher).every(([member, value]) => {
      switch (member) {
        case 'sub_profile':
          return registeredProfiles.has(value);
        case 'sub':
          return value === actor.sub;
        case 'iss':
          return value === actor.iss;
        default:
          return false;
      }
    }),
  );
}

