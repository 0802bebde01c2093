import type { Manifest } from './kustomize-subset.js';

/**
 * After a generator hashed a name (`person-server-config` → `person-server-config-5f7kbg6m2c`), every reference
 * to it in a pod template points at the new name: kustomize's name-reference transformer for the fields our
 * manifests use — volumes (`configMap.name`, `secret.secretName`, projected sources), `env[].valueFrom`
 * (`configMapKeyRef`, `secretKeyRef`) and `envFrom` — in containers and init containers.
 */
export function renameReferences(manifest: Manifest, renames: ReadonlyMap<string, string>): Manifest {
  if (renames.size === 0) return manifest;
  const copy = structuredClone(manifest);
  const pod = podSpecOf(copy);
  if (pod === undefined) return manifest;
  const rename = (kind: 'ConfigMap' | 'Secret', holder: Record<string, unknown> | undefined, field: string): void => {
    if (holder === undefined || typeof holder[field] !== 'string') return;
    holder[field] = renames.get(`${kind}/${holder[field] as string}`) ?? holder[field];
  };
  for (const volume of records(pod['volumes'])) {
    rename('ConfigMap', volume['configMap'] as Record<string, unknown> | undefined, 'name');
    rename('Secret', volume['secret'] as Record<string, unknown> | undefined, 'secretName');
    for (const source of records((volume['projected'] as Record<string, unknown> | undefined)?.['sources'])) {
      rename('ConfigMap', source['configMap'] as Record<string, unknown> | undefined, 'name');
      rename('Secret', source['secret'] as Record<string, unknown> | undefined, 'name');
    }
  }
  for (const container of [...records(pod['containers']), ...records(pod['initContainers'])]) {
    for (const variable of records(container['env'])) {
      const from = variable['valueFrom'] as Record<string, unknown> | undefined;
      rename('ConfigMap', from?.['configMapKeyRef'] as Record<string, unknown> | undefined, 'name');
      rename('Secret', from?.['secretKeyRef'] as Record<string, unknown> | undefined, 'name');
    }
    for (const source of records(container['envFrom'])) {
      rename('ConfigMap', source['configMapRef'] as Record<string, unknown> | undefined, 'name');
      rename('Secret', source['secretRef'] as Record<string, unknown> | undefined, 'name');
    }
  }
  return copy;
}

export function podSpecOf(manifest: Manifest): Record<string, unknown> | undefined {
  const spec = manifest['spec'] as Record<string, unknown> | undefined;
  if (manifest.kind === 'Pod') return spec;
  return (spec?.['template'] as { spec?: Record<string, unknown> } | undefined)?.spec;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
}
