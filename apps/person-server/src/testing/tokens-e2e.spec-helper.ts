import { createHash } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type { EventStore } from '@mission/event-store';
import type { RunningService } from '@mission/platform';
import type { TestKey } from './signed-request.spec-helper.js';
import { alice, ops, PsClient, requestId, type Agent, type Reply } from './ps-http.spec-helper.js';
import { FakeResource } from './fake-resource.js';
import { authToken as authTokenAs, startWithFakeResource, tokenRequest as tokenRequestAs, type PersonServerWithResource } from './tokens.spec-helper.js';

/**
 * The fixture of the `e2e/tokens.*.e2e.spec.ts` files: one Person Server per spec file (Jest loads this module
 * afresh for every file) whose demo resource revokes at a fake resource, and the requests those specs send to it.
 */
export const SUB_AGENT = 'aauth:helper@agents.example';
/** The agent config/person-server.json declares for the demo resource in `call_chain_agents` (ADR 0012). */
export const FILES_SERVICE = 'aauth:files-service@agents.example';
export const resource = new FakeResource();

/** The running service and its store of the current spec file; set by the `beforeAll` of {@link startTokensServer}. */
export let service: RunningService;
export let store: EventStore;
export const ps = new PsClient(() => service);

// wait_ms and timeout_ms are generous so that "immediate results appear in the terminate response" holds on a loaded
// CI machine (a 200 answer that misses a tight timeout would read as a failure);
// terminate stops waiting as soon as every live token has a first answer.
export const REVOCATION = { wait_ms: 5_000, max_attempts: 3, initial_delay_ms: 100, max_delay_ms: 300, timeout_ms: 1_000, lease_ms: 3_000, per_resource_per_second: 1_000, concurrency: 8 };

/** Starts the Person Server with the fake resource and {@link REVOCATION} before the file's tests and stops both after them. */
export function startTokensServer(): void {
  let server: PersonServerWithResource;
  beforeAll(async () => {
    server = await startWithFakeResource(resource, 'tokens', { revocation: REVOCATION });
    ({ service, store } = server);
  });

  afterAll(async () => server.stop());
}

export async function jktOf(key: TestKey): Promise<string> {
  return calculateJwkThumbprint(key.publicJwk, 'sha256');
}

export const tokenRequest = (agent: Agent, body: unknown, options: { rawBody?: string; tokenClaims?: Record<string, unknown> } = {}): Promise<Reply> =>
  tokenRequestAs(ps, agent, body, options);
export const authToken = (agent: Agent, s256: string, extra: Record<string, unknown> = {}): Promise<Reply> => authTokenAs(ps, agent, s256, extra);

export async function terminate(s256: string, reason = 'revoked', key = alice): Promise<Reply> {
  return ps.asPrincipal(key, { body: { operation: 'terminate', mission_s256: s256, reason, request_id: requestId(), ...(key === ops ? { purpose: 'test' } : {}) } });
}

/** A syntactically valid Mission Reference that no mission has. */
export function absentReference(label: string): string {
  return createHash('sha256').update(`absent ${label} ${Date.now()} ${Math.random()}`).digest('base64url');
}
