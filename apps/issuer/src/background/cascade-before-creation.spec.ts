import { randomBytes } from 'node:crypto';
import type { EventData, EventStore, StreamAppend } from '@mission/event-store';
import { collect, openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import {
  authorityHash, grantIdFromBytes, missionDecider, missionExists, missionIdFromBytes, missionStreamName, ParentNotActiveError,
  type AuthoritySet, type CreateMission, type MissionCommand,
} from '@mission/issuer-domain';
import { missionCascadeManager } from './cascade.process-manager.js';

/*
 * Spec 4.1 rule 1, 3.2 (decision 0021), the two races inside one step: the cascade (K) and the child's
 * creation (C) both write the child's stream, each at the revision it read, so whichever reads first and
 * appends second is refused and decides again on what the other wrote. Staged with a store whose append
 * runs the other writer first — no timers.
 */

const ISSUER = 'https://issuer.example';
const T0 = new Date('2026-11-22T10:00:00.000Z');
const EXPIRES_AT = new Date('2026-11-22T18:00:00.000Z');
const CLIENT = { id: 'agent-root', role: 'client' };
const ROOT_SET: AuthoritySet = [
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { max_depth: 1, children: { max_children: 2, max_child_depth: 1 } } },
];
const CHILD_SET: AuthoritySet = [{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'] }];
const context = (now = T0): CommandContext => ({ correlationId: 'corr-test', causationId: 'req-test', actor: CLIENT, now });

describe('spec 4.1 rule 1, 3.2 (decision 0021): the cascade and a creation meet on the child\'s stream', () => {
  let env: TempEmbeddedStore;
  beforeEach(async () => (env = await openTempEmbeddedStore('issuer-cascade-before-creation-')));
  afterEach(() => env.dispose());

  const decide = (store: EventStore, id: string, command: MissionCommand) => handleCommand(store, missionStreamName(id), missionDecider, command, context(command.now), { hashChain: true });

  /** A root with one attached child whose own stream is not written yet; the root is then revoked. */
  async function attachedChildOfRevokedRoot(): Promise<{ rootId: string; childId: string; create: CreateMission }> {
    const rootId = missionIdFromBytes(randomBytes(16));
    const childId = missionIdFromBytes(randomBytes(16));
    const rootHash = authorityHash(ISSUER, ROOT_SET);
    await decide(env.store, rootId, {
      type: 'CreateMission', missionId: rootId, issuer: ISSUER, clientId: CLIENT.id, authoritySet: ROOT_SET, authorityHash: rootHash,
      intent: { goal: 'Reconcile invoices', resources: [], expires_at: EXPIRES_AT.toISOString() }, expiresAt: EXPIRES_AT, approvedBy: { id: 'alice', role: 'person' }, now: T0,
    });
    await decide(env.store, rootId, {
      type: 'AttachChild', childMissionId: childId, childClientId: 'child-agent', parentEntryIndexes: [0], actor: CLIENT, now: T0,
      grantId: grantIdFromBytes(randomBytes(16)), grantExpiresAt: new Date(T0.getTime() + 60_000), cascadeMode: 'immediate',
      child: { authoritySet: CHILD_SET, expiresAt: EXPIRES_AT, intentResources: [] },
      evidence: {
        evidence_id: `evd_${childId}`, parent: { id: rootId, issuer: ISSUER, authority_hash: rootHash }, child: { id: childId, issuer: ISSUER, authority_hash: authorityHash(ISSUER, CHILD_SET) },
        child_actor: { sub: 'child-agent' }, requested_by: CLIENT.id, attenuation: { result: 'strict_subset', checks: ['strict_subset'] }, cascade_mode: 'immediate', decision: 'created', created_at: T0.toISOString(),
      },
    });
    await decide(env.store, rootId, { type: 'ChangeMissionLifecycle', operation: 'revoke', actor: CLIENT, reason: 'done', now: new Date(T0.getTime() + 1000) });
    const create: CreateMission = {
      type: 'CreateMission', missionId: childId, issuer: ISSUER, clientId: 'child-agent', authoritySet: CHILD_SET, authorityHash: authorityHash(ISSUER, CHILD_SET),
      intent: { goal: 'Read invoices', resources: [], expires_at: EXPIRES_AT.toISOString() }, expiresAt: EXPIRES_AT, approvedBy: { id: 'policy:allow', role: 'policy' }, now: T0,
      parent: { id: rootId, issuer: ISSUER, authority_hash: rootHash, depth: 1, cascade_mode: 'immediate' },
      parentBounds: { expiresAt: EXPIRES_AT, intentResources: [] },
    };
    return { rootId, childId, create };
  }

  /** `store`, except that the first append to `stream` first lets `other` run to the end. */
  function letOtherWriterFirst(stream: string, other: () => Promise<unknown>): EventStore {
    let done = false;
    const first = async (): Promise<void> => {
      if (done) return;
      done = true;
      await other();
    };
    return Object.create(env.store, {
      appendToStream: {
        value: async (name: string, events: readonly EventData[], options: unknown) => {
          if (name === stream) await first();
          return env.store.appendToStream(name, events, options as never);
        },
      },
      appendToStreams: {
        value: async (appends: readonly StreamAppend[]) => {
          if (appends.some((append) => append.streamName === stream)) await first();
          return env.store.appendToStreams(appends);
        },
      },
    }) as EventStore;
  }

  const later = () => new Date(T0.getTime() + 2000);
  const perform = (store: EventStore, rootId: string) =>
    missionCascadeManager(store, later).perform({ key: rootId, payload: { mission_id: rootId }, attempt: 1 }, new AbortController().signal);

  it('spec 4.1 rule 1, 3.2: K reads no mission, C commits, K appends: K is refused, decides again and records MissionCascaded on the created child', async () => {
    const { rootId, childId, create } = await attachedChildOfRevokedRoot();
    await perform(letOtherWriterFirst(missionStreamName(childId), () => decide(env.store, childId, create)), rootId);

    const events = await collect(env.store.readStream(missionStreamName(childId)));
    expect(events.map((event) => event.type)).toEqual(['MissionCreated', 'MissionCascaded']);
    expect(events[1]!.data).toMatchObject({ state: 'cascaded', previous_state: 'active', trigger: { mission_id: rootId, state: 'revoked' }, effective_at: new Date(T0.getTime() + 1000).toISOString() });
  });

  it('spec 4.1 rule 1, 3.2: C reads no mission, K marks the stream, C appends: C is refused and, deciding again, gets ParentNotActiveError (parent_not_active)', async () => {
    const { rootId, childId, create } = await attachedChildOfRevokedRoot();
    const racing = letOtherWriterFirst(missionStreamName(childId), () => perform(env.store, rootId));
    await expect(handleCommand(racing, missionStreamName(childId), missionDecider, create, context(), { hashChain: true })).rejects.toBeInstanceOf(ParentNotActiveError);

    expect((await collect(env.store.readStream(missionStreamName(childId)))).map((event) => event.type)).toEqual(['MissionCascadedBeforeCreation']);
    const { state } = await aggregateStream(env.store, missionStreamName(childId), missionDecider);
    expect(missionExists(state)).toBe(false);
  });
});
