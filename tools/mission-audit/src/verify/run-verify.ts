import { isSealedStream, sealStreamName } from '@mission/es-kit';
import type { JWK } from 'jose';
import type { AuditSource } from '../source/audit-source.js';
import { UsageError, type ServiceName } from '../cli-args.js';
import { ChainCheck } from './chain-check.js';
import { Findings, type Finding } from './finding.js';
import { forEachHashedEvent } from './hashed-events.js';
import { IssuerChecks } from './issuer-checks.js';
import { loadSeals } from './load-seals.js';
import { PersonServerChecks } from './ps-checks.js';
import { SealCheck, type SealSummary } from './seal-check.js';

export interface VerifyReport {
  readonly service: ServiceName;
  readonly source: string;
  readonly events: number;
  readonly streams: number;
  readonly brokenStreams: number;
  readonly seals: SealSummary;
  readonly findings: readonly Finding[];
  /** Findings counted but not listed (more than 100 of one rule). */
  readonly findingsNotListed: number;
  readonly clean: boolean;
}

/**
 * One pass over the global order: every event's hash is computed once and feeds the stream's chain, the
 * seal being replayed and the service's projections and invariants.
 */
export async function runVerify(
  source: AuditSource, service: ServiceName, jwks: { keys: readonly JWK[] } | undefined, options: { readonly asOf?: Date } = {},
): Promise<VerifyReport> {
  const asOf = options.asOf ?? new Date();
  const findings = new Findings();
  const checks = service === 'issuer' ? new IssuerChecks(findings) : new PersonServerChecks(findings);
  if (!jwks) await refuseSealsWithoutKeys(source, service);
  const seals = jwks ? await loadSeals(source, service, jwks, findings) : [];
  const chain = new ChainCheck(findings, checks.chainedCategories);
  const sealCheck = new SealCheck(seals, findings, checks.erasableCategories, { categories: checks.expiringCategories, asOf });
  let events = 0;
  await forEachHashedEvent(source, (event, hash) => {
    if (!isSealedStream(event.streamName)) return;
    chain.observe(event, hash);
    sealCheck.observe(event, hash);
    checks.observe(event);
    events += 1;
  });
  checks.finish();
  const sealSummary = await sealCheck.finish(source);
  return {
    service, source: source.description, events, streams: chain.streamCount, brokenStreams: chain.brokenStreams, seals: sealSummary,
    findings: findings.all, findingsNotListed: findings.notListed, clean: findings.total === 0,
  };
}

async function refuseSealsWithoutKeys(source: AuditSource, service: ServiceName): Promise<void> {
  const seals = source.readStream(sealStreamName(service))[Symbol.asyncIterator]();
  const first = await seals.next();
  await seals.return?.();
  if (!first.done) throw new UsageError(`the store holds seals but no public keys were found to check them: pass --jwks FILE or --jwks URL (the service's /jwks)`);
}
