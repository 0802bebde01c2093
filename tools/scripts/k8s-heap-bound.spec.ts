import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Issue 15 item 3: each service's heap is bounded from its pod's memory limit (NODE_OPTIONS
 * --max-old-space-size at most 65 % of the limit, leaving room for code, buffers and SQLite's cache).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('Kubernetes manifests bound the heap from the memory limit (issue 15 item 3)', () => {
  it.each(['issuer', 'person-server'])('tools/k8s/base/%s.yaml sets --max-old-space-size within its memory limit', (service) => {
    const manifest = readFileSync(join(root, `tools/k8s/base/${service}.yaml`), 'utf8');
    const limitMi = Number(/limits:\s*\n\s*memory:\s*(\d+)Mi/.exec(manifest)?.[1]);
    const heapMb = Number(/name: NODE_OPTIONS\s*\n\s*value: "[^"]*--max-old-space-size=(\d+)/.exec(manifest)?.[1]);
    expect(limitMi).toBeGreaterThan(0);
    expect(heapMb).toBeGreaterThan(0);
    // Both in MiB: V8 counts --max-old-space-size in mebibytes.
    expect(heapMb).toBeLessThanOrEqual(0.65 * limitMi);
  });
});
