import { newAgent } from '../testing/ps-http.spec-helper.js';
import { approvedMission, asAgent, startMissionsServer } from '../testing/missions.spec-helper.js';

/** Spec 4 over HTTP: what every management request must be (strict JSON, a known operation, a well-formed reference). */
startMissionsServer();

describe('spec 4 request rules', () => {
  it('spec 4: a duplicate JSON member name → invalid_request', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { rawBody: `{"operation":"status","mission_s256":"${s256}","mission_s256":"${s256}"}` });
    expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
    expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('spec 4: an unknown operation → unsupported_operation', async () => {
    const agent = await newAgent();
    const reply = await asAgent(agent, { body: { operation: 'pause', mission_s256: 'x' } });
    expect([reply.status, reply.json['error']]).toEqual([400, 'unsupported_operation']);
  });

  it('spec 2.1, 5.9: a malformed mission_s256 → invalid_mission_reference before any lookup', async () => {
    const agent = await newAgent();
    for (const reference of ['https://ps.example/missions/1', 'abc', 42]) {
      const reply = await asAgent(agent, { body: { operation: 'status', mission_s256: reference } });
      expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_mission_reference']);
    }
  });
});
