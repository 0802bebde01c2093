// Integration spec (real store + es-kit) inside a type:domain lib: the module-boundaries rule has no
// override for *.integration.spec.ts yet, so it is disabled for this one import only.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { AttachChild } from '../mission/mission.commands.js';
import { missionDecider } from '../mission/mission.decider.js';
import { missionIdFromBytes, missionStreamName } from '../mission/mission-id.js';
import { missionExists } from '../mission/mission.state.js';
import { at, CLIENT, createCommand, ISSUER, MISSION_ID, attachmentExtras } from '../testing/fixtures.js';
import { FanOutExceededError } from './child-attachment.errors.js';
import { activeChildCount } from './fan-out.js';

const T1 = at('2026-11-22T10:00:00.000Z');
const PARENT_SET: AuthoritySet = [
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 3 } } },
];
const context: CommandContext = { correlationId: 'corr-1', causationId: 'req-1', actor: CLIENT, now: T1 };
const stream = missionStreamName(MISSION_ID);

describe('DESIGN 2.4 "Serialization" with the embedded store: attachments are serialized through the parent stream', () => {
  let env: TempEmbeddedStore;
  beforeEach(async () => (env = await openTempEmbeddedStore('issuer-domain-children-')));
  afterEach(() => env.dispose());

  it('spec 2.4 rule 3, spec 8 max_children: 50 concurrent attaches against max_children 3 → exactly 3 attached, 47 FanOutExceededError', async () => {
    const create = createCommand({ authoritySet: PARENT_SET, authorityHash: authorityHash(ISSUER, PARENT_SET) });
    await handleCommand(env.store, stream, missionDecider, create, context, { hashChain: true });

    const childMissionId = (n: number): string => missionIdFromBytes(Uint8Array.from({ length: 16 }, (_, i) => (i === 0 ? n + 1 : 7)));
    const attach = (n: number): AttachChild => ({
      type: 'AttachChild',
      childMissionId: childMissionId(n),
      childClientId: `child-agent-${n}`,
      parentEntryIndexes: [0],
      actor: CLIENT,
      now: T1,
      ...attachmentExtras(childMissionId(n), n, T1, PARENT_SET).command,
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, n) => handleCommand(env.store, stream, missionDecider, attach(n), context, { hashChain: true, maxAttempts: 100 })),
    );

    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    expect(rejected).toHaveLength(47);
    for (const failure of rejected) expect(failure.reason).toBeInstanceOf(FanOutExceededError);

    const { state } = await aggregateStream(env.store, stream, missionDecider);
    expect(activeChildCount(state, 0)).toBe(3);
    expect(missionExists(state) && state.children.size).toBe(3);
    expect(missionExists(state) && state.version).toBe(1);
  });
});
