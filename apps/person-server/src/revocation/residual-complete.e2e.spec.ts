import { decodeJwt } from 'jose';
import type { EventStore } from '@mission/event-store';
import type { RunningService } from '@mission/platform';
import { missionStreamName, tokensStreamName } from '@mission/ps-domain';
import { alice, eventually, events, newAgent, ops, PsClient, requestId, type Agent, type Reply } from '../testing/ps-http.spec-helper.js';
import { FakeResource } from '../testing/fake-resource.js';
import { authToken as authTokenAs, startWithFakeResource, type PersonServerWithResource } from '../testing/tokens.spec-helper.js';

/**
 * Spec 2.5 `complete`, spec 4.4 rules 3 and 6 end to end: a deployment that declares no untracked access
 * mode (`untracked_access_modes: false`) reports `complete: true` once every Tracked Auth Token is
 * confirmed revoked — and not before. (With the default `true` it never does; see the tokens e2e.)
 */
const resource = new FakeResource();
let server: PersonServerWithResource;
let service: RunningService;
let store: EventStore;
const ps = new PsClient(() => service);

// wait_ms is generous so that immediate confirmations appear in the terminate response on a loaded machine;
// terminate stops waiting as soon as every live token has a first answer. Retries are quick for the recovery test.
const REVOCATION = { wait_ms: 5_000, max_attempts: 5, initial_delay_ms: 100, max_delay_ms: 300, timeout_ms: 1_000, lease_ms: 3_000, per_resource_per_second: 1_000, concurrency: 8 };

beforeAll(async () => {
  server = await startWithFakeResource(resource, 'residual-complete', { revocation: REVOCATION, untracked_access_modes: false });
  ({ service, store } = server);
});

afterAll(async () => server.stop());

/** `POST /token` by the owning agent for the demo resource; returns the Auth Token's claims. */
async function authToken(agent: Agent, s256: string): Promise<ReturnType<typeof decodeJwt>> {
  const reply = await authTokenAs(ps, agent, s256);
  expect(reply.status).toBe(200);
  return decodeJwt(String(reply.json['auth_token']));
}

async function terminate(s256: string, key = alice): Promise<Reply> {
  const reply = await ps.asPrincipal(key, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId(), ...(key === ops ? { purpose: 'residual check' } : {}) } });
  expect(reply.status).toBe(200);
  return reply;
}

describe('spec 2.5 token_residual.complete with no untracked access mode (spec 4.4 rule 6)', () => {
  it('spec 2.5, 4.4 rule 3: every tracked token confirmed at once → terminate reports complete: true without residual_until; a later terminate reports the same', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const claims = [await authToken(agent, s256), await authToken(agent, s256), await authToken(agent, s256)];

    const reply = await terminate(s256);
    expect(reply.json['token_residual']).toEqual({ tracked: 3, revocation_attempted: 3, revocation_confirmed: 3, complete: true });
    for (const token of claims) expect(resource.callsFor(String(token.jti))).toBe(1);

    // Spec 3 (terminated row): a later authorized terminate answers the terminal status with the residual as it is now.
    const late = await terminate(s256, ops);
    expect(late.json).toMatchObject({ mission_status: 'terminated', termination_reason: 'revoked', terminated_at: reply.json['terminated_at'] });
    expect(late.json['token_residual']).toEqual({ tracked: 3, revocation_attempted: 3, revocation_confirmed: 3, complete: true });
    // Spec 4.1 / 2.3: status has no token_residual member; it reads terminated.
    const status = await ps.asPrincipal(alice, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json).toMatchObject({ mission_status: 'terminated', termination_reason: 'revoked' });
    expect(status.json).not.toHaveProperty('token_residual');

    // Spec 2.8: MissionTerminated carries the token-impact summary of the three tokens (by count, never by identity).
    const terminated = (await events(store, missionStreamName(s256))).filter((event) => event.type === 'MissionTerminated');
    expect(terminated).toHaveLength(1);
    const latestExp = new Date(Math.max(...claims.map((token) => token.exp! * 1000))).toISOString();
    expect(terminated[0]!.data['token_impact']).toEqual({ tracked: 3, to_revoke: 3, residual_until: latestExp, tokens_sequence: 3 });
    expect(JSON.stringify(terminated[0]!.data)).not.toContain(String(claims[0]!.jti));
  });

  it('spec 2.5: a mission without tracked tokens terminates complete: true when the deployment declares no untracked access mode', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const reply = await terminate(s256);
    expect(reply.json['token_residual']).toEqual({ tracked: 0, revocation_attempted: 0, revocation_confirmed: 0, complete: true });
  });

  it('spec 2.5, 4.4 rule 3: complete stays false while a token is unconfirmed (residual_until reported) and turns true once a retry confirms it', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const token = await authToken(agent, s256);
    await resource.setMode('fail');
    try {
      const reply = await terminate(s256);
      expect(reply.json['token_residual']).toEqual({
        tracked: 1,
        revocation_attempted: 1,
        revocation_confirmed: 0,
        residual_until: new Date(token.exp! * 1000).toISOString(),
        complete: false,
      });
    } finally {
      await resource.setMode('ok');
    }
    await eventually(async () => (await events(store, tokensStreamName(s256))).some((event) => event.type === 'TokenRevocationConfirmed'));
    const late = await terminate(s256);
    expect(late.json['token_residual']).toEqual({ tracked: 1, revocation_attempted: 1, revocation_confirmed: 1, complete: true });
  });
});
