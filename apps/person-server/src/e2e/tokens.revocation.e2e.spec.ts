import { decodeJwt } from 'jose';
import { verifyHashChain } from '@mission/es-kit';
import { tokensStreamName } from '@mission/ps-domain';
import { eventually, events, newAgent, ops } from '../testing/ps-http.spec-helper.js';
import { testBaseUrl } from '../testing/run-person-server.js';
import { authToken, ps, resource, REVOCATION, startTokensServer, store, terminate } from '../testing/tokens-e2e.spec-helper.js';

/** Spec 4.4, 2.5 over HTTP: after terminate the PS revokes every tracked token at its resource and reports token_residual. */
startTokensServer();

describe('spec 4.4 / 2.5: revocation after termination and token_residual', () => {
  afterEach(async () => resource.setMode('ok'));

  it('confirms every tracked token at once against a resource that answers 200, signed by the PS', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const jtis: string[] = [];
    for (let index = 0; index < 3; index++) jtis.push(String(decodeJwt(String((await authToken(agent, s256)).json['auth_token'])).jti));
    const reply = await terminate(s256);
    expect(reply.status).toBe(200);
    expect(reply.json['token_residual']).toEqual({ tracked: 3, revocation_attempted: 3, revocation_confirmed: 3, complete: false });
    for (const jti of jtis) expect(resource.callsFor(jti)).toBe(1);
    const call = resource.calls.find((entry) => entry.jti === jtis[0])!;
    expect(call.iss).toBe(testBaseUrl);
    expect(call.signed).toBe(true);
    expect(call.signatureKey).toMatch(/^sig=jwks_uri;id="http:\/\/person-server\.test";dwk="aauth-person\.json";kid="/);
    const log = await events(store, tokensStreamName(s256));
    expect(log.filter((event) => event.type === 'TokenRevocationAttempted')).toHaveLength(3);
    expect(log.filter((event) => event.type === 'TokenRevocationConfirmed')).toHaveLength(3);
    expect((await verifyHashChain(store, tokensStreamName(s256))).ok).toBe(true);
  });

  it('a failing resource that recovers: unconfirmed with residual_until first, confirmed by a retry later, never twice', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const token = decodeJwt(String((await authToken(agent, s256)).json['auth_token']));
    await resource.setMode('fail');
    const reply = await terminate(s256);
    expect(reply.json['token_residual']).toEqual({
      tracked: 1,
      revocation_attempted: 1,
      revocation_confirmed: 0,
      residual_until: new Date(token.exp! * 1000).toISOString(),
      complete: false,
    });
    await resource.setMode('ok');
    await eventually(async () => (await events(store, tokensStreamName(s256))).some((event) => event.type === 'TokenRevocationConfirmed'));
    const log = await events(store, tokensStreamName(s256));
    expect(log.filter((event) => event.type === 'TokenRevocationFailed')[0]?.data).toMatchObject({ outcome: 'server_error', http_status: 500, attempt: 1 });
    expect(log.filter((event) => event.type === 'TokenRevocationConfirmed')).toHaveLength(1);
    // A later authorized terminate returns the terminal status with the residual as it is now.
    const late = await terminate(s256, 'revoked', ops);
    expect(late.json['token_residual']).toEqual({ tracked: 1, revocation_attempted: 1, revocation_confirmed: 1, complete: false });
  });

  it('a resource that never answers: timeouts stay unconfirmed, retries are bounded, the residual stays reported', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const token = decodeJwt(String((await authToken(agent, s256)).json['auth_token']));
    await resource.setMode('hang');
    const started = Date.now();
    const reply = await terminate(s256);
    // Not held up by the resource: terminate answers once the call's timeout gave the token its first answer, before
    // wait_ms runs out (timeout_ms is 1 s; the rest of wait_ms is the margin a slow, loaded machine needs for the request).
    expect(Date.now() - started).toBeLessThan(REVOCATION.wait_ms);
    expect(reply.json['token_residual']).toMatchObject({ tracked: 1, revocation_confirmed: 0, residual_until: new Date(token.exp! * 1000).toISOString(), complete: false });
    // Three rounds of a 1 s timeout each, with back-off between: a generous deadline for a loaded machine.
    await eventually(async () => (await events(store, tokensStreamName(s256))).some((event) => event.type === 'TokenRevocationStopped'), 30_000);
    const log = await events(store, tokensStreamName(s256));
    const failures = log.filter((event) => event.type === 'TokenRevocationFailed');
    expect(failures.length).toBe(3);
    expect(failures.every((event) => event.data['outcome'] === 'timeout')).toBe(true);
    expect(log.find((event) => event.type === 'TokenRevocationStopped')?.data['reason']).toBe('attempts_exhausted');
    expect(resource.callsFor(String(token.jti))).toBe(3);
  }, 60_000);

  it('an unreachable endpoint (connection refused) stays unconfirmed as unreachable', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    await authToken(agent, s256);
    await resource.setMode('refuse');
    const reply = await terminate(s256);
    expect(reply.json['token_residual']).toMatchObject({ tracked: 1, revocation_attempted: 1, revocation_confirmed: 0 });
    const log = await events(store, tokensStreamName(s256));
    expect(log.find((event) => event.type === 'TokenRevocationFailed')?.data['outcome']).toBe('unreachable');
  });

  it('spec 4.2 step 3: termination commits even when revocation cannot proceed; status reads terminated at once', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    await authToken(agent, s256);
    await resource.setMode('hang');
    const reply = await terminate(s256);
    expect(reply.json['mission_status']).toBe('terminated');
    const status = await ps.asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json['mission_status']).toBe('terminated');
  });
});
