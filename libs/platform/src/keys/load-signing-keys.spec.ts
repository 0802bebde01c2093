import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, importJWK, jwtVerify, SignJWT } from 'jose';
import { pino } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { DEV_KEY_FILE_NAME, loadSigningKeys } from './load-signing-keys.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

function capturingLogger(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const logger = pino({ level: 'info' }, { write: (chunk: string) => void chunks.push(chunk) });
  return { logger, lines: () => chunks.map((chunk) => JSON.parse(chunk) as Record<string, unknown>) };
}

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'signing-keys-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('development signing keys', () => {
  it('are generated on first start with a 0600 private file, a thumbprint kid and a loud warning', async () => {
    const { logger, lines } = capturingLogger();
    const keys = await loadSigningKeys({ dataDir }, logger);
    const path = join(dataDir, 'keys', DEV_KEY_FILE_NAME);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'keys')).mode & 0o077).toBe(0);
    expect(keys.source).toBe('development');
    expect(keys.kid).toBe(await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: keys.publicJwk.x, y: keys.publicJwk.y }));
    const warning = lines().find((line) => line['level'] === 40);
    expect(warning?.['msg']).toContain('USING DEVELOPMENT SIGNING KEYS (generated now');
    expect(warning?.['generated']).toBe(true);
  });

  it('are reused on later starts', async () => {
    const first = await loadSigningKeys({ dataDir }, capturingLogger().logger);
    const { logger, lines } = capturingLogger();
    const second = await loadSigningKeys({ dataDir }, logger);
    expect(second.kid).toBe(first.kid);
    expect(second.publicJwk).toEqual(first.publicJwk);
    expect(lines().find((line) => line['level'] === 40)?.['msg']).toContain('generated earlier');
  });

  it('publish only public members', async () => {
    const keys = await loadSigningKeys({ dataDir }, capturingLogger().logger);
    const published = keys.jwks();
    expect(published.keys).toHaveLength(1);
    expect(Object.keys(published.keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    for (const member of PRIVATE_MEMBERS) expect(published.keys[0]).not.toHaveProperty(member);
    expect(published.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });

  it('sign tokens that the published key verifies', async () => {
    const keys = await loadSigningKeys({ dataDir }, capturingLogger().logger);
    const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: keys.alg, kid: keys.kid }).sign(keys.privateKey);
    const { payload } = await jwtVerify(token, await importJWK(keys.jwks().keys[0]!, 'ES256'));
    expect(payload['sub']).toBe('x');
  });

  it('tighten a development key file that others can read', async () => {
    await loadSigningKeys({ dataDir }, capturingLogger().logger);
    const path = join(dataDir, 'keys', DEV_KEY_FILE_NAME);
    chmodSync(path, 0o644);
    await loadSigningKeys({ dataDir }, capturingLogger().logger);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('refuse a damaged development key file and say how to recover', async () => {
    await loadSigningKeys({ dataDir }, capturingLogger().logger);
    const path = join(dataDir, 'keys', DEV_KEY_FILE_NAME);
    const jwk = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...jwk, d: undefined }));
    await expect(loadSigningKeys({ dataDir }, capturingLogger().logger)).rejects.toThrow(/must be a private key.*delete the file to generate a new development key/);
  });
});

describe('configured signing key (SIGNING_KEY_FILE)', () => {
  const writeKey = (value: unknown): string => {
    const path = join(dataDir, 'configured.jwk.json');
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  };
  const privateJwk = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

  it('is loaded without generating anything, keeping its kid', async () => {
    const signingKeyFile = writeKey({ ...privateJwk(), kid: 'prod-2026-11' });
    const { logger, lines } = capturingLogger();
    const keys = await loadSigningKeys({ dataDir, signingKeyFile }, logger);
    expect(keys.source).toBe('configured');
    expect(keys.kid).toBe('prod-2026-11');
    expect(lines().some((line) => line['level'] === 40)).toBe(false);
    expect(() => statSync(join(dataDir, 'keys'))).toThrow();
  });

  it.each([
    ['a public key', () => ({ ...privateJwk(), d: undefined }), 'must be a private key'],
    ['an Ed25519 key', () => generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), 'must be an EC P-256 key'],
    ['a key whose x/y belong to another key', () => ({ ...privateJwk(), x: privateJwk().x, y: privateJwk().y }), 'is not a valid P-256 private key (x and y must be the public point of d)'],
    ['a key with another alg', () => ({ ...privateJwk(), alg: 'ES384' }), 'alg must be "ES256"'],
    ['not JSON', () => '{oops', 'is not valid JSON'],
  ])('refuses %s with a ConfigError naming SIGNING_KEY_FILE', async (_what, make, expected) => {
    const signingKeyFile = writeKey(make());
    const failure = loadSigningKeys({ dataDir, signingKeyFile }, capturingLogger().logger);
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    const message = await failure.then(() => '', (error: Error) => error.message);
    expect(message.startsWith(`SIGNING_KEY_FILE ${signingKeyFile}`)).toBe(true);
    expect(message).toContain(expected);
  });

  it('refuses a missing file', async () => {
    await expect(loadSigningKeys({ dataDir, signingKeyFile: join(dataDir, 'missing.json') }, capturingLogger().logger)).rejects.toThrow(/^SIGNING_KEY_FILE .*missing\.json cannot be read/);
  });
});
