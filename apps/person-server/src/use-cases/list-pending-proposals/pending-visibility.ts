import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@mission/platform';
import type { PersonServerConfig } from '../../config/person-server-config.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';

/**
 * ADR 0034: who sees which pending proposal. A person sees the proposals of the agents it owns (the
 * agents it could approve for, DESIGN 3.1); an administrator those of agents owned by a person of its
 * tenant; an agent, and anyone else, nothing. A resource's `call_chain_agents` do not count: a proposal
 * becomes a mission of the approving person's tenant, so only owners' tenants may learn of it.
 */
@Injectable()
export class PendingVisibility {
  private readonly ownerTenants = new Map<string, Set<string>>();
  /** The agents owned by a person of each tenant: an administrator's visible agents. */
  private readonly tenantAgents = new Map<string, Set<string>>();

  constructor(@Inject(SERVICE_CONFIG) config: PersonServerConfig) {
    for (const principal of config.principals) {
      if (principal.role !== 'person') continue;
      for (const agent of principal.agents ?? []) {
        const tenants = this.ownerTenants.get(agent) ?? new Set<string>();
        tenants.add(principal.tenant);
        this.ownerTenants.set(agent, tenants);
        const agents = this.tenantAgents.get(principal.tenant) ?? new Set<string>();
        agents.add(agent);
        this.tenantAgents.set(principal.tenant, agents);
      }
    }
  }

  /** Whether `caller` may learn that `agent` has a pending proposal. */
  visibleTo(caller: AuthenticatedCaller): (agent: string) => boolean {
    if (caller.kind !== 'principal') return () => false;
    if (caller.role === 'person') return (agent) => caller.agents.includes(agent);
    return (agent) => this.ownerTenants.get(agent)?.has(caller.tenant) === true;
  }

  /** The agents whose pending proposals `caller` may learn of (the same rule as `visibleTo`): the ranges a listing reads. */
  visibleAgents(caller: AuthenticatedCaller): readonly string[] {
    if (caller.kind !== 'principal') return [];
    if (caller.role === 'person') return caller.agents;
    return [...(this.tenantAgents.get(caller.tenant) ?? [])];
  }
}
