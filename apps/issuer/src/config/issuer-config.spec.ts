import { readFileSync } from 'node:fs';
import { ConfigError, validateJson } from '@mission/platform';
import { demoConfigFile } from '../testing/run-issuer.js';
import { issuerConfigSchema } from './issuer-config.js';
import { parsePasswordHash } from './password-hash.js';

type Document = { clients: Record<string, unknown>[]; persons: Record<string, unknown>[] } & Record<string, unknown>;
const demo = (): Document => JSON.parse(readFileSync(demoConfigFile, 'utf8')) as Document;

function failure(edit: (config: Document) => void): string {
  const config = demo();
  edit(config);
  try {
    validateJson(issuerConfigSchema, config, 'issuer.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('issuer CONFIG_FILE schema', () => {
  it('accepts the shipped demo configuration', () => {
    const { value, warnings } = validateJson(issuerConfigSchema, demo(), 'issuer.json');
    expect(warnings).toEqual([]);
    expect(value.clients.map((client) => client.client_id)).toEqual(['demo-agent', 'demo-consent-agent', 'demo-subagent', 'demo-worker', 'demo-admin']);
    expect(value.clients[2]!.jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(value.persons.map((person) => person.sub)).toEqual(['alice', 'bob']);
    expect(value).toMatchObject({ access_token_ttl_seconds: 300, mission_max_stale_seconds: 60 });
  });

  it('fills defaults for optional settings', () => {
    const config = demo();
    for (const key of ['persons', 'access_token_ttl_seconds', 'mission_max_stale_seconds']) Reflect.deleteProperty(config, key);
    delete config.clients[0]!['permissions'];
    const { value } = validateJson(issuerConfigSchema, config, 'issuer.json');
    expect(value).toMatchObject({ persons: [], access_token_ttl_seconds: 300, mission_max_stale_seconds: 60 });
    expect(value.clients[0]!.permissions).toEqual([]);
  });

  it('warns about unknown top-level keys but refuses unknown client members', () => {
    const config = { ...demo(), token_ttl: 5 };
    expect(validateJson(issuerConfigSchema, config, 'issuer.json').warnings).toEqual(['issuer.json token_ttl: unknown key, ignored']);
    expect(failure((c) => void (c.clients[0]!['permisions'] = []))).toMatch(/^issuer\.json clients\[0\]\.permisions: unknown key/);
  });

  it.each<[string, (config: Document) => void, string]>([
    ['no clients', (c) => void (c.clients = []), 'clients: must have at least 1 item'],
    ['duplicate client_id', (c) => void (c.clients[1]!['client_id'] = 'demo-agent'), 'clients[1]: duplicate client_id "demo-agent" (already at index 0)'],
    ['client_id with a space', (c) => void (c.clients[0]!['client_id'] = 'demo agent'), 'clients[0].client_id: must be printable ASCII without spaces'],
    ['missing jwks', (c) => void delete c.clients[0]!['jwks'], 'clients[0].jwks: is required'],
    ['bad sub_profile', (c) => void (c.clients[0]!['sub_profile'] = 'AI Agent'), 'clients[0].sub_profile: must be one or more space-separated profile names'],
    ['relative redirect URI', (c) => void (c.clients[0]!['redirect_uris'] = ['/cb']), 'clients[0].redirect_uris[0]: must be an absolute URL, got "/cb"'],
    ['http redirect URI off loopback', (c) => void (c.clients[0]!['redirect_uris'] = ['http://app.example/cb']), 'clients[0].redirect_uris[0]: must use https (plain http is allowed for loopback hosts only)'],
    ['redirect URI with fragment', (c) => void (c.clients[0]!['redirect_uris'] = ['https://app.example/cb#x']), 'clients[0].redirect_uris[0]: must not contain a fragment'],
    ['authorization_code without redirect URIs', (c) => void (c.clients[0]!['redirect_uris'] = []), 'clients[0].redirect_uris: must list at least one URI for a client allowed the authorization_code grant'],
    ['unknown grant type', (c) => void (c.clients[0]!['grant_types'] = ['client_credentials']), 'clients[0].grant_types[0]: must be "authorization_code"'],
    ['repeated grant type', (c) => void (c.clients[0]!['grant_types'] = ['refresh_token', 'refresh_token']), 'clients[0].grant_types[1]: duplicate value "refresh_token"'],
    ['unknown approval policy', (c) => void (c.clients[0]!['approval_policy'] = 'always'), 'clients[0].approval_policy: must be "auto" or "consent", got "always"'],
    ['unknown permission', (c) => void (c.clients[0]!['permissions'] = ['root']), 'clients[0].permissions[0]: must be "lifecycle", "status", "introspection", "audit" or "admin", got "root"'],
    ['password hash of another scheme', (c) => void (c.persons[0]!['password_hash'] = 'bcrypt$2b$10$abc'), 'persons[0].password_hash: must be scrypt$ln=<14..20>'],
    ['duplicate person', (c) => void (c.persons[1]!['sub'] = 'alice'), 'persons[1]: duplicate sub "alice" (already at index 0)'],
    ['token lifetime too short', (c) => void (c['access_token_ttl_seconds'] = 5), 'access_token_ttl_seconds: must be an integer 30..86400, got 5'],
    ['staleness bound too long', (c) => void (c['mission_max_stale_seconds'] = 7200), 'mission_max_stale_seconds: must be an integer 0..3600, got 7200'],
  ])('refuses %s', (_what, edit, expected) => {
    expect(failure(edit)).toContain(`issuer.json ${expected}`);
  });
});

describe('password hash format', () => {
  it('parses the demo hashes', () => {
    const parsed = parsePasswordHash(demo().persons[0]!['password_hash'] as string);
    expect(parsed).toMatchObject({ log2N: 15, r: 8, p: 1 });
    expect(parsed!.salt.length).toBe(16);
    expect(parsed!.key.length).toBe(32);
  });

  it.each([
    'scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'scrypt$ln=15,r=8,p=1$AAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA',
    'scrypt$15$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  ])('refuses weak or malformed %s', (text) => {
    expect(parsePasswordHash(text)).toBeUndefined();
  });
});
