import { AgentProviderKeys, AgentProviderUnavailableError, type AgentProviderKeysOptions } from './agent-provider-keys.js';
import type { TrustedResource } from '../config/person-server-config.js';
import type { ResourceKeySource } from '../tokens/resource-token.js';

/** The resource metadata document read when keys or the revocation endpoint are not configured. */
export const RESOURCE_METADATA_PATH = '/.well-known/aauth-resource.json';

export class ResourceUnavailableError extends Error {
  override readonly name = 'ResourceUnavailableError';
}

/**
 * The configured resources (DESIGN 5 `resources`): their verification keys (inline, `jwks_uri` or
 * discovered, with the same cache, size cap and unknown-`kid` refresh as agent providers) and their
 * revocation endpoint — configured, or read once from the resource's metadata (spec 2.6: "the
 * Resource revocation endpoint when advertised").
 */
export class ResourceDirectory implements ResourceKeySource {
  private readonly keys: AgentProviderKeys;
  private readonly resources: ReadonlyMap<string, TrustedResource>;
  private readonly discoveredEndpoints = new Map<string, { endpoint: string | undefined; atMs: number }>();

  constructor(
    resources: readonly TrustedResource[],
    private readonly options: AgentProviderKeysOptions = {},
  ) {
    this.resources = new Map(resources.map((resource) => [resource.issuer, resource]));
    this.keys = new AgentProviderKeys(resources, { ...options, metadataPath: RESOURCE_METADATA_PATH });
  }

  isTrusted(issuer: string): boolean {
    return this.resources.has(issuer);
  }

  /** DESIGN 3.3, ADR 0012: the agents a configured resource calls onwards as; undefined when `issuer` is not configured. */
  callChainAgents(issuer: string): readonly string[] | undefined {
    return this.resources.get(issuer)?.call_chain_agents;
  }

  async keysFor(issuer: string, kid: string): Promise<readonly { readonly kty: string; readonly [member: string]: unknown }[]> {
    try {
      const provider = await this.keys.providerFor(issuer, kid);
      return provider.jwks?.keys ?? [];
    } catch (error) {
      if (error instanceof AgentProviderUnavailableError) throw new ResourceUnavailableError('the resource keys could not be obtained', { cause: error });
      throw error;
    }
  }

  /** The configured endpoint, else the advertised one (cached 10 minutes), else undefined (`no_endpoint`). */
  async revocationEndpoint(issuer: string): Promise<string | undefined> {
    const resource = this.resources.get(issuer);
    if (resource === undefined) return undefined;
    if (resource.revocation_endpoint !== undefined) return resource.revocation_endpoint;
    const nowMs = (this.options.nowMs ?? Date.now)();
    const cached = this.discoveredEndpoints.get(issuer);
    if (cached !== undefined && nowMs - cached.atMs < 600_000) return cached.endpoint;
    const endpoint = await this.discoverEndpoint(issuer);
    this.discoveredEndpoints.set(issuer, { endpoint, atMs: nowMs });
    return endpoint;
  }

  private async discoverEndpoint(issuer: string): Promise<string | undefined> {
    try {
      const response = await (this.options.fetch ?? fetch)(`${issuer}${RESOURCE_METADATA_PATH}`, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.fetchTimeoutMs ?? 5_000),
      });
      if (!response.ok) return undefined;
      const text = await response.text();
      if (text.length > 262_144) return undefined;
      const metadata = JSON.parse(text) as Record<string, unknown>;
      if (metadata['issuer'] !== undefined && metadata['issuer'] !== issuer) return undefined;
      const endpoint = metadata['revocation_endpoint'];
      return typeof endpoint === 'string' && /^https?:\/\//.test(endpoint) ? endpoint : undefined;
    } catch {
      // No advertised endpoint is a fact the residual reports (`no_endpoint`), not a failed issuance.
      return undefined;
    }
  }
}
