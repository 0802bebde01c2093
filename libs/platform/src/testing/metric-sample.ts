import type { Registry } from 'prom-client';

/**
 * The value of one sample as a scrape would show it: `sampleName` is a counter's or gauge's name, or a
 * histogram's `<name>_count` / `<name>_sum`; `labels` must all match (others are ignored). 0 when the
 * family exists but has no such sample yet; NaN when no family of that name is registered.
 */
export async function metricSample(registry: Registry, sampleName: string, labels: Record<string, string> = {}): Promise<number> {
  let familyFound = false;
  for (const family of await registry.getMetricsAsJSON()) {
    for (const value of family.values) {
      const name = (value as { metricName?: string }).metricName ?? family.name;
      if (family.name === sampleName || name === sampleName) familyFound = true;
      if (name !== sampleName) continue;
      if (Object.entries(labels).every(([label, wanted]) => String(value.labels[label]) === wanted)) return value.value;
    }
    if (family.name === sampleName) familyFound = true;
  }
  return familyFound ? 0 : Number.NaN;
}
