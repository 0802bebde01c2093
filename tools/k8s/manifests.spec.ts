import { mkdtempSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderKustomization, type Manifest } from './render/kustomize-subset.js';
import { podSpecOf } from './render/name-references.js';
import { schemaErrors } from './render/validate-manifests.js';

/**
 * Issue 18: both overlays render (with the kustomize subset of ADR 0051) and every rendered object is valid
 * against the Kubernetes schemas (and the ServiceMonitor CRD schema), offline, in every `npm test`. Then the
 * properties the issue asks of the deployment, checked on the rendered output rather than on the sources.
 */
const here = dirname(fileURLToPath(import.meta.url));
const OVERLAYS = ['dev', 'production'] as const;
const rendered = Object.fromEntries(OVERLAYS.map((overlay) => [overlay, renderKustomization(join(here, 'overlays', overlay))])) as Record<(typeof OVERLAYS)[number], Manifest[]>;

const find = (manifests: Manifest[], kind: string, name: string): Manifest => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (found === undefined) throw new Error(`${kind}/${name} not rendered`);
  return found;
};
type Container = { name: string; env?: { name: string; value?: string; valueFrom?: Record<string, { name: string; key: string }> }[]; resources?: { requests?: Record<string, string>; limits?: Record<string, string> }; ports?: { name: string }[] };
const containersOf = (manifest: Manifest): Container[] => (podSpecOf(manifest)?.['containers'] as Container[] | undefined) ?? [];
const envOf = (manifest: Manifest, name: string) => containersOf(manifest)[0]!.env!.find((variable) => variable.name === name);
const workloads = (manifests: Manifest[]) => manifests.filter((manifest) => manifest.kind === 'Deployment' || manifest.kind === 'StatefulSet');

describe.each(OVERLAYS)('tools/k8s/overlays/%s', (overlay) => {
  const manifests = rendered[overlay];

  it('every rendered object validates against its Kubernetes (or CRD) schema', async () => {
    const failures: string[] = [];
    for (const manifest of manifests) {
      const error = await schemaErrors(manifest);
      if (error !== undefined) failures.push(`${manifest.kind}/${manifest.metadata.name}: ${error}`);
    }
    expect(failures).toEqual([]);
    expect(manifests.map((manifest) => manifest.kind)).toEqual(expect.arrayContaining(['Namespace', 'Deployment', 'Service', 'HorizontalPodAutoscaler', 'ServiceMonitor', 'NetworkPolicy', 'PodDisruptionBudget']));
  });

  it('every namespaced object is in mission-authority', () => {
    for (const manifest of manifests.filter((entry) => entry.kind !== 'Namespace')) expect([manifest.kind, manifest.metadata.name, manifest.metadata.namespace]).toEqual([manifest.kind, manifest.metadata.name, 'mission-authority']);
  });

  it('every container has CPU and memory requests, a memory limit and ephemeral-storage requests and limits', () => {
    for (const workload of workloads(manifests)) {
      for (const container of containersOf(workload)) {
        expect([container.name, Object.keys(container.resources?.requests ?? {}).sort()]).toEqual([container.name, ['cpu', 'ephemeral-storage', 'memory']]);
        expect([container.name, Object.keys(container.resources?.limits ?? {}).sort()]).toEqual([container.name, ['ephemeral-storage', 'memory']]);
      }
    }
  });

  it('every ConfigMap and Secret a pod refers to is rendered here, or is one of the Secrets the operator creates (README)', () => {
    const operatorSecrets = overlay === 'production' ? ['issuer-config', 'issuer-secrets', 'person-server-secrets', 'issuer-signing-key', 'person-server-signing-key'] : [];
    const available = new Set(manifests.filter((manifest) => manifest.kind === 'ConfigMap' || manifest.kind === 'Secret').map((manifest) => `${manifest.kind}/${manifest.metadata.name}`));
    for (const name of operatorSecrets) available.add(`Secret/${name}`);
    for (const workload of workloads(manifests)) {
      const pod = podSpecOf(workload)!;
      const references: string[] = [];
      for (const volume of (pod['volumes'] as Record<string, Record<string, string> | undefined>[]) ?? []) {
        if (volume['configMap']) references.push(`ConfigMap/${volume['configMap']['name']}`);
        if (volume['secret']) references.push(`Secret/${volume['secret']['secretName']}`);
      }
      for (const variable of containersOf(workload).flatMap((container) => container.env ?? [])) {
        if (variable.valueFrom?.['secretKeyRef']) references.push(`Secret/${variable.valueFrom['secretKeyRef'].name}`);
        if (variable.valueFrom?.['configMapKeyRef']) references.push(`ConfigMap/${variable.valueFrom['configMapKeyRef'].name}`);
      }
      for (const reference of references) expect([workload.metadata.name, reference, available.has(reference)]).toEqual([workload.metadata.name, reference, true]);
    }
  });

  it('issue 18: DPOP_NONCE_SECRET and the issuer registry (persons’ password hashes) come from Secrets, never a ConfigMap', () => {
    const issuer = find(manifests, 'Deployment', 'issuer');
    expect(envOf(issuer, 'DPOP_NONCE_SECRET')?.valueFrom?.['secretKeyRef']?.name).toMatch(/^issuer-secrets/);
    const volumes = podSpecOf(issuer)!['volumes'] as Record<string, unknown>[];
    expect(volumes.find((volume) => volume['name'] === 'config')).toMatchObject({ secret: { secretName: expect.stringMatching(/^issuer-config/) } });
    for (const configMap of manifests.filter((manifest) => manifest.kind === 'ConfigMap')) expect(JSON.stringify(configMap)).not.toContain('password');
  });

  it('NetworkPolicies: default deny; public port only from the ingress namespace; management port only from monitoring', () => {
    expect(find(manifests, 'NetworkPolicy', 'default-deny')['spec']).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const ingress = (find(manifests, 'NetworkPolicy', 'mission-services-ingress')['spec'] as { ingress: { from: { namespaceSelector: { matchLabels: Record<string, string> } }[]; ports: { port: string }[] }[] }).ingress;
    expect(ingress.map((rule) => [rule.from[0]!.namespaceSelector.matchLabels['kubernetes.io/metadata.name'], rule.ports.map((port) => port.port)])).toEqual([
      ['ingress-nginx', ['http']],
      ['monitoring', ['management']],
    ]);
    // Every port a policy names exists on the pods it selects (a misspelt port name would silently admit nothing).
    for (const name of ['issuer', 'person-server']) expect(containersOf(find(manifests, 'Deployment', name))[0]!.ports!.map((port) => port.name).sort()).toEqual(['http', 'management']);
  });

  it('the ServiceMonitors scrape the management port, which every Service exposes', () => {
    for (const name of ['issuer', 'person-server']) {
      expect(find(manifests, 'ServiceMonitor', name)['spec']).toMatchObject({ endpoints: [{ port: 'management', path: '/metrics' }] });
      expect((find(manifests, 'Service', name)['spec'] as { ports: { name: string }[] }).ports.map((port) => port.name)).toContain('management');
    }
  });
});

