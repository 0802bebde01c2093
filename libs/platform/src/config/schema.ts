import { ConfigError, describeValue } from './config-error.js';

/**
 * Small explicit validators for JSON configuration files. Hand-written rather than class-validator
 * because every failure must name the exact JSON path (`clients[0].jwks.keys[0].kty`) and the rule,
 * and the result must be a plain, fully typed value with nothing the schema did not ask for.
 */

/** Thrown inside a schema; `validateJson` turns it into a ConfigError naming the file. */
export class SchemaViolation extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path ? `${path}: ${problem}` : problem);
    this.name = 'SchemaViolation';
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Where in the document a value sits, plus the warnings collected so far for the whole document. */
export class JsonPath {
  private constructor(
    readonly text: string,
    readonly warnings: string[],
  ) {}

  static root(): JsonPath {
    return new JsonPath('', []);
  }

  key(name: string): JsonPath {
    const segment = IDENTIFIER.test(name) ? name : `[${JSON.stringify(name)}]`;
    const joined = this.text === '' || segment.startsWith('[') ? `${this.text}${segment}` : `${this.text}.${segment}`;
    return new JsonPath(joined, this.warnings);
  }

  index(position: number): JsonPath {
    return new JsonPath(`${this.text}[${position}]`, this.warnings);
  }

  fail(problem: string): never {
    throw new SchemaViolation(this.text, problem);
  }

  warn(problem: string): void {
    this.warnings.push(this.text ? `${this.text}: ${problem}` : problem);
  }
}

export type Schema<T> = (value: unknown, at: JsonPath) => T;
export type Infer<S> = S extends Schema<infer T> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** Fields whose schema accepts `undefined` become optional properties. */
export type ObjectOf<F extends Record<string, Schema<unknown>>> = Simplify<
  { [K in keyof F as undefined extends Infer<F[K]> ? never : K]: Infer<F[K]> } & {
    [K in keyof F as undefined extends Infer<F[K]> ? K : never]?: Exclude<Infer<F[K]>, undefined>;
  }
>;

function required(value: unknown, at: JsonPath): void {
  if (value === undefined) at.fail('is required');
}

export interface StringRules {
  /** Default 1: an empty string in a configuration file is almost always a mistake. */
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: RegExp;
  /** Says what the pattern means, e.g. `a base64url string`. */
  readonly patternHint?: string;
}

export function string(rules: StringRules = {}): Schema<string> {
  const minLength = rules.minLength ?? 1;
  const maxLength = rules.maxLength ?? 2048;
  return (value, at) => {
    required(value, at);
    if (typeof value !== 'string') return at.fail(`must be a string, got ${describeValue(value)}`);
    if (value.length < minLength) at.fail(minLength === 1 ? 'must not be empty' : `must be at least ${minLength} characters long`);
    if (value.length > maxLength) at.fail(`must be at most ${maxLength} characters long, got ${value.length}`);
    if (rules.pattern && !rules.pattern.test(value)) {
      at.fail(`must be ${rules.patternHint ?? `a string matching ${rules.pattern}`}, got ${describeValue(value)}`);
    }
    return value;
  };
}

export function integer(min: number, max: number): Schema<number> {
  return (value, at) => {
    required(value, at);
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      return at.fail(`must be an integer ${min}..${max}, got ${describeValue(value)}`);
    }
    return value;
  };
}

export function boolean(): Schema<boolean> {
  return (value, at) => {
    required(value, at);
    if (typeof value !== 'boolean') return at.fail(`must be true or false, got ${describeValue(value)}`);
    return value;
  };
}

export function oneOf<const T extends readonly string[]>(values: T): Schema<T[number]> {
  const listed = values.map((v) => JSON.stringify(v));
  const expected = listed.length === 1 ? listed[0] : `${listed.slice(0, -1).join(', ')} or ${listed.at(-1)}`;
  return (value, at) => {
    required(value, at);
    if (typeof value !== 'string' || !values.includes(value)) return at.fail(`must be ${expected}, got ${describeValue(value)}`);
    return value as T[number];
  };
}

export interface ArrayRules<T> {
  readonly minItems?: number;
  readonly maxItems?: number;
  /** Items with equal keys are refused; `what` names the key in the message (e.g. `client_id`). */
  readonly uniqueBy?: { readonly key: (item: T) => string; readonly what: string };
}

