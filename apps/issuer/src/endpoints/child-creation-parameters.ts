import {
  CASCADE_MODES, isMissionId, parseChildActor,
  type CascadeMode, type ChildActor, InvalidChildActorError,
} from '@mission/issuer-domain';
import { InvalidRequestError } from '@mission/issuer-oauth';
import { parseStrictJson, StrictJsonError } from '@mission/strict-json';
import type { ChildMissionsConfig } from '../config/issuer-config.js';
import type { OAuthForm } from '../http/oauth-form.js';

/** Spec 4.1 rule 4: the three parameters registered for Child Mission creation. */
export const CHILD_CREATION_PARAMETERS = ['parent', 'parent_token', 'child_actor'] as const;
/** A refresh token of ours is 70 characters; anything much longer is not one. */
const MAX_PARENT_TOKEN_LENGTH = 256;

// Spec 4.1: a pushed request carrying any of parent, parent_token, child_actor is a Child Mission creation.
export function isChildCreationRequest(form: OAuthForm): boolean {
  return CHILD_CREATION_PARAMETERS.some((name) => form.has(name));
}

// Spec 4.1 rule 2, spec 7: parent_token is accepted only on the PAR back channel, never at /authorize.
export function refuseParentTokenOnFrontChannel(form: OAuthForm): void {
  if (form.has('parent_token')) throw new InvalidRequestError('parent_token must be sent only to the pushed authorization request endpoint (back channel)');
}

// Spec 4.1 parameter table: `parent` is REQUIRED, the parent's mission_id (a cross-check, spec 5 rule 2).
export function claimedParentOf(form: OAuthForm): string {
  const parent = form.required('parent', 64);
  if (!isMissionId(parent)) throw new InvalidRequestError('parent must be a mission_id');
  return parent;
}

// Spec 4.1 parameter table, DESIGN 2.4: `parent_token` is REQUIRED: the parent's refresh token.
export function parentTokenOf(form: OAuthForm): string {
  return form.required('parent_token', MAX_PARENT_TOKEN_LENGTH);
}

// Spec 4.1 parameter table, spec 2.2: `child_actor` is REQUIRED, a JSON object {sub, iss?, sub_profile?}.
export function childActorOf(form: OAuthForm): ChildActor {
  const text = form.required('child_actor', 2048);
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (error) {
    if (error instanceof StrictJsonError) throw new InvalidRequestError(`child_actor: ${error.message}`);
    throw error;
  }
  try {
    return parseChildActor(value);
  } catch (error) {
    if (error instanceof InvalidChildActorError) throw new InvalidRequestError(error.message);
    throw error;
  }
}

// Spec 3.3, DESIGN 2.4: `immediate` unless the request names an experimental mode this deployment enabled.
export function cascadeModeOf(form: OAuthForm, config: ChildMissionsConfig): CascadeMode {
  const requested = form.optional('cascade_mode', 32);
  if (requested === undefined || requested === 'immediate') return 'immediate';
  if (!(CASCADE_MODES as readonly string[]).includes(requested)) throw new InvalidRequestError('cascade_mode must be immediate, bounded_staleness or status_required');
  if (!(config.experimental_cascade_modes as readonly string[]).includes(requested)) {
    throw new InvalidRequestError(`cascade_mode ${requested} is experimental and not enabled at this issuer`);
  }
  return requested as CascadeMode;
}
