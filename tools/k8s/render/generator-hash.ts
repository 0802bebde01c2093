import { createHash } from 'node:crypto';

/**
 * The name suffix kustomize gives a generated ConfigMap or Secret, computed the way its hasher does (api/hasher):
 * SHA-256 over Go's `json.Marshal` of `{kind, name, data}` (plus `type` for a Secret; map keys sorted, `<`, `>`, `&`
 * escaped), the first 10 hex digits with 0→g, 1→h, 3→k, a→m, e→t. Not checked against a kustomize binary (none
 * installs through npm, ADR 0051): the suffix only has to change whenever the content does, which the tests prove.
 */
export function generatedNameSuffix(kind: 'ConfigMap' | 'Secret', name: string, data: Record<string, string>, type?: string): string {
  const encoded: Record<string, unknown> = { data: sortKeys(data), kind, name };
  if (kind === 'Secret') encoded['type'] = type ?? 'Opaque';
  const hex = createHash('sha256').update(goJson(sortKeys(encoded))).digest('hex');
  return [...hex.slice(0, 10)].map((digit) => ({ '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' })[digit] ?? digit).join('');
}

function sortKeys<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(Object.keys(object).sort().map((key) => [key, object[key]])) as T;
}

/** Go's encoding/json escapes HTML-significant characters; JSON.stringify does not. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
}