export function array<T>(item: Schema<T>, rules: ArrayRules<T> = {}): Schema<T[]> {
  const minItems = rules.minItems ?? 0;
  const maxItems = rules.maxItems ?? 10_000;
  return (value, at) => {
    required(value, at);
    if (!Array.isArray(value)) return at.fail(`must be an array, got ${describeValue(value)}`);
    if (value.length < minItems) at.fail(`must have at least ${minItems} item${minItems === 1 ? '' : 's'}`);
    if (value.length > maxItems) at.fail(`must have at most ${maxItems} items, got ${value.length}`);
    const items = value.map((element, position) => item(element, at.index(position)));
    if (rules.uniqueBy) {
      const seen = new Map<string, number>();
      items.forEach((element, position) => {
        const key = rules.uniqueBy!.key(element);
        const first = seen.get(key);
        if (first !== undefined) {
          at.index(position).fail(`duplicate ${rules.uniqueBy!.what} ${JSON.stringify(key)} (already at index ${first})`);
        }
        seen.set(key, position);
      });
    }
    return items;
  };
}

/** Set-like array of allowed words: no duplicates, every item from `values`. */
export function subsetOf<const T extends readonly string[]>(values: T, rules: { minItems?: number } = {}): Schema<T[number][]> {
  return array(oneOf(values), { minItems: rules.minItems ?? 0, uniqueBy: { key: (v) => v, what: 'value' } });
}

export interface ObjectRules {
  /**
   * What to do with members the schema does not know. Nested objects reject them (a typo such as
   * `permisions` must not silently drop a restriction); the top level of a file warns instead so a
   * newer file still loads on an older build.
   */
  readonly unknownKeys?: 'reject' | 'warn';
}

export function object<F extends Record<string, Schema<unknown>>>(fields: F, rules: ObjectRules = {}): Schema<ObjectOf<F>> {
  return (value, at) => {
    required(value, at);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return at.fail(`must be a JSON object, got ${describeValue(value)}`);
    }
    const source = value as Record<string, unknown>;
    for (const key of Object.keys(source)) {
      if (Object.hasOwn(fields, key)) continue;
      if (rules.unknownKeys === 'warn') at.key(key).warn('unknown key, ignored');
      else at.key(key).fail(`unknown key (allowed: ${Object.keys(fields).join(', ')})`);
    }
    const result: Record<string, unknown> = {};
    for (const [key, schema] of Object.entries(fields)) {
      const member = Object.hasOwn(source, key) ? source[key] : undefined;
      const parsed = schema(member, at.key(key));
      if (parsed !== undefined) result[key] = parsed;
    }
    return result as ObjectOf<F>;
  };
}

export function optional<T>(schema: Schema<T>): Schema<T | undefined> {
  return (value, at) => (value === undefined ? undefined : schema(value, at));
}

export function withDefault<T>(schema: Schema<T>, fallback: T): Schema<T> {
  return (value, at) => (value === undefined ? fallback : schema(value, at));
}

/** Adds a rule on top of a schema; `check` calls `at.fail(...)` to refuse. */
export function refine<T>(schema: Schema<T>, check: (value: T, at: JsonPath) => void): Schema<T> {
  return (value, at) => {
    const parsed = schema(value, at);
    check(parsed, at);
    return parsed;
  };
}

export interface UrlRules {
  readonly protocols?: readonly string[];
  /** Fragments are never allowed; query strings only where a protocol permits them. */
  readonly allowQuery?: boolean;
}

export function absoluteUrl(rules: UrlRules = {}): Schema<string> {
  const protocols = rules.protocols ?? ['https:', 'http:'];
  return refine(string({ maxLength: 2048 }), (value, at) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return at.fail(`must be an absolute URL, got ${describeValue(value)}`);
    }
    if (!protocols.includes(url.protocol)) at.fail(`must use ${protocols.map((p) => p.slice(0, -1)).join(' or ')}, got ${describeValue(value)}`);
    if (url.username || url.password) at.fail('must not contain credentials');
    if (url.hash || value.includes('#')) at.fail('must not contain a fragment');
    if (!rules.allowQuery && url.search) at.fail('must not contain a query string');
  });
}

export interface ValidatedJson<T> {
  readonly value: T;
  readonly warnings: readonly string[];
}

/** Runs a schema over a parsed document; `source` (usually the file name) prefixes every message. */
export function validateJson<T>(schema: Schema<T>, document: unknown, source: string): ValidatedJson<T> {
  const root = JsonPath.root();
  try {
    const value = schema(document, root);
    return { value, warnings: root.warnings.map((warning) => `${source} ${warning}`) };
  } catch (error) {
    if (error instanceof SchemaViolation) {
      throw new ConfigError(error.path ? `${source} ${error.path}: ${error.problem}` : `${source}: ${error.problem}`, { cause: error });
    }
    throw error;
  }
}
