import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { generatedNameSuffix } from './generator-hash.js';
import { applyJsonPatch, type PatchOperation } from './json-patch.js';
import { renameReferences } from './name-references.js';

/**
 * Renders a kustomization the way `kubectl kustomize` does, for the subset of kustomize our overlays use
 * (ADR 0051): `resources` (files and directories), `namespace`, `configMapGenerator` / `secretGenerator`
 * (`files`, `literals`; hashed names, references rewritten), `patches` with RFC 6902 JSON patches and a
 * `target` {kind, name}, and `images`. Anything else in a kustomization — a field, a generator option, a
 * strategic-merge patch — is refused, so an overlay can never use a feature this renderer would get wrong.
 */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [member: string]: unknown;
}

const KUSTOMIZATION_FIELDS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'configMapGenerator', 'secretGenerator', 'patches', 'images']);
const GENERATOR_FIELDS = new Set(['name', 'files', 'literals', 'type']);
const PATCH_FIELDS = new Set(['path', 'target']);
const TARGET_FIELDS = new Set(['kind', 'name']);
const IMAGE_FIELDS = new Set(['name', 'newName', 'newTag', 'digest']);
/** Kinds without a namespace that our manifests use; the rest get `namespace:` set. */
const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass']);

export class KustomizeError extends Error {}

export function renderKustomization(directory: string): Manifest[] {
  const dir = resolve(directory);
  const file = join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new KustomizeError(`${dir} has no kustomization.yaml`);
  const kustomization = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  refuseUnknown(kustomization, KUSTOMIZATION_FIELDS, file);
  if (kustomization['kind'] !== 'Kustomization') throw new KustomizeError(`${file}: kind must be Kustomization`);

  let manifests: Manifest[] = [];
  for (const entry of list<string>(kustomization['resources'])) {
    const path = resolve(dir, entry);
    manifests.push(...(statSync(path).isDirectory() ? renderKustomization(path) : readManifests(path)));
  }
  const renames = new Map<string, string>();
  for (const [kind, field] of [['ConfigMap', 'configMapGenerator'], ['Secret', 'secretGenerator']] as const) {
    for (const generator of list<Record<string, unknown>>(kustomization[field])) {
      const generated = generate(kind, generator, dir, `${file} ${field}`);
      renames.set(`${kind}/${generator['name'] as string}`, generated.metadata.name);
      manifests.push(generated);
    }
  }
  for (const patch of list<Record<string, unknown>>(kustomization['patches'])) manifests = applyPatch(manifests, patch, dir, file);
  for (const image of list<Record<string, unknown>>(kustomization['images'])) {
    refuseUnknown(image, IMAGE_FIELDS, `${file} images`);
    manifests = manifests.map((manifest) => retag(manifest, image));
  }
  const namespace = kustomization['namespace'];
  if (typeof namespace === 'string') {
    manifests = manifests.map((manifest) => (CLUSTER_SCOPED.has(manifest.kind) ? manifest : { ...manifest, metadata: { ...manifest.metadata, namespace } }));
  }
  manifests = manifests.map((manifest) => renameReferences(manifest, renames));
  refuseDuplicates(manifests, dir);
  return manifests;
}

function readManifests(path: string): Manifest[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new KustomizeError(`${path}: ${document.errors[0]!.message}`);
      return document.toJS() as Manifest | null;
    })
    .filter((manifest): manifest is Manifest => manifest !== null);
}

