/**
 * Issue 18's bar: after the story, the named metric families are on each service's management port (and
 * not on its public port), and the counters of what the story did have moved.
 */
import { eventually } from '../stack/eventually.js';
import type { Narrator } from './narrator.js';

export interface ScrapedService {
  readonly name: string;
  readonly publicUrl: string;
  readonly managementUrl: string;
}

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SHARED = ['event_store_append_seconds', 'projection_lag_events', 'process_manager_backlog'];
export const ISSUER_FAMILIES = [
  'issuer_missions_created_total', 'issuer_child_creation_denied_total', 'issuer_lifecycle_transitions_total', 'issuer_cascade_backlog', 'issuer_tokens_issued_total', ...SHARED,
];
export const PERSON_SERVER_FAMILIES = ['ps_terminations_total', 'ps_revocation_attempts_total', 'ps_revocation_backlog', 'ps_probes_refused_total', ...SHARED];

/** What the story did, as counters that must have moved: [service, sample name, labels]. */
const MOVED: readonly [string, string, Record<string, string>][] = [
  ['issuer', 'issuer_missions_created_total', { kind: 'root' }],
  ['issuer', 'issuer_missions_created_total', { kind: 'child' }],
  ['issuer', 'issuer_child_creation_denied_total', {}],
  ['issuer', 'issuer_lifecycle_transitions_total', { to: 'suspended' }],
  ['issuer', 'issuer_lifecycle_transitions_total', { to: 'cascaded' }],
  ['issuer', 'issuer_tokens_issued_total', { grant_type: 'authorization_code' }],
  ['issuer', 'event_store_append_seconds_count', { outcome: 'ok' }],
  ['person-server', 'ps_terminations_total', {}],
  ['person-server', 'ps_revocation_attempts_total', { outcome: 'confirmed' }],
  ['person-server', 'event_store_append_seconds_count', { outcome: 'ok' }],
];

export async function metricsStory(services: readonly ScrapedService[], say: Narrator): Promise<void> {
  say.section('Operations: the metrics on the management ports (MANAGEMENT_PORT)');
  for (const service of services) {
    const publicMetrics = await fetch(`${service.publicUrl}/metrics`);
    say.expect(publicMetrics.status === 404, `${service.name}: the public port answers ${publicMetrics.status} for /metrics (404 expected)`);
    const families = service.name === 'issuer' ? ISSUER_FAMILIES : PERSON_SERVER_FAMILIES;
    const samples = await scrape(service.managementUrl);
    const missing = families.filter((family) => !samples.some((sample) => sample.name === family || sample.name.startsWith(`${family}_`)));
    say.expect(missing.length === 0, `${service.name}: the management port lists ${families.length} named families${missing.length ? `; missing ${missing.join(', ')}` : ''}`);
  }
  for (const [name, sampleName, labels] of MOVED) {
    const service = services.find((candidate) => candidate.name === name)!;
    let total = 0;
    try {
      // Revocations and cascades finish in the background: wait for them rather than guess a delay.
      await eventually(async () => (total = sum(await scrape(service.managementUrl), sampleName, labels)) > 0, 10_000);
    } catch {
      // reported below
    }
    say.expect(total > 0, `${name}: ${sampleName}${Object.keys(labels).length ? JSON.stringify(labels) : ''} = ${total}`);
  }
}

function sum(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>>): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value))
    .reduce((total, sample) => total + sample.value, 0);
}

/** The Prometheus text format, as far as these checks need it: `name{label="value",…} value`. */
async function scrape(managementUrl: string): Promise<Sample[]> {
  const reply = await fetch(`${managementUrl}/metrics`);
  if (reply.status !== 200) throw new Error(`GET ${managementUrl}/metrics answered ${reply.status}`);
  const samples: Sample[] = [];
  for (const line of (await reply.text()).split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}
