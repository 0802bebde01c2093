import { publicSigningJwk, type AgentProvider } from '@mission/signature-key';
import { AgentIdentifierBinding } from '../identity/agent-binding.js';

/** An agent provider as configured (`agent_providers`, DESIGN 5): inline `jwks`, a `jwks_uri`, or neither (discovery). */
export interface ConfiguredAgentProvider {
  readonly issuer: string;
  /** The domains of the agent identifiers it may assert (ADR 0015); default the issuer's host. */
  readonly agent_domains?: readonly string[] | undefined;
  readonly jwks?: { readonly keys: readonly { readonly kty: string; readonly [member: string]: unknown }[] };
  readonly jwks_uri?: string;
}

/** The well-known metadata document of an AAuth agent provider, read when neither `jwks` nor `jwks_uri` is configured. */
export const AGENT_PROVIDER_METADATA_PATH = '/.well-known/aauth-agent.json';

/** The provider's keys could not be fetched (timeout, network, HTTP status, malformed document). */
export class AgentProviderUnavailableError extends Error {
  override readonly name = 'AgentProviderUnavailableError';
}

export interface AgentProviderKeysOptions {
  /** Where discovery looks when neither `jwks` nor `jwks_uri` is configured; default the agent provider path. */
  readonly metadataPath?: string;
  /** Per HTTP request (metadata or JWKS); default 5 s. */
  readonly fetchTimeoutMs?: number;
  /** How long fetched keys are used before they are fetched again; default 10 min. */
  readonly maxAgeMs?: number;
  /**
   * An unknown `kid` triggers one refresh, unless the keys were fetched less than this long ago; default
   * 30 s, so tokens with made-up `kid`s cannot make the PS hammer a provider.
   */
  readonly unknownKidRefreshIntervalMs?: number;
  /** Larger metadata or JWKS documents are refused; default 256 KiB. */
  readonly maxDocumentBytes?: number;
  /** Monotonic-enough milliseconds for cache ages; default `Date.now`. */
  readonly nowMs?: () => number;
  /** Injected for tests; default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Told when stale keys are used because a refresh failed. */
  readonly onStaleKeys?: (issuer: string, error: unknown) => void;
}

type Jwk = { readonly kty: string; readonly [member: string]: unknown };

interface CachedKeys {
  readonly keys: readonly Jwk[];
  readonly fetchedAtMs: number;
}

/**
 * The verification keys of the configured agent providers (DESIGN 3.1, 5): inline `jwks` as configured;
 * otherwise fetched from `jwks_uri`, or from the `jwks_uri` of the provider's
 * `/.well-known/aauth-agent.json`, with a timeout and a size cap, cached for `maxAgeMs`, and refreshed
 * once when a token names a `kid` the cached set lacks (key rotation). When a refresh fails, keys fetched
 * earlier stay in use; with no keys at all the provider is unavailable. One fetch per provider at a time.
 */
export class AgentProviderKeys {
  private readonly providers: ReadonlyMap<string, ConfiguredAgentProvider>;
  private readonly cache = new Map<string, CachedKeys>();
  private readonly inFlight = new Map<string, Promise<CachedKeys>>();
  private readonly fetchTimeoutMs: number;
  private readonly maxAgeMs: number;
  private readonly refreshIntervalMs: number;
  private readonly maxDocumentBytes: number;
  private readonly nowMs: () => number;
  private readonly fetchFn: typeof fetch;
  /** ADR 0015: which provider may assert which agent identifiers. */
  readonly binding: AgentIdentifierBinding;

  constructor(
    providers: readonly ConfiguredAgentProvider[],
    private readonly options: AgentProviderKeysOptions = {},
  ) {
    this.providers = new Map(providers.map((provider) => [provider.issuer, provider]));
    this.binding = new AgentIdentifierBinding(providers);
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? 5_000;
    this.maxAgeMs = options.maxAgeMs ?? 600_000;
    this.refreshIntervalMs = options.unknownKidRefreshIntervalMs ?? 30_000;
    this.maxDocumentBytes = options.maxDocumentBytes ?? 262_144;
    this.nowMs = options.nowMs ?? Date.now;
    this.fetchFn = options.fetch ?? fetch;
  }

  /** Whether `issuer` is a configured (trusted) agent provider. */
  isTrusted(issuer: string): boolean {
    return this.providers.has(issuer);
  }

