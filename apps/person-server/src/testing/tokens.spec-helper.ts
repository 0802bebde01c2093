import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { agentRequest } from './signed-request.spec-helper.js';
import type { Agent, PsClient, Reply } from './ps-http.spec-helper.js';
import type { FakeResource } from './fake-resource.js';
import { configWithResource, resourceToken } from './resource-tokens.js';
import { startPersonServer, testBaseUrl } from './run-person-server.js';

export interface PersonServerWithResource {
  readonly service: RunningService;
  readonly store: EventStore;
  stop(): Promise<void>;
}

/**
 * A Person Server whose demo resource revokes at `resource` (a fake on 127.0.0.1), with `overrides` merged
 * into the shipped demo config (e.g. `revocation`, `untracked_access_modes`); started fresh in a temp DATA_DIR.
 */
export async function startWithFakeResource(resource: FakeResource, label: string, overrides: Record<string, unknown>): Promise<PersonServerWithResource> {
  await resource.start('ok');
  const dataDir = mkdtempSync(join(tmpdir(), `ps-${label}-`));
  const configFile = join(dataDir, 'person-server.json');
  writeFileSync(configFile, JSON.stringify(configWithResource(resource.endpoint, overrides)));
  const { service } = await startPersonServer(dataDir, { CONFIG_FILE: configFile });
  return {
    service,
    store: service.app.get<EventStore>(EVENT_STORE),
    stop: async () => {
      await service.stop('tests finished');
      await resource.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `POST /token` signed by `agent` (its Agent Token may carry extra claims, e.g. `parent_agent`). */
export async function tokenRequest(ps: PsClient, agent: Agent, body: unknown, options: { rawBody?: string; tokenClaims?: Record<string, unknown> } = {}): Promise<Reply> {
  const now = Math.floor(Date.now() / 1000);
  const request = await agentRequest({
    agentKey: agent.key,
    signedUrl: testBaseUrl,
    path: '/token',
    created: now - Math.floor(Math.random() * 30),
    tokenClaims: { sub: agent.id, iat: now - 10, exp: now + 600, ...(agent.provider !== undefined ? { iss: agent.provider.issuer } : {}), ...options.tokenClaims },
    ...(agent.provider !== undefined ? { providerJwk: agent.provider.jwk } : {}),
    body: options.rawBody ?? JSON.stringify(body),
  });
  return ps.send(request);
}

/** `POST /token` by `agent` with a fresh Resource Token of the demo resource for `s256` (`extra` members added to the body). */
export async function authToken(ps: PsClient, agent: Agent, s256: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  const agentJkt = await calculateJwkThumbprint(agent.key.publicJwk, 'sha256');
  const rt = await resourceToken({ agent: agent.id, agentJkt, missionS256: s256, audience: testBaseUrl, scope: 'files.read' });
  return tokenRequest(ps, agent, { resource_token: rt, ...extra });
}
