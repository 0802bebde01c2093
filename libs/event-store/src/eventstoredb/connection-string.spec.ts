import { EventStoreDBClient } from '@eventstore/db-client';
import { esdbConnectionString, EVENT_STORE_CONNECTION_STRING } from './connection-string.js';

describe('ADR 0053: kurrentdb:// connection strings (issue 18)', () => {
  it.each([
    ['kurrentdb://localhost:2113?tls=false', 'esdb://localhost:2113?tls=false'],
    ['kurrentdb+discover://admin:changeit@cluster.example:2113?tls=true', 'esdb+discover://admin:changeit@cluster.example:2113?tls=true'],
    ['KurrentDB://host:2113', 'esdb://host:2113'],
    ['kdb://a:2113,b:2113,c:2113?nodePreference=leader', 'esdb://a:2113,b:2113,c:2113?nodePreference=leader'],
    ['esdb://localhost:2113?tls=false', 'esdb://localhost:2113?tls=false'],
  ])('%s → %s, the rest kept byte for byte', (given, expected) => {
    expect(esdbConnectionString(given)).toBe(expected);
    expect(EVENT_STORE_CONNECTION_STRING.test(given)).toBe(true);
  });

  it('the translated string is one the EventStoreDB client parses (hosts, tls and credentials preserved); the raw kurrentdb:// one is refused by it', () => {
    const client = EventStoreDBClient.connectionString(esdbConnectionString('kurrentdb://admin:changeit@kurrentdb.example:2113?tls=false'));
    expect(client).toBeInstanceOf(EventStoreDBClient);
    void client.dispose();
    expect(() => EventStoreDBClient.connectionString('kurrentdb://kurrentdb.example:2113?tls=false')).toThrow();
  });

  it('other schemes are not event store connection strings', () => {
    for (const value of ['http://localhost:2113', 'kurrentdb:/x', 'tcp://host:1113', 'esdb://']) expect(EVENT_STORE_CONNECTION_STRING.test(value)).toBe(false);
  });
});
