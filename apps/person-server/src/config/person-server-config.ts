import {
  absoluteUrl,
  array,
  boolean,
  integer,
  object,
  oneOf,
  optional,
  publicJwks,
  refine,
  string,
  withDefault,
  type Infer,
  type JsonPath,
} from '@mission/platform';
import { AGENT_DOMAIN, agentDomainsOf, agentIdentifierDomain } from '../identity/agent-binding.js';

const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
/** AAuth agent identifiers as registered for persons, e.g. `aauth:assistant@agents.example`. */
const AGENT_ID = /^aauth:[A-Za-z0-9._~+-]+@[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;

/** An issuer identifier: absolute http(s) URL, no query, no fragment, no trailing slash. */
const issuerIdentifier = refine(absoluteUrl(), (value, at) => {
  if (value.endsWith('/')) at.fail(`must not end with "/", got ${JSON.stringify(value)}`);
});

/** Inline keys, or a `jwks_uri`, or neither (keys discovered from the party's well-known metadata); never both. */
function exclusiveKeySource(entry: { jwks?: unknown; jwks_uri?: string }, at: JsonPath): void {
  if (entry.jwks !== undefined && entry.jwks_uri !== undefined) at.key('jwks_uri').fail('give either jwks or jwks_uri, not both');
}

/** A set of agent identifiers: each one well formed, none twice. */
const agentIds = (maxItems: number) =>
  array(string({ maxLength: 255, pattern: AGENT_ID, patternHint: 'an agent identifier such as "aauth:assistant@agents.example"' }), {
    maxItems,
    uniqueBy: { key: (agent) => agent, what: 'agent' },
  });

const principalSchema = refine(
  object({
    id: string({ maxLength: 255, pattern: /^[\x21-\x7e]+$/, patternHint: 'printable ASCII without spaces' }),
    role: oneOf(['person', 'admin'] as const),
    jkt: string({ pattern: JWK_THUMBPRINT, patternHint: 'a SHA-256 JWK thumbprint (RFC 7638, 43 base64url characters)' }),
    tenant: string({ maxLength: 255 }),
    agents: optional(agentIds(10_000)),
  }),
  (principal, at) => {
    if (principal.role === 'admin' && principal.agents !== undefined) at.key('agents').fail('only principals with role "person" own agents');
  },
);

const agentProviderSchema = refine(
  object({
    issuer: issuerIdentifier,
    /**
     * Issue 12 defect 1, spec 5.2 (ADR 0015): the domains of the AAuth agent identifiers (`aauth:<local>@<domain>`)
     * this provider may assert as an Agent Token's `sub` or `parent_agent`. Default: the host of `issuer`.
     */
    agent_domains: optional(
      array(string({ maxLength: 260, pattern: AGENT_DOMAIN, patternHint: 'a lower-case host name, optionally with :port, e.g. "agents.example"' }), {
        minItems: 1,
        maxItems: 100,
        uniqueBy: { key: (domain) => domain, what: 'agent domain' },
      }),
    ),
    jwks: optional(publicJwks()),
    jwks_uri: optional(absoluteUrl()),
  }),
  exclusiveKeySource,
);

const resourceSchema = refine(
  object({
    issuer: issuerIdentifier,
    jwks: optional(publicJwks()),
    jwks_uri: optional(absoluteUrl()),
    /** Usually read from the resource's metadata; configured here it takes precedence. */
    revocation_endpoint: optional(absoluteUrl({ allowQuery: true })),
    /**
     * DESIGN 3.3 call chains (ADR 0012): the agent identities this resource uses when it calls onwards. Only
     * these agents may present an Auth Token issued to this resource as `upstream_token`; an Auth Token is
     * otherwise a bearer secret for its mission. Empty (the default): this resource cannot start call chains.
     */
    call_chain_agents: withDefault(agentIds(1_000), []),
    /**
     * Spec 4.3 rule 3 (ADR 0019): the tenant these `call_chain_agents` belong to. Their `call_chain` nodes are shown
     * to callers of that tenant only; without a tenant, only to tenants whose persons list the agent.
     */
    tenant: optional(string({ maxLength: 255 })),
  }),
  exclusiveKeySource,
);

const rateLimitsSchema = object({
  per_caller_per_minute: withDefault(integer(1, 1_000_000), 600),
  per_source_per_minute: withDefault(integer(1, 10_000_000), 6000),
});

/** Spec 4.4, DESIGN 3.3: how the PS retries revocation of Tracked Auth Tokens after termination. */
const revocationSchema = object({
  /** How long `terminate` waits for immediate revocation results before it answers (spec 4.2 step 6). */
  wait_ms: withDefault(integer(0, 5_000), 250),
  /** Rounds per mission, the first included; then the PS stops and the residual stays reported (bounded, spec 4.4 rule 2). */
  max_attempts: withDefault(integer(1, 100), 8),
  initial_delay_ms: withDefault(integer(10, 3_600_000), 1_000),
  max_delay_ms: withDefault(integer(10, 86_400_000), 300_000),
  /** One call's deadline; no answer in time is `timeout` (unconfirmed). */
  timeout_ms: withDefault(integer(100, 60_000), 5_000),
  /** How long a claimed round is owned by one replica (a crashed replica's round is retried after it). */
  lease_ms: withDefault(integer(1_000, 600_000), 30_000),
  /** Calls per second to any one resource origin (spec 4.4 rule 2: rate limited). */
  per_resource_per_second: withDefault(integer(1, 100_000), 200),
  /** Calls in flight per round. */
  concurrency: withDefault(integer(1, 1_000), 32),
});

const REVOCATION_DEFAULTS = {
  wait_ms: 250,
  max_attempts: 8,
  initial_delay_ms: 1_000,
  max_delay_ms: 300_000,
  timeout_ms: 5_000,
  lease_ms: 30_000,
  per_resource_per_second: 200,
  concurrency: 32,
};

/** The Person Server's CONFIG_FILE (DESIGN 5): management principals, trusted agent providers and resources, limits. */
export const personServerConfigSchema = refine(
  object(
    {
      principals: array(principalSchema, { maxItems: 100_000, uniqueBy: { key: (principal) => principal.id, what: 'principal id' } }),
      agent_providers: withDefault(array(agentProviderSchema, { uniqueBy: { key: (provider) => provider.issuer, what: 'issuer' } }), []),
      resources: withDefault(array(resourceSchema, { uniqueBy: { key: (resource) => resource.issuer, what: 'issuer' } }), []),
      // Unless the deployment says otherwise, assume access that the PS cannot track exists, so a
      // token residual is never reported complete by mistake (DESIGN 3.3).
      untracked_access_modes: withDefault(boolean(), true),
      status_freshness_seconds: withDefault(integer(1, 3_600), 30),
      rate_limits: withDefault(rateLimitsSchema, { per_caller_per_minute: 600, per_source_per_minute: 6000 }),
      /** Lifetime of an Auth Token; never past the mission's `expires_at` (DESIGN 3.1). */
      auth_token_ttl_seconds: withDefault(integer(10, 86_400), 300),
      revocation: withDefault(revocationSchema, REVOCATION_DEFAULTS),
    },
    { unknownKeys: 'warn' },
  ),
  (config, at) => {
    // One key, one principal: the signature key is what identifies a person or an administrator.
    const owners = new Map<string, number>();
    config.principals.forEach((principal, position) => {
      const first = owners.get(principal.jkt);
      if (first !== undefined) at.key('principals').index(position).key('jkt').fail(`is already registered for principals[${first}]`);
      owners.set(principal.jkt, position);
    });
    agentIdentifiersBound(config, at);
  },
);

/**
 * ADR 0015: every agent domain belongs to one provider, and every configured agent identifier (a person's
 * `agents`, a resource's `call_chain_agents`) is one some provider may assert — otherwise it could never
 * authenticate, or two providers could each vouch for it.
 */
function agentIdentifiersBound(config: { agent_providers: readonly { issuer: string; agent_domains?: readonly string[] | undefined }[]; principals: readonly { agents?: readonly string[] | undefined }[]; resources: readonly { call_chain_agents: readonly string[] }[] }, at: JsonPath): void {
  const providerOfDomain = new Map<string, number>();
  config.agent_providers.forEach((provider, position) => {
    for (const domain of agentDomainsOf(provider)) {
      const first = providerOfDomain.get(domain);
      if (first !== undefined) at.key('agent_providers').index(position).key('agent_domains').fail(`agent domain ${JSON.stringify(domain)} already belongs to agent_providers[${first}]`);
      providerOfDomain.set(domain, position);
    }
  });
  const bound = (agent: string): boolean => {
    const domain = agentIdentifierDomain(agent);
    return domain !== undefined && providerOfDomain.has(domain);
  };
  const unbound = (agent: string): string => `${JSON.stringify(agent)} is not an identifier any agent provider may assert (its domain is in no agent_providers[].agent_domains)`;
  config.principals.forEach((principal, position) =>
    principal.agents?.forEach((agent, index) => {
      if (!bound(agent)) at.key('principals').index(position).key('agents').index(index).fail(unbound(agent));
    }),
  );
  config.resources.forEach((resource, position) =>
    resource.call_chain_agents.forEach((agent, index) => {
      if (!bound(agent)) at.key('resources').index(position).key('call_chain_agents').index(index).fail(unbound(agent));
    }),
  );
}

export type PersonServerConfig = Infer<typeof personServerConfigSchema>;
export type ManagementPrincipal = PersonServerConfig['principals'][number];
export type AgentProvider = PersonServerConfig['agent_providers'][number];
export type TrustedResource = PersonServerConfig['resources'][number];
export type RevocationSettings = PersonServerConfig['revocation'];
