/**
 * Issue 12 defect 1, spec 5.2, 5.4 (ADR 0015): an agent identifier means something only together with the
 * agent provider that vouches for it. Each configured provider may assert only AAuth identifiers
 * `aauth:<local>@<domain>` whose domain is one of its `agent_domains` (default: the host of its `issuer`),
 * and no domain belongs to two providers — so every agent identifier the PS accepts or is configured with
 * names exactly one provider, and comparing identifiers compares (provider, identifier).
 */

/** An AAuth agent identifier: lower-case domain (with an optional port), no alias spellings. */
const AAUTH_AGENT_ID = /^aauth:[A-Za-z0-9._~+-]+@([a-z0-9.-]+(?::[0-9]{1,5})?)$/;

/** An agent domain as configured: a lower-case host name, optionally with a port. */
export const AGENT_DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$/;

/** The domain after `@` of an AAuth agent identifier; undefined for anything else (including upper-case domains). */
export function agentIdentifierDomain(agent: string): string | undefined {
  return AAUTH_AGENT_ID.exec(agent)?.[1];
}

/** A provider as the binding needs it: its issuer and, if configured, the domains it vouches for. */
export interface AgentDomainSource {
  readonly issuer: string;
  readonly agent_domains?: readonly string[];
}

/** The domains `provider` vouches for: as configured, else the host (and port) of its issuer identifier. */
export function agentDomainsOf(provider: AgentDomainSource): readonly string[] {
  return provider.agent_domains ?? [new URL(provider.issuer).host.toLowerCase()];
}

/** Agent identity as the PS compares it: the provider that vouched, and the identifier it vouched for. */
export interface AgentIdentity {
  readonly provider: string;
  readonly agent: string;
}

/** (provider, identifier) equality: the only way the PS compares two authenticated agents. */
export function sameAgent(a: AgentIdentity, b: AgentIdentity): boolean {
  return a.provider === b.provider && a.agent === b.agent;
}

/** Which provider may assert which agent identifiers (see the module comment). */
export class AgentIdentifierBinding {
  /** domain → its provider, or `null` when two claim it (configuration validation refuses that for agent providers). */
  private readonly providerByDomain = new Map<string, string | null>();

  constructor(providers: readonly AgentDomainSource[]) {
    for (const provider of providers) {
      for (const domain of agentDomainsOf(provider)) {
        const owner = this.providerByDomain.get(domain);
        // Fail closed: an ambiguous domain is asserted by nobody.
        this.providerByDomain.set(domain, owner === undefined || owner === provider.issuer ? provider.issuer : null);
      }
    }
  }

  /** The one provider that may assert `agent`, or undefined when none may. */
  providerOf(agent: string): string | undefined {
    const domain = agentIdentifierDomain(agent);
    return domain === undefined ? undefined : (this.providerByDomain.get(domain) ?? undefined);
  }

  /** Whether `provider` may assert `agent` (as an Agent Token's `sub` or `parent_agent`). */
  vouches(provider: string, agent: string): boolean {
    return this.providerOf(agent) === provider;
  }

  /** The (provider, identifier) of a stored or configured identifier, or undefined when no provider may assert it. */
  identityOf(agent: string): AgentIdentity | undefined {
    const provider = this.providerOf(agent);
    return provider === undefined ? undefined : { provider, agent };
  }
}