describe('overlay differences', () => {
  it('dev: one replica per service on a PVC, Recreate (one writer per embedded store), HPA pinned to 1, no event store connection', () => {
    for (const name of ['issuer', 'person-server']) {
      const deployment = find(rendered.dev, 'Deployment', name);
      expect(deployment['spec']).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
      expect((podSpecOf(deployment)!['volumes'] as Record<string, unknown>[]).find((volume) => volume['name'] === 'data')).toEqual({ name: 'data', persistentVolumeClaim: { claimName: `${name}-data` } });
      expect(find(rendered.dev, 'PersistentVolumeClaim', `${name}-data`)).toBeDefined();
      expect(find(rendered.dev, 'HorizontalPodAutoscaler', name)['spec']).toMatchObject({ minReplicas: 1, maxReplicas: 1 });
      expect(envOf(deployment, 'EVENTSTORE_CONNECTION_STRING')).toBeUndefined();
    }
  });

  it('production: both services on the KurrentDB StatefulSet of the overlay, spread over nodes, autoscaled from 2', () => {
    const kurrent = find(rendered.production, 'StatefulSet', 'kurrentdb');
    expect(kurrent['spec']).toMatchObject({ serviceName: 'kurrentdb', volumeClaimTemplates: [{ metadata: { name: 'data' } }] });
    expect(find(rendered.production, 'Service', 'kurrentdb')['spec']).toMatchObject({ clusterIP: 'None' });
    for (const name of ['issuer', 'person-server']) {
      const deployment = find(rendered.production, 'Deployment', name);
      expect(envOf(deployment, 'EVENTSTORE_CONNECTION_STRING')?.value).toMatch(/^kurrentdb:\/\/kurrentdb-0\.kurrentdb\.mission-authority\.svc:2113/);
      expect(podSpecOf(deployment)!['topologySpreadConstraints']).toEqual(expect.arrayContaining([expect.objectContaining({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' })]));
      expect(find(rendered.production, 'HorizontalPodAutoscaler', name)['spec']).toMatchObject({ minReplicas: 2, metrics: [{ resource: { name: 'cpu' } }] });
    }
    // No credential is generated into the production overlay.
    expect(rendered.production.filter((manifest) => manifest.kind === 'Secret')).toEqual([]);
  });

  it('configMapGenerator: editing the Person Server registry changes the ConfigMap name the Deployment refers to, so the pods roll', () => {
    const copy = mkdtempSync(join(tmpdir(), 'k8s-roll-'));
    try {
      cpSync(here, copy, { recursive: true, filter: (path) => !path.includes('node_modules') });
      const before = renderKustomization(join(copy, 'overlays', 'production'));
      const registry = join(copy, 'base', 'person-server.json');
      writeFileSync(registry, readFileSync(registry, 'utf8').replace('"principals"', '"principals" '));
      const after = renderKustomization(join(copy, 'overlays', 'production'));
      const configName = (manifests: Manifest[]) => ((podSpecOf(find(manifests, 'Deployment', 'person-server'))!['volumes'] as { name: string; configMap?: { name: string } }[]).find((volume) => volume.name === 'config')!.configMap!.name);
      expect(configName(before)).toMatch(/^person-server-config-[a-z0-9]{10}$/);
      expect(configName(after)).toMatch(/^person-server-config-[a-z0-9]{10}$/);
      expect(configName(after)).not.toBe(configName(before));
      expect(after.some((manifest) => manifest.kind === 'ConfigMap' && manifest.metadata.name === configName(after))).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
