import { ConfigError } from './config-error.js';
import { absoluteUrl, array, boolean, integer, object, oneOf, optional, string, subsetOf, validateJson, withDefault, type Schema } from './schema.js';

const failure = (schema: Schema<unknown>, document: unknown): string => {
  try {
    validateJson(schema, document, 'test.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
};

const clients = object(
  {
    clients: array(
      object({
        id: string(),
        keys: array(object({ kty: oneOf(['EC', 'OKP'] as const) })),
        size: withDefault(integer(1, 10), 5),
        note: optional(string()),
      }),
      { uniqueBy: { key: (client) => client.id, what: 'id' } },
    ),
  },
  { unknownKeys: 'warn' },
);

describe('config schema', () => {
  it('returns a typed copy with defaults applied and optional members omitted', () => {
    const { value, warnings } = validateJson(clients, { clients: [{ id: 'a', keys: [{ kty: 'EC' }] }] }, 'test.json');
    expect(value).toEqual({ clients: [{ id: 'a', keys: [{ kty: 'EC' }], size: 5 }] });
    expect(Object.hasOwn(value.clients[0]!, 'note')).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('names the file and JSON path of the first problem', () => {
    expect(failure(clients, { clients: [{ id: 'a', keys: [{ kty: 'RSA' }] }] })).toBe('test.json clients[0].keys[0].kty: must be "EC" or "OKP", got "RSA"');
    expect(failure(clients, { clients: [{ id: 'a', keys: [], size: 11 }] })).toBe('test.json clients[0].size: must be an integer 1..10, got 11');
    expect(failure(clients, { clients: [{ keys: [] }] })).toBe('test.json clients[0].id: is required');
    expect(failure(clients, { clients: [{ id: '', keys: [] }] })).toBe('test.json clients[0].id: must not be empty');
    expect(failure(clients, [])).toBe('test.json: must be a JSON object, got []');
  });

  it('refuses duplicates and says where the first one is', () => {
    expect(failure(clients, { clients: [{ id: 'a', keys: [] }, { id: 'a', keys: [] }] })).toBe('test.json clients[1]: duplicate id "a" (already at index 0)');
  });

  it('refuses unknown nested keys but only warns about unknown top-level keys', () => {
    expect(failure(clients, { clients: [{ id: 'a', keys: [], colour: 'red' }] })).toBe('test.json clients[0].colour: unknown key (allowed: id, keys, size, note)');
    const { warnings } = validateJson(clients, { clients: [], extra: 1, 'odd key': 2 }, 'test.json');
    expect(warnings).toEqual(['test.json extra: unknown key, ignored', 'test.json ["odd key"]: unknown key, ignored']);
  });

  it('checks sets, booleans and URLs', () => {
    const schema = object({ words: subsetOf(['a', 'b'] as const), flag: boolean(), url: absoluteUrl() });
    const ok = { words: ['a'], flag: true, url: 'https://x.example/cb' };
    expect(validateJson(schema, ok, 'f').value).toEqual(ok);
    expect(failure(schema, { ...ok, words: ['a', 'a'] })).toBe('test.json words[1]: duplicate value "a" (already at index 0)');
    expect(failure(schema, { ...ok, flag: 'yes' })).toBe('test.json flag: must be true or false, got "yes"');
    expect(failure(schema, { ...ok, url: '/relative' })).toBe('test.json url: must be an absolute URL, got "/relative"');
    expect(failure(schema, { ...ok, url: 'ftp://x.example' })).toBe('test.json url: must use https or http, got "ftp://x.example"');
    expect(failure(schema, { ...ok, url: 'https://x.example/#frag' })).toBe('test.json url: must not contain a fragment');
  });

  it('never copies members it does not know, including __proto__', () => {
    const document = JSON.parse('{"clients": [], "__proto__": {"polluted": true}}') as unknown;
    const { value } = validateJson(clients, document, 'test.json');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
