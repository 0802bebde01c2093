import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatedNameSuffix } from './generator-hash.js';
import { applyJsonPatch, PatchError } from './json-patch.js';
import { KustomizeError, renderKustomization } from './kustomize-subset.js';

/** ADR 0051: the kustomize subset renderer agrees with kustomize where it renders, and refuses everything else. */
describe('generated name suffix (kustomize hasher)', () => {
  // Outputs printed in the Kubernetes and kubectl documentation of kustomize generators.
  it.each([
    ['ConfigMap', 'example-configmap-1', { 'application.properties': 'FOO=Bar\n' }, '8mbdf7882g'],
    ['ConfigMap', 'example-configmap-2', { FOO: 'Bar' }, 'g2hdhfc6tk'],
    ['ConfigMap', 'my-application-properties', { 'application.properties': '# application.properties\nFOO=Bar' }, 'f7mm6mhf59'],
    ['Secret', 'example-secret-1', { 'password.txt': Buffer.from('username=admin\npassword=secret\n').toString('base64') }, 't2kt65hgtb'],
  ] as const)('%s %s → the suffix kustomize printed (%s)', (kind, name, data, expected) => {
    expect(generatedNameSuffix(kind, name, data)).toBe(expected);
  });
});

describe('RFC 6902 patches', () => {
  const document = { spec: { list: ['a', 'b'], value: 1 } };

  it('add (index and "-"), replace, remove and test behave as RFC 6902 says, without touching the input', () => {
    const patched = applyJsonPatch(document, [
      { op: 'test', path: '/spec/value', value: 1 },
      { op: 'add', path: '/spec/list/1', value: 'x' },
      { op: 'add', path: '/spec/list/-', value: 'z' },
      { op: 'replace', path: '/spec/value', value: 2 },
      { op: 'remove', path: '/spec/list/0' },
      { op: 'add', path: '/spec/a~1b', value: true },
    ], 'p');
    expect(patched).toEqual({ spec: { list: ['x', 'b', 'z'], value: 2, 'a/b': true } });
    expect(document).toEqual({ spec: { list: ['a', 'b'], value: 1 } });
  });

  it.each([
    [{ op: 'test', path: '/spec/value', value: 2 }, 'test failed'],
    [{ op: 'replace', path: '/spec/missing', value: 2 }, 'nothing to replace'],
    [{ op: 'remove', path: '/spec/list/2' }, 'out of bounds'],
    [{ op: 'add', path: '/nope/deeper', value: 1 }, 'does not exist'],
    [{ op: 'move', path: '/spec/value', from: '/spec/list' }, 'not supported'],
  ])('refuses %j', (operation, message) => {
    expect(() => applyJsonPatch(document, [operation], 'p')).toThrow(PatchError);
    expect(() => applyJsonPatch(document, [operation], 'p')).toThrow(message);
  });
});

describe('kustomization fields outside the subset are refused, never approximated', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kustomize-subset-'));
    writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['commonLabels:\n  a: b\n', '"commonLabels" is not supported'],
    ['configMapGenerator:\n  - name: g\n    envs: [x.env]\n', '"envs" is not supported'],
    ['patches:\n  - path: p.yaml\n    target:\n      kind: ConfigMap\n      labelSelector: a=b\n', '"labelSelector" is not supported'],
    ['patches:\n  - patch: |-\n      - op: remove\n', '"patch" is not supported'],
  ])('%s', (extra, message) => {
    writeFileSync(join(dir, 'kustomization.yaml'), `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n${extra}`);
    expect(() => renderKustomization(dir)).toThrow(KustomizeError);
    expect(() => renderKustomization(dir)).toThrow(message);
  });

  it('a patch whose target matches nothing fails the render (a renamed resource would otherwise go unpatched)', () => {
    writeFileSync(join(dir, 'p.json'), '[{"op":"replace","path":"/data/a","value":"c"}]');
    writeFileSync(join(dir, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\npatches:\n  - path: p.json\n    target:\n      kind: ConfigMap\n      name: other\n');
    expect(() => renderKustomization(dir)).toThrow('matches no resource');
  });

  it('generator files outside the kustomization directory are refused (kustomize load restrictor)', () => {
    writeFileSync(join(dir, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nconfigMapGenerator:\n  - name: g\n    files: [../../etc/passwd]\n');
    expect(() => renderKustomization(dir)).toThrow('is outside');
  });
});
