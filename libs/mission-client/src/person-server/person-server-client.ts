import type { JWK } from 'jose';
import { delay, randomBase64url, utf8 } from '../core/encoding.js';
import { MissionClientError, protocolErrorOf, ProtocolError, UnreachableError } from '../core/errors.js';
import { signingKeyFromJwk, type SigningKey } from '../core/keys.js';
import { serviceUrl, transportFor, type Transport } from '../issuer/transport.js';
import { signRequest, type SignatureKeyScheme } from './http-signature.js';
import { psStatusOf, unknownStatus, type PsMissionStatus } from './ps-status.js';
import { Proposal } from './proposal.js';

/**
 * Who signs: an agent (its own key + an Agent Token naming it in `cnf`), a Management Principal (`hwk`), or a
 * resource (one of its configured keys, `jwks_uri`) — the last only at the revocation endpoint (ADR 0016).
 */
export type PsIdentity =
  | { readonly kind: 'agent'; readonly key: JWK | SigningKey; readonly agentToken: string | (() => Promise<string>) }
  | { readonly kind: 'principal'; readonly key: JWK | SigningKey }
  /** `resource`: the resource identifier the PS has configured; the key's `kid` must be in its JWKS. */
  | { readonly kind: 'resource'; readonly key: JWK | SigningKey; readonly resource: string };

/** The `dwk` a resource's `Signature-Key` names (the resource's metadata document). */
export const RESOURCE_METADATA_DOCUMENT = 'aauth-resource.json';

/** One proposal waiting for a person's decision (ADR 0034). */
export interface PendingProposal {
  readonly pending_id: string;
  readonly agent: string;
  readonly submitted_at: string;
  readonly description: string;
  readonly tools?: readonly string[];
  readonly resources?: readonly string[];
  readonly expires_at?: string;
}

export interface PersonServerClientOptions {
  /** The PS identifier; its metadata must name it exactly (spec 5 rule 8). */
  readonly url: string | URL;
  readonly identity: PsIdentity;
  readonly fetch?: typeof fetch;
  readonly allowInsecureHttp?: boolean;
  readonly now?: () => Date;
}

/** spec 4.2 terminate request members. */
export interface TerminateRequest {
  readonly reason: 'completed' | 'revoked' | 'expired' | 'superseded' | 'administrative' | (string & {});
  readonly purpose?: string;
  readonly replacementS256?: string;
  /** Default: 16 fresh random bytes (128 bits), kept across this call's retries. */
  readonly requestId?: string;
}

/** A client of the AAuth Person Server: every request signed with RFC 9421 (DESIGN 3.2). Create with {@link PersonServerClient.discover}. */
export class PersonServerClient {
  private constructor(
    readonly metadata: Record<string, unknown>,
    private readonly key: SigningKey,
    private readonly identity: PsIdentity,
    private readonly transport: Transport,
    readonly now: () => Date,
  ) {}

  static async discover(options: PersonServerClientOptions): Promise<PersonServerClient> {
    const url = serviceUrl(options.url, 'the Person Server URL');
    const transport = transportFor(url, options);
    if (!transport.allowInsecureHttp && url.protocol !== 'https:') throw new MissionClientError('bad_url', `refusing plain http: ${url.href}`);
    const response = await transport.fetch(new URL('/.well-known/agent-person.json', url).href, { headers: { accept: 'application/json' } });
    if (!response.ok) throw await protocolErrorOf(response);
    const metadata = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    const expected = url.href.replace(/\/$/, '');
    if (metadata['issuer'] !== expected && metadata['issuer'] !== url.href) {
      throw new MissionClientError('invalid_response', `the metadata names issuer ${String(metadata['issuer'])}, not ${expected}`);
    }
    for (const member of ['mission_endpoint', 'token_endpoint']) {
      const endpoint = metadata[member];
      if (typeof endpoint !== 'string' || new URL(endpoint).origin !== url.origin) throw new MissionClientError('invalid_response', `${member} is missing or on another origin`);
    }
    const key = 'privateKey' in options.identity.key ? (options.identity.key as SigningKey) : await signingKeyFromJwk(options.identity.key as JWK);
    return new PersonServerClient(metadata, key, options.identity, transport, options.now ?? (() => new Date()));
  }

  get missionEndpoint(): string {
    return this.metadata['mission_endpoint'] as string;
  }

  /** Whether the PS advertises a management operation (spec 2.2). */
  supports(operation: string): boolean {
    const operations = this.metadata['mission_management_operations_supported'];
    return Array.isArray(operations) && operations.includes(operation);
  }

  /** A signed `fetch`: RFC 9421 signature, `Signature-Key`, and `Content-Digest` over the exact JSON bytes. */
  async signedFetch(method: string, url: string, body?: unknown): Promise<Response> {
    const bytes = body === undefined ? undefined : utf8(JSON.stringify(body));
    const headers = await signRequest({ method, url, ...(bytes !== undefined ? { body: bytes } : {}) }, this.key, await this.signatureKeyScheme(), this.now());
    return this.transport.fetch(url, { method, headers: { ...headers, accept: 'application/json' }, ...(bytes !== undefined ? { body: bytes as Uint8Array<ArrayBuffer> } : {}) });
  }

