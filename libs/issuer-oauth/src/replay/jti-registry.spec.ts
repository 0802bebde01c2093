import { EventStoreUnavailableError, isValidStreamName, type EventStore } from '@mission/event-store';
import { ManualClock, tempStore } from '../testing.spec-helper.js';
import { EventStoreJtiRegistry, jtiStreamName } from './event-store-jti-registry.js';
import { InMemoryJtiRegistry } from './in-memory-jti-registry.js';
import type { SingleUse } from './jti-registry.js';

const use = (overrides: Partial<SingleUse> = {}): SingleUse => ({
  kind: 'dpop_proof',
  scope: 'jkt-1',
  jti: 'jti-1',
  expiresAt: new Date('2026-11-22T10:01:00Z'),
  ...overrides,
});

describe('jtiStreamName', () => {
  it('DESIGN 1: <category>-<id> with a category free of dashes, fixed length whatever the jti holds', () => {
    const name = jtiStreamName('client_assertion', 'agent-a', 'x\n'.repeat(200));
    expect(name).toMatch(/^clientjti-[A-Za-z0-9_-]{43}$/);
    expect(isValidStreamName(name)).toBe(true);
    expect(jtiStreamName('dpop_proof', 'k', 'j')).toMatch(/^dpopjti-/);
  });

  it('is unambiguous: (scope, jti) pairs that concatenate alike get different streams', () => {
    expect(jtiStreamName('dpop_proof', 'ab', 'c')).not.toBe(jtiStreamName('dpop_proof', 'a', 'bc'));
  });
});

describe('EventStoreJtiRegistry (no_stream append)', () => {
  let handle: Awaited<ReturnType<typeof tempStore>>;
  let registry: EventStoreJtiRegistry;
  beforeEach(async () => {
    handle = await tempStore();
    registry = new EventStoreJtiRegistry(handle.store, new ManualClock());
  });
  afterEach(async () => {
    await handle.dispose();
  });

  it('RFC 9449 §11.1: first use wins, every later use is a replay', async () => {
    expect(await registry.use(use())).toBe(true);
    expect(await registry.use(use())).toBe(false);
    expect(await registry.use(use({ kind: 'client_assertion' }))).toBe(true);
  });

  it('a tombstoned use stream (a clean-up of expired uses) still counts as used', async () => {
    await registry.use(use());
    await handle.store.tombstoneStream(jtiStreamName('dpop_proof', 'jkt-1', 'jti-1'));
    expect(await registry.use(use())).toBe(false);
  });

  it('store failures are not mistaken for replays (the request fails, it is not refused as a replay)', async () => {
    const down = { appendToStream: () => Promise.reject(new EventStoreUnavailableError('store down')) } as unknown as EventStore;
    await expect(new EventStoreJtiRegistry(down, new ManualClock()).use(use())).rejects.toBeInstanceOf(EventStoreUnavailableError);
  });
});

describe('InMemoryJtiRegistry (one replica only)', () => {
  it('RFC 9449 §11.1: refuses a replay while the use is remembered', async () => {
    const registry = new InMemoryJtiRegistry(new ManualClock());
    expect(await registry.use(use())).toBe(true);
    expect(await registry.use(use())).toBe(false);
    expect(await registry.use(use({ scope: 'jkt-2' }))).toBe(true);
  });

  it('forgets expired uses when it sweeps', async () => {
    const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
    const registry = new InMemoryJtiRegistry(clock, 2);
    await registry.use(use({ jti: 'a' }));
    clock.advance(120);
    await registry.use(use({ jti: 'b', expiresAt: new Date('2026-11-22T10:05:00Z') }));
    expect(registry.size).toBe(1);
  });
});
