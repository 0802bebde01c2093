/**
 * RFC 6902 JSON Patch, the four operations the overlays use (`add`, `remove`, `replace`, `test`); any other
 * operation is refused rather than approximated. Pointers per RFC 6901 (`~1` → `/`, `~0` → `~`, `-` appends).
 */
export interface PatchOperation {
  readonly op: string;
  readonly path: string;
  readonly value?: unknown;
}

type Container = Record<string, unknown> | unknown[];

export class PatchError extends Error {}

export function applyJsonPatch<T>(document: T, operations: readonly PatchOperation[], where: string): T {
  let result: unknown = structuredClone(document);
  for (const [index, operation] of operations.entries()) {
    const at = `${where} operation ${index} (${operation.op} ${operation.path})`;
    result = applyOne(result, operation, at);
  }
  return result as T;
}

function applyOne(document: unknown, operation: PatchOperation, at: string): unknown {
  const tokens = pointer(operation.path, at);
  if (tokens.length === 0) {
    if (operation.op === 'replace' || operation.op === 'add') return structuredClone(operation.value);
    throw new PatchError(`${at}: cannot ${operation.op} the whole document`);
  }
  const parent = resolve(document, tokens.slice(0, -1), at);
  const last = tokens[tokens.length - 1]!;
  switch (operation.op) {
    case 'add':
      requireValue(operation, at);
      if (Array.isArray(parent)) parent.splice(last === '-' ? parent.length : arrayIndex(parent, last, at, true), 0, structuredClone(operation.value));
      else parent[last] = structuredClone(operation.value);
      return document;
    case 'replace':
      requireValue(operation, at);
      if (Array.isArray(parent)) parent[arrayIndex(parent, last, at, false)] = structuredClone(operation.value);
      else {
        if (!(last in parent)) throw new PatchError(`${at}: nothing to replace at ${operation.path}`);
        parent[last] = structuredClone(operation.value);
      }
      return document;
    case 'remove':
      if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, at, false), 1);
      else {
        if (!(last in parent)) throw new PatchError(`${at}: nothing to remove at ${operation.path}`);
        delete parent[last];
      }
      return document;
    case 'test': {
      const actual = Array.isArray(parent) ? parent[arrayIndex(parent, last, at, false)] : parent[last];
      if (JSON.stringify(actual) !== JSON.stringify(operation.value)) throw new PatchError(`${at}: test failed, found ${JSON.stringify(actual)}`);
      return document;
    }
    default:
      throw new PatchError(`${at}: operation ${JSON.stringify(operation.op)} is not supported by this renderer`);
  }
}

function pointer(path: string, at: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`${at}: a JSON pointer starts with "/"`);
  return path.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function resolve(document: unknown, tokens: readonly string[], at: string): Container {
  let node = document;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, at, false)];
    else if (node !== null && typeof node === 'object' && token in node) node = (node as Record<string, unknown>)[token];
    else throw new PatchError(`${at}: path does not exist at ${JSON.stringify(token)}`);
  }
  if (node === null || typeof node !== 'object') throw new PatchError(`${at}: parent is not an object or array`);
  return node as Container;
}

function arrayIndex(array: readonly unknown[], token: string, at: string, forAdd: boolean): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`${at}: ${JSON.stringify(token)} is not an array index`);
  const index = Number(token);
  if (index > array.length || (!forAdd && index === array.length)) throw new PatchError(`${at}: index ${index} is out of bounds`);
  return index;
}

function requireValue(operation: PatchOperation, at: string): void {
  if (!('value' in operation)) throw new PatchError(`${at}: needs a value`);
}
