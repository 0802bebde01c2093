import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { JWK } from 'jose';
import type { EventStore, RecordedEvent } from '@mission/event-store';
import type { RunningService } from '@mission/platform';
import { agentRequest, ALICE_KEY, BOB_KEY, freshKey, hwkSignatureKey, OPS_KEY, principalKey, signedRequest, type TestKey, type TestRequest } from './signed-request.spec-helper.js';
import { testBaseUrl } from './run-person-server.js';

/** Test-only HTTP client of a running Person Server (signed requests as DESIGN 3.2 clients send them). */

export const ASSISTANT = 'aauth:assistant@agents.example';
/** Demo principals (config/person-server.json): alice owns ASSISTANT, bob another agent, ops is tenant t1's administrator. */
export const alice = principalKey(ALICE_KEY);
export const bob = principalKey(BOB_KEY);
export const ops = principalKey(OPS_KEY);

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

export interface Agent {
  readonly id: string;
  readonly key: TestKey;
  /** The agent provider whose key mints its Agent Tokens (`iss` and signing key); default the demo provider. */
  readonly provider?: { readonly issuer: string; readonly jwk: JWK };
}

// Every signature must be unique (replay cache, DESIGN 3.2); Ed25519 is deterministic, so vary `created`.
let tick = 0;
const created = (): number => Math.floor(Date.now() / 1000) - (tick++ % 40);

export const requestId = (): string => randomBytes(24).toString('base64url');

export async function newAgent(id = ASSISTANT): Promise<Agent> {
  return { id, key: await freshKey() };
}

export class PsClient {
  constructor(private readonly service: () => RunningService) {}

  /** Sends a signed request over HTTP to the running service, exactly as signed (bytes and headers). */
  send(request: TestRequest): Promise<Reply> {
    const headers = { ...request.headers };
    delete headers['host'];
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(`${this.service().listenUrl}${request.originalUrl}`, { method: request.method, headers }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, json });
        });
      });
      outgoing.on('error', reject);
      if (request.rawBody !== undefined) outgoing.write(request.rawBody);
      outgoing.end();
    });
  }

  async get(path: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      httpRequest(`${this.service().listenUrl}${path}`, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, json: JSON.parse(text) as Record<string, unknown> });
        });
      })
        .on('error', reject)
        .end();
    });
  }

  async asAgent(agent: Agent, options: { body?: unknown; path?: string; claims?: Record<string, unknown> }): Promise<Reply> {
    return this.send(await this.agentSigned(agent, options));
  }

  /** The signed request of {@link asAgent} (its `signature-key` header carries the raw Agent Token). */
  async agentSigned(agent: Agent, options: { body?: unknown; path?: string; claims?: Record<string, unknown> }): Promise<TestRequest> {
    const now = Math.floor(Date.now() / 1000);
    const body = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    const request = await agentRequest({
      agentKey: agent.key,
      signedUrl: testBaseUrl,
      created: created(),
      nonce: randomBytes(12).toString('base64url'),
      tokenClaims: { sub: agent.id, iat: now - 10, exp: now + 600, ...(agent.provider !== undefined ? { iss: agent.provider.issuer } : {}), ...options.claims },
      ...(agent.provider !== undefined ? { providerJwk: agent.provider.jwk } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
    });
    return request;
  }

  async asPrincipal(key: TestKey, options: { body?: unknown; rawBody?: string; path?: string }): Promise<Reply> {
    const body = options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
    return this.send(
      signedRequest({ key, signatureKey: hwkSignatureKey(key), signedUrl: testBaseUrl, created: created(),
      nonce: randomBytes(12).toString('base64url'), ...(body !== undefined ? { body } : {}), ...(options.path !== undefined ? { path: options.path } : {}) }),
    );
  }

  /** Proposal → approval by the owning person → poll; returns the Mission Reference digest and the pending path. */
  async approvedMission(agent: Agent, options: { owner?: TestKey; expiresAt?: string; description?: string } = {}): Promise<{ s256: string; mission: string; pendingPath: string; pendingId: string }> {
    const proposed = await this.asAgent(agent, { body: { description: options.description ?? 'Reconcile invoices', tools: ['invoices.read'] } });
    expect(proposed.status).toBe(202);
    const location = String(proposed.headers['location']);
    const pendingId = location.split('/').pop()!;
    const approved = await this.asPrincipal(options.owner ?? alice, {
      path: '/mission/approvals',
      body: { pending_id: pendingId, decision: 'approve', ...(options.expiresAt !== undefined ? { expires_at: options.expiresAt } : {}) },
    });
    expect(approved.status).toBe(200);
    const pendingPath = location.slice(testBaseUrl.length);
    const polled = await this.asAgent(agent, { path: pendingPath });
    expect(polled.status).toBe(200);
    return { s256: String(polled.json['s256']), mission: String(polled.json['mission']), pendingPath, pendingId };
  }
}

export async function events(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  const read: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) read.push(event);
  return read;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}

/**
 * Spec 5.9 (same header set): the header set of a reply with its values, except `Date` and the per-request
 * correlation id `X-Request-Id` (random for every request, so it carries nothing about the mission); both
 * names must be present.
 */
export function headersExceptDateAndRequestId(reply: Reply): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...reply.headers };
  expect(Object.keys(copy)).toEqual(expect.arrayContaining(['date', 'x-request-id']));
  delete copy['date'];
  copy['x-request-id'] = '<per request>';
  return copy;
}
