import type { VerifyReport } from '../verify/run-verify.js';

/** The human summary of `verify`. */
export function printVerify(report: VerifyReport, keysFrom: string | undefined, write: (line: string) => void): void {
  write(`mission-audit verify --service ${report.service}: ${report.source}`);
  write(`  events: ${report.events} in ${report.streams} streams; hash chains broken in ${report.brokenStreams} stream(s)`);
  const seals = report.seals;
  write(`  seals: ${seals.seals} valid${keysFrom ? `, checked with ${keysFrom}` : ' (no keys: seals not checked)'}`);
  write(`    sealed: ${seals.sealedEvents} events; unsealed (${seals.unsealedEvents} events) after the last seal${seals.uncoveredEvents > 0 ? `; ${seals.uncoveredEvents} events covered by no valid seal` : ''}`);
  if (seals.erasedStreams > 0) write(`    erased by design (tombstoned): ${seals.erasedStreams} stream(s)`);
  if (seals.expiredRecords > 0) write(`    replay records expired by design (ADR 0057): ${seals.expiredRecords}`);
  if (seals.lastSeal) write(`    last seal: #${seals.lastSeal.seq} through ${seals.lastSeal.through} at ${seals.lastSeal.sealed_at} (record it elsewhere: a removed tail seal is invisible otherwise)`);
  if (report.clean) {
    write('  result: clean');
    return;
  }
  write(`  findings: ${report.findings.length + report.findingsNotListed}`);
  for (const finding of report.findings) {
    const where = finding.position ? ` [position ${finding.position}]` : '';
    write(`    ${finding.check} ${finding.rule}: ${finding.message}${where}`);
  }
  if (report.findingsNotListed > 0) write(`    … and ${report.findingsNotListed} more not listed`);
}