function generate(kind: 'ConfigMap' | 'Secret', generator: Record<string, unknown>, dir: string, where: string): Manifest {
  refuseUnknown(generator, GENERATOR_FIELDS, where);
  const name = generator['name'];
  if (typeof name !== 'string') throw new KustomizeError(`${where}: a generator needs a name`);
  const data: Record<string, string> = {};
  for (const entry of list<string>(generator['files'])) {
    const [key, path] = entry.includes('=') ? (entry.split(/=(.*)/s, 2) as [string, string]) : [basename(entry), entry];
    const full = resolve(dir, path);
    // kustomize's load restrictor: files of a kustomization live under its directory.
    if (!full.startsWith(`${dir}/`)) throw new KustomizeError(`${where}: ${path} is outside ${dir}`);
    data[key] = readFileSync(full, 'utf8');
  }
  for (const entry of list<string>(generator['literals'])) {
    const split = entry.indexOf('=');
    if (split <= 0) throw new KustomizeError(`${where}: literal ${JSON.stringify(entry)} is not key=value`);
    data[entry.slice(0, split)] = entry.slice(split + 1);
  }
  if (kind === 'ConfigMap') {
    return { apiVersion: 'v1', kind, metadata: { name: `${name}-${generatedNameSuffix(kind, name, data)}` }, data };
  }
  const type = typeof generator['type'] === 'string' ? generator['type'] : 'Opaque';
  const encoded = Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]));
  return { apiVersion: 'v1', kind, type, metadata: { name: `${name}-${generatedNameSuffix(kind, name, encoded, type)}` }, data: encoded };
}

function applyPatch(manifests: Manifest[], patch: Record<string, unknown>, dir: string, file: string): Manifest[] {
  refuseUnknown(patch, PATCH_FIELDS, `${file} patches`);
  const target = patch['target'] as Record<string, unknown> | undefined;
  if (target === undefined || typeof patch['path'] !== 'string') throw new KustomizeError(`${file}: a patch needs a path and a target (JSON 6902 patches only)`);
  refuseUnknown(target, TARGET_FIELDS, `${file} patch target`);
  const path = resolve(dir, patch['path']);
  const operations = parseYaml(readFileSync(path, 'utf8')) as PatchOperation[];
  if (!Array.isArray(operations)) throw new KustomizeError(`${path}: only RFC 6902 patches (a list of operations) are supported`);
  let matched = 0;
  const patched = manifests.map((manifest) => {
    if (manifest.kind !== target['kind'] || (target['name'] !== undefined && manifest.metadata.name !== target['name'])) return manifest;
    matched++;
    return applyJsonPatch(manifest, operations, path);
  });
  if (matched === 0) throw new KustomizeError(`${path}: the target ${JSON.stringify(target)} matches no resource`);
  return patched;
}

function retag(manifest: Manifest, image: Record<string, unknown>): Manifest {
  const copy = structuredClone(manifest);
  const pod = (copy['spec'] as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec;
  if (pod === undefined) return manifest;
  for (const container of [...list<Record<string, unknown>>(pod['containers']), ...list<Record<string, unknown>>(pod['initContainers'])]) {
    const reference = String(container['image']);
    const bare = reference.split('@')[0]!.replace(/:[^/:]+$/, '');
    if (bare !== image['name']) continue;
    const name = typeof image['newName'] === 'string' ? image['newName'] : bare;
    if (typeof image['digest'] === 'string') container['image'] = `${name}@${image['digest']}`;
    else if (typeof image['newTag'] === 'string') container['image'] = `${name}:${image['newTag']}`;
    else container['image'] = reference.replace(bare, name);
  }
  return copy;
}

function refuseDuplicates(manifests: readonly Manifest[], dir: string): void {
  const seen = new Set<string>();
  for (const manifest of manifests) {
    const id = `${manifest.apiVersion}/${manifest.kind}/${manifest.metadata.namespace ?? ''}/${manifest.metadata.name}`;
    if (seen.has(id)) throw new KustomizeError(`${dir}: ${id} appears twice`);
    seen.add(id);
  }
}

function refuseUnknown(object: Record<string, unknown>, allowed: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(object)) if (!allowed.has(key)) throw new KustomizeError(`${where}: ${JSON.stringify(key)} is not supported by this renderer (ADR 0051)`);
}

function list<T>(value: unknown): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new KustomizeError(`expected a list, got ${JSON.stringify(value)}`);
  return value as T[];
}
