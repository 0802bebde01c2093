import { randomUUID } from 'node:crypto';
import { TOKEN_POLICIES } from '@mission/ps-domain';
import { callerKey, type AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { alice, ASSISTANT, newAgent, type Reply } from '../testing/ps-http.spec-helper.js';
import { approvedMission, asAgent, asPrincipal, events, service, startMissionsServer } from '../testing/missions.spec-helper.js';
import { testBaseUrl } from '../testing/run-person-server.js';
import { TokenLedger } from '../store/token-ledger.js';
import { TreeCursors } from '../use-cases/read-delegation-tree/tree-cursor.js';

/** Spec 4.3 over HTTP: the `delegation_tree` operation, its page size and its cursors. */
startMissionsServer();

describe('spec 4.3 delegation_tree', () => {
  it('spec 4.3, 2.7: the root node from verified data; an agent sees token identifiers of its own node only; DelegationTreeRead is logged', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256 } });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ mission_s256: s256, as_of: expect.any(String), nodes: [{ agent: ASSISTANT, relationship: 'root', tokens: [] }], complete: true });
    const byPerson = await asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: s256, max_results: 1 } });
    expect(byPerson.json['nodes']).toEqual([{ agent: ASSISTANT, relationship: 'root', tokens: [] }]);
    expect((await events(`psmission-${s256}`)).filter((event) => event.type === 'DelegationTreeRead')).toHaveLength(2);
  });

  it.each([0, 201, 1.5, '10', -1])('spec 4.3, DESIGN 3.3: max_results %p is invalid_request (default 50, maximum 200)', async (maxResults) => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256, max_results: maxResults } });
    expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
  });

  /**
   * Records `count` sub-agent Auth Tokens under `s256` through the app's own TokenLedger — the record
   * POST /token makes after verifying the agent and sub-agent tokens — so a page-size test needs no
   * hundreds of signed token requests. Returns the sub-agents in recording order (the tree's order).
   */
  async function seedSubAgents(s256: string, count: number): Promise<string[]> {
    const ledger = service.app.get(TokenLedger);
    const now = new Date();
    const context = { correlationId: randomUUID(), causationId: `test-seed:${s256}`, actor: { id: ASSISTANT, role: 'agent' }, now };
    const agents = Array.from({ length: count }, (_, index) => `aauth:helper-${String(index).padStart(3, '0')}@agents.example`);
    // Sent together, the records are group-committed (a few appends instead of one per token).
    await Promise.all(
      agents.map((agent, index) =>
        ledger.execute(
          s256,
          {
            type: 'RecordIssuedToken',
            approver: testBaseUrl,
            missionS256: s256,
            token: { iss: testBaseUrl, jti: `seed-${index}`, aud: 'https://files.example', exp: new Date(now.getTime() + 300_000), origin: 'issued', agent, relationship: 'sub_agent', parentAgent: ASSISTANT },
            actor: { id: ASSISTANT, role: 'agent' },
            policy: TOKEN_POLICIES.owningAgent,
            now,
          },
          context,
        ),
      ),
    );
    return agents;
  }

  /** Every page of the tree for `alice`, following `next_cursor` (with `max_results` when given). */
  async function allPages(s256: string, maxResults?: number): Promise<Reply[]> {
    const pages: Reply[] = [];
    let cursor: string | undefined;
    do {
      const page = await asPrincipal(alice, {
        body: { operation: 'delegation_tree', mission_s256: s256, ...(maxResults !== undefined ? { max_results: maxResults } : {}), ...(cursor !== undefined ? { cursor } : {}) },
      });
      expect(page.status).toBe(200);
      pages.push(page);
      cursor = page.json['next_cursor'] as string | undefined;
    } while (cursor !== undefined && pages.length < 20);
    return pages;
  }

  it('spec 4.3 rule 1, 8, DESIGN 3.3: without max_results a page holds the default 50 nodes when more exist; the cursor pages through all of them once', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const helpers = await seedSubAgents(s256, 120);

    const pages = await allPages(s256);
    expect(pages.map((page) => (page.json['nodes'] as unknown[]).length)).toEqual([50, 50, 21]);
    expect(pages.map((page) => page.json['complete'])).toEqual([false, false, true]);
    expect(pages.map((page) => typeof page.json['next_cursor'])).toEqual(['string', 'string', 'undefined']);
    const nodes = pages.flatMap((page) => page.json['nodes'] as { agent: string; relationship: string; parent_agent?: string }[]);
    expect(nodes[0]).toMatchObject({ agent: ASSISTANT, relationship: 'root' });
    expect(nodes.slice(1).map((node) => node.agent)).toEqual(helpers);
    expect(nodes.slice(1).every((node) => node.relationship === 'sub_agent' && node.parent_agent === ASSISTANT)).toBe(true);
    // Spec 6: one DelegationTreeRead per page, with the page's node count.
    const reads = (await events(`psmission-${s256}`)).filter((event) => event.type === 'DelegationTreeRead');
    expect(reads.map((event) => [event.data['node_count'], event.data['complete']])).toEqual([[50, false], [50, false], [21, true]]);
  });

  it('spec 4.3 rule 1, 8, DESIGN 3.3: max_results 200 (the documented maximum) is accepted and returns 200 nodes; the next page has the rest', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    await seedSubAgents(s256, 250);

    const pages = await allPages(s256, 200);
    expect(pages.map((page) => (page.json['nodes'] as unknown[]).length)).toEqual([200, 51]);
    expect(pages.map((page) => page.json['complete'])).toEqual([false, true]);
    const agents = pages.flatMap((page) => (page.json['nodes'] as { agent: string }[]).map((node) => node.agent));
    expect(new Set(agents).size).toBe(251);
  });

  it('spec 4.3 rule 1: a cursor works only for its caller and mission, unaltered and within 5 minutes; otherwise invalid_request', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const other = await approvedMission(agent, { description: 'Another mission' });
    const cursors = service.app.get(TreeCursors);
    const me: AuthenticatedCaller = { kind: 'agent', provider: 'https://agents.example', agent: ASSISTANT, agentJkt: 'x', tokenClaims: { iss: 'https://agents.example', sub: ASSISTANT, iat: 0, exp: 0 } };
    const scope = { callerKey: callerKey(me), missionS256: s256 };
    const now = new Date();

    const valid = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256, cursor: cursors.issue(scope, 1, now) } });
    expect(valid.status).toBe(200);
    expect(valid.json).toMatchObject({ nodes: [], complete: true });
    expect(valid.json).not.toHaveProperty('next_cursor');

    const cursor = cursors.issue(scope, 0, now);
    const [payload, mac] = cursor.split('.') as [string, string];
    const tampered = `${Buffer.from(JSON.stringify({ o: 0, e: 9_999_999_999 })).toString('base64url')}.${mac}`;
    const refusals = [
      tampered,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      cursors.issue({ callerKey: 'principal:alice', missionS256: s256 }, 0, now),
      cursors.issue({ ...scope, missionS256: other.s256 }, 0, now),
      cursors.issue(scope, 0, new Date(now.getTime() - 301_000)),
      'garbage',
    ];
    for (const bad of refusals) {
      const reply = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256, cursor: bad } });
      expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
    }
  });
});
