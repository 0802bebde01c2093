import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { parsePosition, type Position } from '@mission/event-store';

export const SERVICES = ['issuer', 'person-server'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Bad arguments or a store that cannot be read: exit 2. */
export class UsageError extends Error {}

export type Command =
  | { readonly name: 'verify' }
  | { readonly name: 'timeline'; readonly mission: string }
  | { readonly name: 'export'; readonly since?: Position };

export interface CliArgs {
  readonly command: Command;
  readonly service: ServiceName;
  readonly dataDir?: string;
  readonly connectionString?: string;
  readonly jwks?: string;
  readonly json: boolean;
  /** `verify` judges time-based rules (replay records expired by design) as of this instant; default now. */
  readonly asOf?: Date;
  /** The embedded store: 2 reads and hashes on a second thread (ADR 0037), 1 does all on one thread. */
  readonly threads: 1 | 2;
}

export const USAGE = `usage: mission-audit <verify | timeline <mission_id | mission_s256> | export [--since POSITION]>
         --service issuer|person-server (--data-dir DIR | --connection-string esdb://…)
         [--jwks FILE|URL] [--json] [--as-of RFC3339 (verify: judge expired replay records as of then)] [--threads 1|2]
  verify     hash chains, signed seals, projections and spec invariants; exit 0 clean, 1 findings, 2 cannot run
  timeline   the ordered history of one mission (issuer: with its descendants)
  export     every event as NDJSON with its global position, for a SIEM
  --threads  the embedded store is read and hashed on a second thread (2, the default with 2 or more CPUs) or not (1)`;

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        service: { type: 'string' },
        'data-dir': { type: 'string' },
        'connection-string': { type: 'string' },
        jwks: { type: 'string' },
        since: { type: 'string' },
        json: { type: 'boolean', default: false },
        'as-of': { type: 'string' },
        threads: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const service = values.service;
  if (!service || !(SERVICES as readonly string[]).includes(service)) throw new UsageError(`--service must be one of ${SERVICES.join(', ')}`);
  if (!values['data-dir'] === !values['connection-string']) throw new UsageError('give exactly one of --data-dir DIR and --connection-string esdb://…');
  if (values['connection-string'] !== undefined && !/^esdb(\+discover)?:\/\//.test(values['connection-string'])) throw new UsageError('--connection-string must start with esdb://');
  const command = commandOf(positionals, values.since);
  const asOf = values['as-of'] === undefined ? undefined : new Date(values['as-of']);
  if (asOf !== undefined && (Number.isNaN(asOf.getTime()) || command.name !== 'verify')) throw new UsageError('--as-of takes an RFC 3339 date-time and belongs to verify');
  const threadsGiven = values.threads;
  if (threadsGiven !== undefined && threadsGiven !== '1' && threadsGiven !== '2') throw new UsageError(`--threads must be 1 or 2, got ${JSON.stringify(threadsGiven)}`);
  if (threadsGiven !== undefined && !values['data-dir']) throw new UsageError('--threads belongs to --data-dir (the embedded store)');
  const threads = threadsGiven === undefined ? (availableParallelism() >= 2 ? 2 : 1) : threadsGiven === '2' ? 2 : 1;
  return {
    command,
    service: service as ServiceName,
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(values['connection-string'] ? { connectionString: values['connection-string'] } : {}),
    ...(values.jwks ? { jwks: values.jwks } : {}),
    json: values.json === true,
    ...(asOf ? { asOf } : {}),
    threads,
  };
}

function commandOf(positionals: readonly string[], since: string | undefined): Command {
  const [name, ...rest] = positionals;
  if (since !== undefined && name !== 'export') throw new UsageError('--since belongs to export');
  if (name === 'verify' && rest.length === 0) return { name };
  if (name === 'timeline' && rest.length === 1 && rest[0]!.length > 0) return { name, mission: rest[0]! };
  if (name === 'export' && rest.length === 0) {
    if (since === undefined) return { name };
    try {
      return { name, since: parsePosition(since) };
    } catch {
      throw new UsageError(`--since must be a position <commit>/<prepare> as export prints it, got ${JSON.stringify(since)}`);
    }
  }
  throw new UsageError(name === undefined ? 'no command given' : `unknown command or wrong arguments: ${positionals.join(' ')}`);
}