  /**
   * The provider with the keys to verify a token signed under `kid`, in the form `verifyAgentToken`
   * takes. Throws {@link AgentProviderUnavailableError} when keys are needed but none can be obtained,
   * and a plain Error for an issuer that is not configured (callers check {@link isTrusted} first).
   */
  async providerFor(issuer: string, kid: string): Promise<AgentProvider> {
    const provider = this.providers.get(issuer);
    if (provider === undefined) throw new Error('not a configured agent provider');
    if (provider.jwks !== undefined) return { issuer, jwks: provider.jwks };
    const keys = await this.currentKeys(provider, kid);
    return { issuer, jwks: { keys } };
  }

  private async currentKeys(provider: ConfiguredAgentProvider, kid: string): Promise<readonly Jwk[]> {
    const cached = this.cache.get(provider.issuer);
    const age = cached === undefined ? Infinity : this.nowMs() - cached.fetchedAtMs;
    const unknownKid = cached !== undefined && !cached.keys.some((key) => key['kid'] === kid);
    const needsFetch = cached === undefined || age >= this.maxAgeMs || (unknownKid && age >= this.refreshIntervalMs);
    if (!needsFetch) return cached.keys;
    try {
      return (await this.refresh(provider)).keys;
    } catch (error) {
      if (cached === undefined) throw error;
      this.options.onStaleKeys?.(provider.issuer, error);
      return cached.keys;
    }
  }

  private refresh(provider: ConfiguredAgentProvider): Promise<CachedKeys> {
    const running = this.inFlight.get(provider.issuer);
    if (running !== undefined) return running;
    const fetching = (async () => {
      const jwksUri = provider.jwks_uri ?? (await this.discoverJwksUri(provider.issuer));
      const keys = parseJwks(await this.fetchJson(jwksUri));
      const entry = { keys, fetchedAtMs: this.nowMs() };
      this.cache.set(provider.issuer, entry);
      return entry;
    })().finally(() => this.inFlight.delete(provider.issuer));
    this.inFlight.set(provider.issuer, fetching);
    return fetching;
  }

  private async discoverJwksUri(issuer: string): Promise<string> {
    const metadata = await this.fetchJson(`${issuer}${this.options.metadataPath ?? AGENT_PROVIDER_METADATA_PATH}`);
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw new AgentProviderUnavailableError('agent provider metadata is not a JSON object');
    }
    const record = metadata as Record<string, unknown>;
    // RFC 8414 §3.3-style mix-up defence: a metadata document naming another issuer is not this provider's.
    if (record['issuer'] !== undefined && record['issuer'] !== issuer) {
      throw new AgentProviderUnavailableError('agent provider metadata names another issuer');
    }
    const jwksUri = record['jwks_uri'];
    if (typeof jwksUri !== 'string' || !isHttpUrl(jwksUri)) {
      throw new AgentProviderUnavailableError('agent provider metadata has no usable jwks_uri');
    }
    return jwksUri;
  }

  private async fetchJson(url: string): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetchFn(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.fetchTimeoutMs),
      });
    } catch (error) {
      throw new AgentProviderUnavailableError('agent provider did not answer', { cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new AgentProviderUnavailableError(`agent provider answered HTTP ${response.status}`);
    }
    const text = await readCapped(response, this.maxDocumentBytes);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AgentProviderUnavailableError('agent provider document is not JSON');
    }
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new AgentProviderUnavailableError('agent provider document is too large');
  }
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body) {
      total += chunk.byteLength;
      if (total > maxBytes) throw new AgentProviderUnavailableError('agent provider document is too large');
      chunks.push(chunk);
    }
  } catch (error) {
    await response.body.cancel().catch(() => undefined);
    if (error instanceof AgentProviderUnavailableError) throw error;
    throw new AgentProviderUnavailableError('agent provider document could not be read', { cause: error });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The usable signing keys of a fetched JWKS: public EC P-256 or Ed25519 keys with a `kid`, reduced to
 * their public members plus `kid`/`alg`/`use`. Other keys (encryption keys, other types, keys with
 * private members) are skipped, as a JWKS may hold keys for other purposes.
 */
function parseJwks(document: unknown): Jwk[] {
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (typeof document !== 'object' || document === null || !Array.isArray(keys)) {
    throw new AgentProviderUnavailableError('agent provider JWKS has no keys array');
  }
  const usable: Jwk[] = [];
  for (const candidate of keys as unknown[]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const member = candidate as Record<string, unknown>;
    if (typeof member['kid'] !== 'string' || member['kid'] === '') continue;
    if (member['use'] !== undefined && member['use'] !== 'sig') continue;
    try {
      const key = publicSigningJwk(member, 'a provider key');
      usable.push({
        ...key,
        kid: member['kid'],
        ...(typeof member['alg'] === 'string' ? { alg: member['alg'] } : {}),
      });
    } catch {
      // not a key we can verify agent tokens with
    }
  }
  return usable;
}
