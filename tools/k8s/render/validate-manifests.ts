import type { Manifest } from './kustomize-subset.js';

/**
 * Validates each rendered object against the Kubernetes OpenAPI schema of its kind, compiled into the
 * `kubernetes-models` package (core and apps APIs), and the ServiceMonitor against the prometheus-operator CRD
 * schema (`@kubernetes-models/prometheus-operator`). Offline: nothing is fetched (ADR 0051).
 */
interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

const CRD_PACKAGES: Record<string, string> = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};

export async function schemaErrors(manifest: Manifest): Promise<string | undefined> {
  const model = await modelFor(manifest.apiVersion, manifest.kind);
  if (model === undefined) return `no schema for ${manifest.apiVersion} ${manifest.kind}`;
  try {
    new model(manifest).validate();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function modelFor(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  const base = group === '' ? 'kubernetes-models' : (CRD_PACKAGES[group] !== undefined ? `${CRD_PACKAGES[group]}/${group}` : `kubernetes-models/${group}`);
  try {
    const module = (await import(`${base}/${version}/${kind}`)) as Record<string, ModelClass | undefined>;
    return module[kind];
  } catch {
    return undefined;
  }
}
