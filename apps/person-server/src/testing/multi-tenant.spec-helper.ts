import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { EventStore, RecordedEvent } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { SECURITY_AUDIT_STREAM, SecurityAudit } from '../abuse/security-audit.js';
import { agentToken, ALICE_KEY, BOB_KEY, freshKey, jwtSignatureKey, OPS_KEY, principalKey, PROVIDER, PROVIDER_KEY, signedRequest, type TestKey } from './signed-request.spec-helper.js';
import { PsClient, requestId, type Reply } from './ps-http.spec-helper.js';
import { FakeResource } from './fake-resource.js';
import { configWithResource, DEMO_RESOURCE, resourceToken } from './resource-tokens.js';
import { startPersonServer, testBaseUrl } from './run-person-server.js';
import { TerminationGates } from '../use-cases/terminate-mission/termination-gates.js';

/**
 * The attacker's fixture of issue 12: a Person Server with **two agent providers**, **two tenants** (each
 * with a person and an administrator), a **sub-agent**, and a resource (`files.example`) that **calls onwards
 * as an agent of the other tenant**. Tenant t1: alice (owns ASSISTANT), bob (owns RESEARCHER), ops (admin).
 * Tenant t2: carol (owns HELPER of the second provider), ops2 (admin). The resource's onward identity
 * FILES_SERVICE belongs to t2 (`tenant` on the resource, ADR 0019).
 */
export const OTHER_PROVIDER = 'https://agents.other';
export const ASSISTANT = 'aauth:assistant@agents.example';
export const RESEARCHER = 'aauth:researcher@agents.example';
export const SUB_AGENT = 'aauth:sub-assistant@agents.example';
export const HELPER = 'aauth:helper@agents.other';
export const FILES_SERVICE = 'aauth:files-service@agents.other';

export interface FixtureAgent {
  readonly id: string;
  readonly provider: string;
  readonly key: TestKey;
}

export interface Tenants {
  readonly service: RunningService;
  readonly store: EventStore;
  /** The service's DATA_DIR (the embedded store's file is `events.sqlite` in it). */
  readonly dataDir: string;
  readonly ps: MultiTenantClient;
  readonly gates: TerminationGates;
  readonly alice: TestKey;
  readonly bob: TestKey;
  readonly ops: TestKey;
  readonly carol: TestKey;
  readonly ops2: TestKey;
  /** Stops the service and starts it again on the same DATA_DIR and config; `whileStopped` runs in between. */
  restart(whileStopped?: () => void): Promise<void>;
  stop(): Promise<void>;
}

async function providerKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk, 'sha256'), alg: 'ES256', use: 'sig' };
}

function publicOnly(jwk: JWK): JWK {
  const copy = { ...jwk };
  delete copy.d;
  return copy;
}