  private async signatureKeyScheme(): Promise<SignatureKeyScheme> {
    const identity = this.identity;
    switch (identity.kind) {
      case 'agent':
        return { scheme: 'jwt', jwt: typeof identity.agentToken === 'string' ? identity.agentToken : await identity.agentToken() };
      case 'principal':
        return { scheme: 'hwk' };
      case 'resource': {
        const kid = this.key.kid;
        if (kid === undefined) throw new MissionClientError('bad_key', 'a resource key needs the kid of its JWKS entry');
        return { scheme: 'jwks_uri', id: identity.resource, kid, dwk: RESOURCE_METADATA_DOCUMENT };
      }
    }
  }

  /** A signed JSON call; a non-2xx answer becomes a {@link ProtocolError}. */
  async call(method: string, url: string, body?: unknown): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
    const response = await this.signedFetch(method, url, body);
    if (!response.ok) throw await protocolErrorOf(response);
    return { status: response.status, headers: response.headers, json: (await response.json().catch(() => ({}))) as Record<string, unknown> };
  }

  /** An agent proposes a mission (DESIGN 3.1); the answer is a {@link Proposal} to `wait()` on. */
  async proposeMission(proposal: { description: string; tools?: readonly string[]; resources?: readonly string[]; expiresAt?: string }): Promise<Proposal> {
    const answer = await this.call('POST', this.missionEndpoint, {
      description: proposal.description,
      ...(proposal.tools !== undefined ? { tools: proposal.tools } : {}),
      ...(proposal.resources !== undefined ? { resources: proposal.resources } : {}),
      ...(proposal.expiresAt !== undefined ? { expires_at: proposal.expiresAt } : {}),
    });
    const location = answer.headers.get('location');
    if (answer.status !== 202 || location === null) throw new MissionClientError('invalid_response', 'the proposal was not answered 202 with a Location');
    if (new URL(location).origin !== new URL(this.missionEndpoint).origin) throw new MissionClientError('invalid_response', 'the pending URL is on another origin');
    return new Proposal(this, location, retryAfterMs(answer.headers));
  }

  /** A person approves a proposal of an agent it owns (`pendingId`: the last path segment of the pending URL). */
  async approve(pendingId: string, options: { expiresAt?: string } = {}): Promise<{ s256: string }> {
    const answer = await this.call('POST', `${this.missionEndpoint}/approvals`, { pending_id: pendingId, decision: 'approve', ...(options.expiresAt !== undefined ? { expires_at: options.expiresAt } : {}) });
    return answer.json as { s256: string };
  }

  async decline(pendingId: string): Promise<void> {
    await this.call('POST', `${this.missionEndpoint}/approvals`, { pending_id: pendingId, decision: 'decline' });
  }

  /** Spec 4.1 `status`, **failing closed**: unreachable, an error, a malformed or a stale answer ⇒ `active: false`. */
  async status(missionS256: string): Promise<PsMissionStatus> {
    let response: Response;
    try {
      response = await this.signedFetch('POST', this.missionEndpoint, { operation: 'status', mission_s256: missionS256 });
    } catch (error) {
      return unknownStatus(missionS256, error instanceof UnreachableError ? 'unreachable' : 'error_response', (error as Error).message);
    }
    if (response.status !== 200) return unknownStatus(missionS256, 'error_response', (await protocolErrorOf(response)).message);
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (body === undefined) return unknownStatus(missionS256, 'invalid_response', 'the answer is not JSON');
    return psStatusOf(missionS256, body, this.now());
  }

  /**
   * Polls `status` until the mission is `terminated` (then the agent MUST stop initiating work, spec 4.1)
   * or `signal` aborts; `onStatus` sees every answer. An answer that establishes nothing is reported and
   * treated as not active; the loop goes on after `intervalMs` (default: until `fresh_until`, at least 1 s).
   */
  async watch(missionS256: string, options: { signal?: AbortSignal; intervalMs?: number; onStatus?: (status: PsMissionStatus) => void } = {}): Promise<PsMissionStatus> {
    for (;;) {
      const status = await this.status(missionS256);
      options.onStatus?.(status);
      if (status.status === 'terminated') return status;
      const untilFresh = status.freshUntil ? status.freshUntil.getTime() - this.now().getTime() : 1000;
      await delay(options.intervalMs ?? Math.max(1000, untilFresh), options.signal);
    }
  }

  /**
   * Spec 4.2 `terminate` with a fresh 128-bit `request_id`, retried with the same id (so at most one
   * termination is recorded and a repeat returns the original result) when the PS is unreachable or
   * answers 5xx / 429.
   */
  async terminate(missionS256: string, request: TerminateRequest, options: { attempts?: number; backoffMs?: number } = {}): Promise<Record<string, unknown>> {
    const body = {
      operation: 'terminate', mission_s256: missionS256, reason: request.reason, request_id: request.requestId ?? randomBase64url(16),
      ...(request.purpose !== undefined ? { purpose: request.purpose } : {}),
      ...(request.replacementS256 !== undefined ? { replacement_s256: request.replacementS256 } : {}),
    };
    const attempts = options.attempts ?? 4;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.call('POST', this.missionEndpoint, body)).json;
      } catch (error) {
        const retriable = error instanceof UnreachableError || (error instanceof ProtocolError && (error.status >= 500 || error.status === 429));
        if (!retriable || attempt >= attempts) throw error;
        await delay((options.backoffMs ?? 500) * 2 ** (attempt - 1));
      }
    }
  }

  /** Spec 4.3 `delegation_tree`, every node of every page (the cursor is followed for you). */
  async *delegationTree(missionS256: string, options: { pageSize?: number } = {}): AsyncGenerator<Record<string, unknown>> {
    let cursor: string | undefined;
    do {
      const page = (await this.call('POST', this.missionEndpoint, {
        operation: 'delegation_tree', mission_s256: missionS256,
        ...(options.pageSize !== undefined ? { max_results: options.pageSize } : {}), ...(cursor !== undefined ? { cursor } : {}),
      })).json as { nodes: Record<string, unknown>[]; next_cursor?: string; complete: boolean };
      yield* page.nodes;
      cursor = page.complete ? undefined : page.next_cursor;
    } while (cursor !== undefined);
  }

  /** DESIGN 3.3 Auth Token request: `{resource_token, subagent_token?, upstream_token?}` → `{auth_token, expires_in}`. */
  async authToken(request: { resourceToken: string; subagentToken?: string; upstreamToken?: string }): Promise<{ auth_token: string; expires_in: number }> {
    const endpoint = this.metadata['token_endpoint'] as string;
    const answer = await this.call('POST', endpoint, {
      resource_token: request.resourceToken,
      ...(request.subagentToken !== undefined ? { subagent_token: request.subagentToken } : {}),
      ...(request.upstreamToken !== undefined ? { upstream_token: request.upstreamToken } : {}),
    });
    return answer.json as { auth_token: string; expires_in: number };
  }

  /**
   * Revokes an Auth Token at the PS `revocation_endpoint` (DESIGN 3.1, ADR 0016) by `{iss, jti}` (or the token,
   * whose `iss` and `jti` are read locally; the token itself is never sent). Only the token's holder (an
   * `agent` identity) or its audience (a `resource` identity) is authorized; the PS answers every well-formed
   * request the same `200`, so a call by anyone else succeeds and revokes nothing.
   */
  async revokeToken(token: { iss: string; jti: string } | { token: string }): Promise<void> {
    const endpoint = this.metadata['revocation_endpoint'];
    if (typeof endpoint !== 'string') throw new MissionClientError('unsupported', 'this Person Server advertises no revocation_endpoint');
    if (new URL(endpoint).origin !== new URL(this.missionEndpoint).origin) throw new MissionClientError('invalid_response', 'revocation_endpoint is on another origin');
    await this.call('POST', endpoint, 'token' in token ? tokenIdentity(token.token) : { iss: token.iss, jti: token.jti });
  }

  /**
   * The pending proposals the caller may decide on or oversee (ADR 0034): a person's own agents', an
   * administrator's tenant's; every page followed. Anyone else gets none (never an error).
   */
  async *pendingProposals(options: { pageSize?: number } = {}): AsyncGenerator<PendingProposal> {
    const endpoint = this.metadata['pending_proposals_endpoint'];
    if (typeof endpoint !== 'string') throw new MissionClientError('unsupported', 'this Person Server advertises no pending_proposals_endpoint');
    if (new URL(endpoint).origin !== new URL(this.missionEndpoint).origin) throw new MissionClientError('invalid_response', 'pending_proposals_endpoint is on another origin');
    let cursor: string | undefined;
    do {
      const page = (await this.call('POST', endpoint, { ...(options.pageSize !== undefined ? { max_results: options.pageSize } : {}), ...(cursor !== undefined ? { cursor } : {}) }))
        .json as { proposals?: PendingProposal[]; next_cursor?: string; complete?: boolean };
      if (!Array.isArray(page.proposals)) throw new MissionClientError('invalid_response', 'the listing carries no proposals');
      yield* page.proposals;
      cursor = page.complete === false && typeof page.next_cursor === 'string' ? page.next_cursor : undefined;
    } while (cursor !== undefined);
  }
}

/** `{iss, jti}` of a compact JWS, read without verification (the PS looks the pair up; nothing is trusted from it here). */
function tokenIdentity(token: string): { iss: string; jti: string } {
  const payload = token.split('.')[1];
  let claims: { iss?: unknown; jti?: unknown } = {};
  try {
    claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob((payload ?? '').replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)))) as typeof claims;
  } catch {
    // reported below
  }
  if (typeof claims.iss !== 'string' || typeof claims.jti !== 'string') throw new MissionClientError('invalid_request', 'the token is not a JWT with iss and jti');
  return { iss: claims.iss, jti: claims.jti };
}

/** `Retry-After` in milliseconds (delta-seconds; default 1 s, at most 60 s). */
export function retryAfterMs(headers: Headers): number {
  const seconds = Number(headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 60) * 1000 : 1000;
}
