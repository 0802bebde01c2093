import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@mission/platform';
import type { KnownAgent } from '@mission/ps-domain';
import type { PersonServerConfig } from '../../config/person-server-config.js';

/**
 * Spec 4.3 rule 3 (ADR 0019): which tenant may know which agent identifiers. An agent belongs to the
 * tenants of the persons who list it (`principals[].agents`) and to the `tenant` of every resource that
 * declares it in `call_chain_agents`. Nothing else makes an agent known to a tenant: an agent the
 * configuration ties to no tenant, or only to another one, is never named to a caller of this one.
 */
@Injectable()
export class AgentTenancy {
  private readonly tenantsByAgent = new Map<string, Set<string>>();

  constructor(@Inject(SERVICE_CONFIG) config: PersonServerConfig) {
    for (const principal of config.principals) for (const agent of principal.agents ?? []) this.add(agent, principal.tenant);
    for (const resource of config.resources) if (resource.tenant !== undefined) for (const agent of resource.call_chain_agents) this.add(agent, resource.tenant);
  }

  /** The agents a caller acting within `tenant` (the mission's tenant) may know. */
  knownTo(tenant: string): KnownAgent {
    return (agent) => this.tenantsByAgent.get(agent)?.has(tenant) === true;
  }

  private add(agent: string, tenant: string): void {
    const tenants = this.tenantsByAgent.get(agent) ?? new Set<string>();
    tenants.add(tenant);
    this.tenantsByAgent.set(agent, tenants);
  }
}