/** Starts the two-tenant Person Server on a fresh DATA_DIR; `overrides` are merged into its config. */
export async function startTenants(label: string, overrides: Record<string, unknown> = {}): Promise<Tenants> {
  const resource = new FakeResource();
  await resource.start('ok');
  const otherProvider = await providerKey();
  const carol = await freshKey('ES256');
  const ops2 = await freshKey('ES256');
  const base = configWithResource(resource.endpoint);
  const principals = (base['principals'] as Record<string, unknown>[]).concat([
    { id: 'carol', role: 'person', jkt: await calculateJwkThumbprint(carol.publicJwk, 'sha256'), tenant: 't2', agents: [HELPER] },
    { id: 'ops2', role: 'admin', jkt: await calculateJwkThumbprint(ops2.publicJwk, 'sha256'), tenant: 't2' },
  ]);
  const providers = (base['agent_providers'] as Record<string, unknown>[]).concat([{ issuer: OTHER_PROVIDER, jwks: { keys: [publicOnly(otherProvider)] } }]);
  const resources = (base['resources'] as Record<string, unknown>[]).map((entry) =>
    entry['issuer'] === DEMO_RESOURCE ? { ...entry, call_chain_agents: [FILES_SERVICE], tenant: 't2' } : entry,
  );
  const config = {
    ...base,
    principals,
    agent_providers: providers,
    resources,
    revocation: { wait_ms: 2_000, max_attempts: 2, initial_delay_ms: 100, max_delay_ms: 200, timeout_ms: 1_000, lease_ms: 3_000, per_resource_per_second: 1_000, concurrency: 8 },
    ...overrides,
  };
  const dataDir = mkdtempSync(join(tmpdir(), `ps-${label}-`));
  const configFile = join(dataDir, 'person-server.json');
  writeFileSync(configFile, JSON.stringify(config));
  let { service } = await startPersonServer(dataDir, { CONFIG_FILE: configFile });
  return {
    get service() {
      return service;
    },
    get store() {
      return service.app.get<EventStore>(EVENT_STORE);
    },
    dataDir,
    ps: new MultiTenantClient(() => service, otherProvider),
    get gates() {
      return service.app.get(TerminationGates);
    },
    alice: principalKey(ALICE_KEY),
    bob: principalKey(BOB_KEY),
    ops: principalKey(OPS_KEY),
    carol,
    ops2,
    restart: async (whileStopped) => {
      await service.stop('restart test');
      whileStopped?.();
      ({ service } = await startPersonServer(dataDir, { CONFIG_FILE: configFile }));
    },
    stop: async () => {
      await service.stop('tests finished');
      await resource.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let tick = 0;
/** Every signature must be unique (replay cache); Ed25519 is deterministic, so vary `created` too. */
const created = (): number => Math.floor(Date.now() / 1000) - (tick++ % 40);

/** Signed requests of the fixture's agents (either provider) and principals. */
export class MultiTenantClient extends PsClient {
  constructor(
    service: () => RunningService,
    private readonly otherProviderKey: JWK,
  ) {
    super(service);
  }

  async agent(id: string): Promise<FixtureAgent> {
    return { id, provider: id.endsWith('@agents.other') ? OTHER_PROVIDER : PROVIDER, key: await freshKey() };
  }

  /** The agent's Agent Token from its own provider (`parent_agent` for a sub-agent). */
  async tokenOf(agent: FixtureAgent, claims: Record<string, unknown> = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return agentToken({
      agentKey: agent.key,
      ...(agent.provider === OTHER_PROVIDER ? { providerJwk: this.otherProviderKey } : { providerJwk: PROVIDER_KEY }),
      claims: { iss: agent.provider, sub: agent.id, iat: now - 10, exp: now + 600, ...claims },
    });
  }

  async signedBy(agent: FixtureAgent, options: { body?: unknown; path?: string }): Promise<Reply> {
    const body = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    return this.send(
      signedRequest({
        key: agent.key,
        signatureKey: jwtSignatureKey(await this.tokenOf(agent)),
        signedUrl: testBaseUrl,
        created: created(),
        nonce: randomBytes(12).toString('base64url'),
        ...(body !== undefined ? { body } : {}),
        ...(options.path !== undefined ? { path: options.path } : {}),
      }),
    );
  }

  /** Proposal by `agent` → approval by `owner` → poll. */
  async missionOf(agent: FixtureAgent, owner: TestKey, expiresAt?: string): Promise<string> {
    const proposed = await this.signedBy(agent, { body: { description: `Work of ${agent.id} ${randomBytes(4).toString('hex')}`, tools: ['files.read'] } });
    expect(proposed.status).toBe(202);
    const location = String(proposed.headers['location']);
    const approved = await this.asPrincipal(owner, { path: '/mission/approvals', body: { pending_id: location.split('/').pop(), decision: 'approve', ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) } });
    expect(approved.status).toBe(200);
    const polled = await this.signedBy(agent, { path: location.slice(testBaseUrl.length) });
    expect(polled.status).toBe(200);
    return String(polled.json['s256']);
  }

  /** `POST /token` by `caller` for `holder` (itself, or its sub-agent via `subagent_token`), or onwards with `upstream_token`. */
  async authToken(caller: FixtureAgent, s256: string, options: { subAgent?: FixtureAgent; upstreamToken?: string } = {}): Promise<Reply> {
    const holder = options.subAgent ?? caller;
    const rt = await resourceToken({ agent: holder.id, agentJkt: await calculateJwkThumbprint(holder.key.publicJwk, 'sha256'), missionS256: s256, audience: testBaseUrl, scope: 'files.read' });
    const body: Record<string, unknown> = { resource_token: rt };
    if (options.subAgent !== undefined) body['subagent_token'] = await this.tokenOf(options.subAgent, { parent_agent: caller.id });
    if (options.upstreamToken !== undefined) body['upstream_token'] = options.upstreamToken;
    return this.signedBy(caller, { path: '/token', body });
  }

  terminateBody(s256: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId(), ...extra };
  }
}

/**
 * The whole stage: t1's mission of ASSISTANT with a root token, a sub-agent token, and the resource calling
 * onwards as t2's FILES_SERVICE (a call_chain node of another tenant); plus t2's own mission of HELPER.
 */
export async function stage(t: Tenants): Promise<{ s256: string; otherS256: string; rootJti: string; subJti: string; foreignJti: string }> {
  const assistant = await t.ps.agent(ASSISTANT);
  const sub = await t.ps.agent(SUB_AGENT);
  const filesService = await t.ps.agent(FILES_SERVICE);
  const helper = await t.ps.agent(HELPER);
  const s256 = await t.ps.missionOf(assistant, t.alice);
  const otherS256 = await t.ps.missionOf(helper, t.carol);
  const root = await t.ps.authToken(assistant, s256);
  expect(root.status).toBe(200);
  const subToken = await t.ps.authToken(assistant, s256, { subAgent: sub });
  expect(subToken.status).toBe(200);
  const onwards = await t.ps.authToken(filesService, s256, { upstreamToken: String(root.json['auth_token']) });
  expect(onwards.status).toBe(200);
  const jti = (reply: Reply): string => String(JSON.parse(Buffer.from(String(reply.json['auth_token']).split('.')[1]!, 'base64url').toString('utf8')).jti);
  return { s256, otherS256, rootJti: jti(root), subJti: jti(subToken), foreignJti: jti(onwards) };
}

export async function streamEvents(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  const read: RecordedEvent[] = [];
  try {
    for await (const event of store.readStream(stream)) read.push(event);
  } catch {
    // a deleted stream reads as empty here
  }
  return read;
}

/** The security-audit events after the first `from` (appends run in the background: flushed first). */
export async function auditSince(t: Tenants, from: number): Promise<Record<string, unknown>[]> {
  await t.service.app.get(SecurityAudit).flush();
  return (await streamEvents(t.store, SECURITY_AUDIT_STREAM)).slice(from).map((event) => event.data);
}

export async function auditLength(t: Tenants): Promise<number> {
  await t.service.app.get(SecurityAudit).flush();
  return (await streamEvents(t.store, SECURITY_AUDIT_STREAM)).length;
}
