import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { EventStore, JsonObject } from '@mission/event-store';
import { aggregateStream, handleCommand } from '@mission/es-kit';
import {
  authorityHash,
  childEvidenceStreamName,
  grantIdFromBytes,
  missionDecider,
  missionExists,
  missionIdFromBytes,
  missionStreamName,
  parseAuthorizationDetails,
  type AuthoritySet,
  type ChildEvidence,
  type MissionCommand,
  type ParentLink,
} from '@mission/issuer-domain';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { demoClient, postForm } from './demo-clients.js';
import { startIssuer, testBaseUrl } from './run-issuer.js';

/**
 * One issuer per spec file and the missions the Child Mission e2e specs seed into its store through the deciders
 * (roots as approval makes them, children as creation makes them, denied evidence), with the HTTP helpers they call
 * (e2e/missions.children.*.e2e.spec.ts).
 */
let dataDir: string | undefined;
let running: RunningService | undefined;

/** The issuer of this spec file (started by useChildMissionsIssuer's beforeAll). */
export function issuerService(): RunningService {
  if (running === undefined) throw new Error('the issuer starts in beforeAll: call useChildMissionsIssuer() at the top of the spec file');
  return running;
}
export const issuerStore = (): EventStore => issuerService().app.get(EVENT_STORE);
export const post = (path: string, form: Record<string, string>) => postForm(issuerService().listenUrl, path, form);
export const as = async (clientId: string, path: string, form: Record<string, string>) => post(path, { ...(await (await demoClient(clientId)).assertion()), ...form });

/** Starts one issuer on a fresh data dir for the calling spec file, and stops it after its last test. */
export function useChildMissionsIssuer(): void {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'issuer-missions-children-'));
    ({ service: running } = await startIssuer(dataDir));
  });
  afterAll(async () => {
    await running?.stop('tests finished');
    running = undefined;
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });
}

/**
 * Stops this spec file's issuer and starts it again on the same DATA_DIR; `whileStopped` runs in between (with the
 * DATA_DIR) to change what the next start finds.
 */
export async function restartIssuer(whileStopped?: (dataDir: string) => void): Promise<void> {
  if (dataDir === undefined) throw new Error('the issuer starts in beforeAll: call useChildMissionsIssuer() at the top of the spec file');
  await issuerService().stop('restart');
  running = undefined;
  whileStopped?.(dataDir);
  ({ service: running } = await startIssuer(dataDir));
}

