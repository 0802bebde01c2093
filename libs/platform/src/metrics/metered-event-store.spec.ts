import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore, WrongExpectedRevisionError, type EventData, type EventStore } from '@mission/event-store';
import { MeteredEventStore } from './metered-event-store.js';
import { metricSample } from '../testing/metric-sample.js';
import { ServiceMetrics } from './service-metrics.js';

describe('MeteredEventStore (ADR 0046)', () => {
  let dir: string;
  let inner: EventStore;
  let metrics: ServiceMetrics;
  let observed: [string, string[]][];
  let store: MeteredEventStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'metered-store-'));
    inner = await EmbeddedEventStore.open({ dataDir: dir });
    metrics = new ServiceMetrics('test');
    observed = [];
    store = new MeteredEventStore(inner, metrics, (stream, events) => observed.push([stream, events.map((event) => event.type)]));
  });
  afterEach(async () => {
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const event = (type: string): EventData => ({ type, data: {} });

  it('times each committed append as ok and tells the observer what was committed', async () => {
    await store.appendToStream('mission-a', [event('MissionCreated')], { expectedRevision: 'no_stream' });
    expect(await metricSample(metrics.registry, 'event_store_append_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(observed).toEqual([['mission-a', ['MissionCreated']]]);
  });

  it('a refused append is timed as refused and never counted as a domain fact', async () => {
    await store.appendToStream('mission-a', [event('MissionCreated')]);
    await expect(store.appendToStream('mission-a', [event('MissionCreated')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await metricSample(metrics.registry, 'event_store_append_seconds_count', { outcome: 'refused' })).toBe(1);
    expect(observed).toEqual([['mission-a', ['MissionCreated']]]);
  });

  it('appendToStreams: only the streams whose append committed reach the observer', async () => {
    await store.appendToStream('mission-b', [event('MissionCreated')]);
    const outcomes = await store.appendToStreams([
      { streamName: 'mission-a', events: [event('MissionCreated')], expectedRevision: 'no_stream' },
      { streamName: 'mission-b', events: [event('MissionCreated')], expectedRevision: 'no_stream' },
    ]);
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false]);
    expect(observed).toEqual([['mission-b', ['MissionCreated']], ['mission-a', ['MissionCreated']]]);
    expect(await metricSample(metrics.registry, 'event_store_append_seconds_count', { outcome: 'refused' })).toBe(1);
  });

  it('an observer that throws does not fail the committed append', async () => {
    const errors: unknown[] = [];
    const throwing = new MeteredEventStore(inner, metrics, () => { throw new Error('bug in counting'); }, (error) => errors.push(error));
    await expect(throwing.appendToStream('mission-c', [event('MissionCreated')])).resolves.toMatchObject({ nextExpectedRevision: 0n });
    expect(errors).toHaveLength(1);
  });
});

describe('ServiceMetrics: projection lag and process manager backlog', () => {
  it('reads the watched runners at scrape time', async () => {
    const metrics = new ServiceMetrics('test');
    let lag = 7;
    const open = new Map<string, unknown>([['a', {}]]);
    metrics.watchProjection({ name: 'mission_status', lagEvents: async () => lag });
    metrics.watchProcessManager({ name: 'mission_cascade', openWork: () => open });
    expect(await metricSample(metrics.registry, 'projection_lag_events', { projection: 'mission_status' })).toBe(7);
    expect(await metricSample(metrics.registry, 'process_manager_backlog', { manager: 'mission_cascade' })).toBe(1);
    lag = 0;
    open.set('b', {});
    expect(await metricSample(metrics.registry, 'projection_lag_events', { projection: 'mission_status' })).toBe(0);
    expect(await metricSample(metrics.registry, 'process_manager_backlog', { manager: 'mission_cascade' })).toBe(2);
  });
});
