/**
 * KurrentDB (EventStoreDB's new name from 25.x) documents `kurrentdb://` and `kurrentdb+discover://` connection
 * strings (`kdb://`, `kdb+discover://` for short); the server speaks the same gRPC protocol, so the
 * `@eventstore/db-client` this adapter uses serves it. That client knows only `esdb://`: the scheme is translated,
 * everything after it (hosts, credentials, settings such as `tls=false`) is kept byte for byte (ADR 0053).
 */
const SCHEMES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(?:kurrentdb|kurrent|kdb)\+discover:\/\//i, 'esdb+discover://'],
  [/^(?:kurrentdb|kurrent|kdb):\/\//i, 'esdb://'],
];

/** Connection strings this adapter accepts: `esdb`, `kurrentdb`, `kurrent`, `kdb`, each also `+discover`. */
export const EVENT_STORE_CONNECTION_STRING = /^(?:esdb|kurrentdb|kurrent|kdb)(?:\+discover)?:\/\/\S+$/i;

export function esdbConnectionString(connectionString: string): string {
  for (const [scheme, replacement] of SCHEMES) if (scheme.test(connectionString)) return connectionString.replace(scheme, replacement);
  return connectionString;
}