export const ROOT_SET: AuthoritySet = parseAuthorizationDetails([
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 3, max_child_depth: 3 } } },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/ledger', actions: ['ledger.read'] },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/files', actions: ['files.read'], delegation: { children: {} } },
]);
/** A child that may itself have children (its entry 0 carries `children`). */
export const DELEGABLE_CHILD_SET: AuthoritySet = parseAuthorizationDetails([
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 2, max_child_depth: 2 } } },
]);
export const LEAF_SET: AuthoritySet = parseAuthorizationDetails([{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'] }]);

export async function decide(missionId: string, command: MissionCommand, clientId: string): Promise<void> {
  const actor = { id: clientId, role: 'client' };
  await handleCommand(issuerStore(), missionStreamName(missionId), missionDecider, command, { correlationId: randomUUID(), causationId: 'test-seed', actor, now: new Date() }, { hashChain: true });
}

/** A root mission, as approval creates it. */
export async function rootMission(clientId = 'demo-agent', set: AuthoritySet = ROOT_SET): Promise<string> {
  const missionId = missionIdFromBytes(randomBytes(16));
  const now = new Date();
  const expiresAt = new Date(now.getTime() + 3_600_000);
  await decide(missionId, {
    type: 'CreateMission', missionId, issuer: testBaseUrl, clientId, authoritySet: set, authorityHash: authorityHash(testBaseUrl, set),
    intent: { goal: 'Reconcile invoices', resources: ['https://erp.example.com/invoices'], expires_at: expiresAt.toISOString() },
    expiresAt, approvedBy: { id: 'alice', role: 'person' }, now,
  }, clientId);
  return missionId;
}

export function createdEvidence(parentId: string, parentHash: string, childId: string, set: AuthoritySet, clientId: string, createdAt: Date, entries: readonly number[]): ChildEvidence {
  return {
    evidence_id: `evd_${randomUUID()}`,
    parent: { id: parentId, issuer: testBaseUrl, authority_hash: parentHash },
    child: { id: childId, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, set) },
    child_actor: { sub: clientId, sub_profile: 'ai_agent' },
    requested_by: 'demo-agent',
    attenuation: { result: 'strict_subset', checks: ['parent_active', 'child_actor', 'strict_subset'], justified_by: [...entries] },
    fanout: entries.map((entry) => ({ parent_entry: entry, active_children: 1 })),
    cascade_mode: 'immediate',
    decision: 'created',
    approval_basis: 'policy:allow',
    created_at: createdAt.toISOString(),
  };
}

/**
 * A Child Mission as creation makes it (DESIGN 2.4): attached on the parent's stream with its `created`
 * evidence, then created with its `parent` member (spec 2.3).
 */
export async function childMission(parentId: string, options: { clientId?: string; set?: AuthoritySet; entries?: number[]; lifetimeMs?: number; createdAt?: Date } = {}): Promise<string> {
  const { state: parent } = await aggregateStream(issuerStore(), missionStreamName(parentId), missionDecider);
  if (!missionExists(parent)) throw new Error('no parent');
  const childId = missionIdFromBytes(randomBytes(16));
  // Spec 1 item 4: a child actor is never its parent's client (a grandchild gets a third agent).
  const clientId = options.clientId ?? (parent.clientId === 'demo-subagent' ? 'demo-worker' : 'demo-subagent');
  const entries = options.entries ?? [0];
  // By default each child entry is its justifying parent entry without `delegation` (a strict subset).
  const set = options.set ?? entries.map((index) => Object.fromEntries(Object.entries(parent.authoritySet[index]!).filter(([member]) => member !== 'delegation')) as unknown as AuthoritySet[number]);
  const now = options.createdAt ?? new Date();
  const expiresAt = new Date(Math.min(Date.now() + (options.lifetimeMs ?? 1_800_000), parent.expiresAt.getTime()));
  await decide(parentId, {
    type: 'AttachChild', childMissionId: childId, childClientId: clientId, parentEntryIndexes: entries, actor: { id: parent.clientId, role: 'client' }, now,
    grantId: grantIdFromBytes(randomBytes(16)), grantExpiresAt: new Date(Date.now() + 3_600_000), cascadeMode: 'immediate',
    evidence: createdEvidence(parentId, parent.authorityHash, childId, set, clientId, now, entries),
    child: { authoritySet: set, expiresAt, intentResources: ['https://erp.example.com/invoices'].filter((resource) => parent.intent.resources.includes(resource)) },
  }, parent.clientId);
  const link: ParentLink = {
    id: parentId, issuer: testBaseUrl, authority_hash: parent.authorityHash, depth: (parent.parent?.depth ?? 0) + 1,
    delegation_id: `dlg_${childId}`, cascade_mode: 'immediate', created_at: now.toISOString(),
  };
  await decide(childId, {
    type: 'CreateMission', missionId: childId, issuer: testBaseUrl, clientId, authoritySet: set, authorityHash: authorityHash(testBaseUrl, set),
    intent: { goal: 'Read invoices', resources: ['https://erp.example.com/invoices'].filter((resource) => parent.intent.resources.includes(resource)), expires_at: expiresAt.toISOString() },
    expiresAt, approvedBy: { id: 'issuer:child-creation-policy', role: 'policy' }, now: new Date(), parent: link,
    parentBounds: { expiresAt: parent.expiresAt, intentResources: parent.intent.resources },
  }, clientId);
  return childId;
}

/** A `denied` Child Evidence record on `evidence-<parent>` (spec 2.6, decision 0009). */
export async function deniedEvidence(parentId: string, createdAt: Date): Promise<string> {
  const evidenceId = `evd_${randomUUID()}`;
  const evidence: ChildEvidence = {
    evidence_id: evidenceId, parent: { id: parentId, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, ROOT_SET) },
    child_actor: { sub: 'demo-consent-agent' }, requested_by: 'demo-agent', attenuation: { result: 'not_evaluated', checks: ['parent_active', 'child_actor'] },
    cascade_mode: 'immediate', decision: 'denied', denial_reason: 'child_actor_not_allowed', created_at: createdAt.toISOString(),
  };
  await issuerStore().appendToStream(childEvidenceStreamName(parentId), [{ type: 'ChildCreationDenied', data: { parent_mission_id: parentId, evidence } as unknown as JsonObject }]);
  return evidenceId;
}

export const lifecycle = async (missionId: string, operation: string, clientId = 'demo-agent') =>
  as(clientId, '/missions/lifecycle', { mission_id: missionId, operation, reason: `test ${operation}` });

export async function status(missionId: string, clientId = 'demo-agent'): Promise<Record<string, unknown>> {
  const reply = await as(clientId, '/missions/status', { mission_id: missionId });
  expect(reply.status).toBe(200);
  const { payload } = await jwtVerify(await reply.text(), createRemoteJWKSet(new URL(`${issuerService().listenUrl}/jwks`)), { issuer: testBaseUrl, audience: clientId });
  return payload['mission'] as Record<string, unknown>;
}
