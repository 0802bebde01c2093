import {
  absoluteUrl,
  array,
  integer,
  object,
  oneOf,
  optional,
  publicJwks,
  refine,
  string,
  subsetOf,
  withDefault,
  type Infer,
  type Schema,
} from '@mission/platform';
import { parsePasswordHash, PASSWORD_HASH_FORMAT_HINT } from './password-hash.js';

/** The grant types of DESIGN 2.1; a client may be registered for a subset. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:mission-child-creation'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** What a client may do at the /missions/* and /introspect endpoints (DESIGN 2.1). */
export const CLIENT_PERMISSIONS = ['lifecycle', 'status', 'introspection', 'audit', 'admin'] as const;
export type ClientPermission = (typeof CLIENT_PERMISSIONS)[number];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** OAuth 2.1: https, or plain http only back to the client's own machine (native apps, local demos). */
const redirectUri: Schema<string> = refine(absoluteUrl({ allowQuery: true }), (value, at) => {
  const url = new URL(value);
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) at.fail(`must use https (plain http is allowed for loopback hosts only), got ${JSON.stringify(value)}`);
});

const clientSchema = refine(
  object({
    client_id: string({ maxLength: 255, pattern: /^[\x21-\x7e]+$/, patternHint: 'printable ASCII without spaces' }),
    jwks: publicJwks(),
    sub_profile: string({ maxLength: 255, pattern: /^[a-z][a-z0-9_]*( [a-z][a-z0-9_]*)*$/, patternHint: 'one or more space-separated profile names such as "ai_agent"' }),
    redirect_uris: withDefault(array(redirectUri, { maxItems: 20, uniqueBy: { key: (uri) => uri, what: 'redirect URI' } }), []),
    grant_types: subsetOf(GRANT_TYPES),
    approval_policy: oneOf(['auto', 'consent'] as const),
    permissions: withDefault(subsetOf(CLIENT_PERMISSIONS), []),
  }),
  (client, at) => {
    if (client.grant_types.includes('authorization_code') && client.redirect_uris.length === 0) {
      at.key('redirect_uris').fail('must list at least one URI for a client allowed the authorization_code grant');
    }
  },
);

const personSchema = object({
  sub: string({ maxLength: 255, pattern: /^[\x21-\x7e]+$/, patternHint: 'printable ASCII without spaces' }),
  password_hash: refine(string({ maxLength: 512 }), (value, at) => {
    if (!parsePasswordHash(value)) at.fail(`must be ${PASSWORD_HASH_FORMAT_HINT}`);
  }),
});

/** Cascade modes a deployment may enable beside `immediate` (spec 3.3: experimental, not a stable interface). */
export const EXPERIMENTAL_CASCADE_MODES = ['bounded_staleness', 'status_required'] as const;

const POLICY_NAME = /^[a-z][a-z0-9_.-]{0,63}$/;

/** A named `child_creation_policy` (spec 2.4); `allow` and `deny` are built in and cannot be redefined. */
const childCreationPolicySchema = object({
  name: refine(string({ maxLength: 64, pattern: POLICY_NAME, patternHint: 'lower-case letters, digits, "_", "." and "-", starting with a letter' }), (value, at) => {
    if (value === 'allow' || value === 'deny') at.fail('allow and deny are built-in policies and cannot be redefined');
  }),
  effect: oneOf(['allow', 'deny'] as const),
  max_child_lifetime_seconds: optional(integer(1, 365 * 86_400)),
  max_child_depth: optional(integer(1, 64)),
});

/** Child Missions (spec child-mission-delegation, DESIGN 2.4). */
const childMissionsSchema = object({
  /** How long the parent has to convey the `request_uri` and the child actor to redeem it; then the child is revoked. */
  creation_grant_ttl_seconds: withDefault(integer(10, 3_600), 300),
  policies: withDefault(array(childCreationPolicySchema, { maxItems: 1_000, uniqueBy: { key: (policy) => policy.name, what: 'policy name' } }), []),
  /** Spec 3.3: accepted as `cascade_mode` at creation only when listed here. */
  experimental_cascade_modes: withDefault(subsetOf(EXPERIMENTAL_CASCADE_MODES), []),
});

/** The issuer's CONFIG_FILE (DESIGN 5): registered clients, persons who can approve, token and status timing. */
export const issuerConfigSchema = object(
  {
    clients: array(clientSchema, { minItems: 1, maxItems: 10_000, uniqueBy: { key: (client) => client.client_id, what: 'client_id' } }),
    persons: withDefault(array(personSchema, { maxItems: 10_000, uniqueBy: { key: (person) => person.sub, what: 'sub' } }), []),
    access_token_ttl_seconds: withDefault(integer(30, 86_400), 300),
    mission_max_stale_seconds: withDefault(integer(0, 3_600), 60),
    child_missions: withDefault(childMissionsSchema, { creation_grant_ttl_seconds: 300, policies: [], experimental_cascade_modes: [] }),
  },
  { unknownKeys: 'warn' },
);

export type IssuerConfig = Infer<typeof issuerConfigSchema>;
export type ClientRegistration = IssuerConfig['clients'][number];
export type PersonRegistration = IssuerConfig['persons'][number];
export type ChildMissionsConfig = IssuerConfig['child_missions'];
