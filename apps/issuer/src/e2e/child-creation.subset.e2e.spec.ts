import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { obtainRootMission, requestChild, type MissionHolder } from '../testing/mission-flows.js';
import { startIssuer } from '../testing/run-issuer.js';
import { deniedEvidenceOf } from '../testing/denied-evidence.js';

/**
 * Issue 11 defects 2 and 3 over HTTP, against the shipped demo config: a child entry that claims what
 * the parent entry does not state, or a constraint value no rule proves narrower, is refused at /par
 * with `invalid_request` / `not_strict_subset` (spec 2.5 rule 7, spec 7), and the refusal is evidence.
 */
let dataDir: string;
let service: RunningService;
let store: EventStore;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-subset-'));
  ({ service } = await startIssuer(dataDir));
  store = service.app.get(EVENT_STORE);
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const INVOICES = 'https://erp.example.com/invoices';
const CHILD_ACTOR = { sub: 'demo-subagent' };
const entry = (extra: Record<string, unknown> = {}) => ({ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], ...extra });

const rootMission = (details: unknown): Promise<MissionHolder> => obtainRootMission(service.listenUrl, { details });

async function expectNotStrictSubset(root: MissionHolder, details: unknown): Promise<void> {
  const response = await requestChild(service.listenUrl, root, { childActor: CHILD_ACTOR, details });
  const body = (await response.json()) as Record<string, unknown>;
  expect({ status: response.status, error: body['error'], mission_denial_reason: body['mission_denial_reason'] }).toEqual({
    status: 400,
    error: 'invalid_request',
    mission_denial_reason: 'not_strict_subset',
  });
}

async function deniedReasons(root: MissionHolder): Promise<unknown[]> {
  return (await deniedEvidenceOf(store, root.tokens.mission_id)).map((evidence) => [evidence.decision, evidence.denial_reason]);
}

describe('strict subset over HTTP (spec 2.5, issue 11)', () => {
  it('spec 2.5 rules 2, 3, 7 (issue 11 defect 2): a parent delegation without max_depth / allowed_delegates admits no child that states them', async () => {
    const root = await rootMission([entry({ delegation: { children: {} } })]);
    await expectNotStrictSubset(root, [entry({ delegation: { max_depth: 99 } })]);
    await expectNotStrictSubset(root, [entry({ delegation: { max_depth: 0 } })]);
    await expectNotStrictSubset(root, [entry({ delegation: { allowed_delegates: [{ sub_profile: 'ai_agent' }] } })]);
    expect(await deniedReasons(root)).toEqual(Array.from({ length: 3 }, () => ['denied', 'not_strict_subset']));
    // The same entry without the claimed delegation is a strict subset: the refusals were about delegation only.
    expect((await requestChild(service.listenUrl, root, { childActor: CHILD_ACTOR, details: [entry()] })).status).toBe(201);
  });

  it('spec 2.5 rules 6, 7 (issue 11 defect 3): data_classification "restricted" → "public" is refused; no ordering of labels is assumed', async () => {
    const root = await rootMission([entry({ constraints: { data_classification: 'restricted' }, delegation: { children: {} } })]);
    await expectNotStrictSubset(root, [entry({ constraints: { data_classification: 'public' } })]);
    await expectNotStrictSubset(root, [entry({ constraints: { data_classification: ['restricted'] } })]);
    expect(await deniedReasons(root)).toEqual([['denied', 'not_strict_subset'], ['denied', 'not_strict_subset']]);
    // The same label is a strict subset (spec 2.5 rule 1: equality permitted).
    expect((await requestChild(service.listenUrl, root, { childActor: CHILD_ACTOR, details: [entry({ constraints: { data_classification: 'restricted' } })] })).status).toBe(201);
  });
});
