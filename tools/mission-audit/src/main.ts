import { exportEvents } from './export-events.js';
import { parseCliArgs, UsageError, USAGE } from './cli-args.js';
import { printVerify } from './report/print-verify.js';
import { SourceUnavailableError } from './source/audit-source.js';
import { UnreadableRecordError } from './source/stored-record.js';
import { loadJwks } from './source/load-jwks.js';
import { openAuditSource } from './source/open-source.js';
import { buildTimeline, printTimeline } from './timeline.js';
import { runVerify } from './verify/run-verify.js';

/** Exit 0: clean (or done); 1: findings; 2: cannot run (bad arguments, unreadable store). */
export async function main(argv: readonly string[], out: (line: string) => Promise<void> | void, err: (line: string) => void): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    const source = await openAuditSource(args);
    try {
      switch (args.command.name) {
        case 'verify': {
          const keys = await loadJwks(args.jwks, args.dataDir);
          const report = await runVerify(source, args.service, keys?.jwks, args.asOf ? { asOf: args.asOf } : {});
          if (args.json) await out(JSON.stringify({ ...report, keys: keys?.from ?? null }));
          else printVerify(report, keys?.from, (line) => void out(line));
          return report.clean ? 0 : 1;
        }
        case 'timeline': {
          const timeline = await buildTimeline(source, args.service, args.command.mission);
          if (args.json) await out(JSON.stringify(timeline));
          else printTimeline(timeline, (line) => void out(line));
          return 0;
        }
        case 'export':
          await exportEvents(source, args.command.since, out);
          return 0;
      }
    } finally {
      await source.close();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`mission-audit: ${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof UnreadableRecordError) {
      err(`mission-audit: cannot run: the store holds a record that is not JSON, which the service cannot have written: ${error.message}`);
      return 2;
    }
    if (error instanceof SourceUnavailableError) {
      err(`mission-audit: ${error.message}`);
      return 2;
    }
    err(`mission-audit: cannot run: ${(error as Error).stack ?? String(error)}`);
    return 2;
  }
}
