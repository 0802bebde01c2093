import { createPrivateKey, createPublicKey } from 'node:crypto';
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { SigningKeys, type PublicSigningJwk } from './signing-keys.js';

export const DEV_KEY_FILE_NAME = 'signing-es256.private.jwk.json';
const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;
const KID = /^[\x21-\x7e]{1,128}$/;

export interface SigningKeySettings {
  readonly dataDir: string;
  /** A private EC P-256 JWK (e.g. a mounted Kubernetes Secret); unset → development keys. */
  readonly signingKeyFile?: string;
}

/**
 * Loads the configured signing key, or — when none is configured — the development key under
 * `<DATA_DIR>/keys/`, generating it on first start. Development keys are announced with a warning on
 * every start: they sit unencrypted next to the data and exist only so a fresh checkout runs.
 */
export async function loadSigningKeys(settings: SigningKeySettings, logger: Logger): Promise<SigningKeys> {
  if (settings.signingKeyFile !== undefined) {
    const keys = await readPrivateJwkFile(settings.signingKeyFile, 'SIGNING_KEY_FILE', 'configured');
    logger.info({ kid: keys.kid, path: settings.signingKeyFile }, 'signing key loaded from SIGNING_KEY_FILE');
    return keys;
  }
  const path = join(settings.dataDir, 'keys', DEV_KEY_FILE_NAME);
  const generated = await createDevelopmentKeyIfMissing(path);
  const keys = await readPrivateJwkFile(path, 'development signing key', 'development');
  logger.warn(
    { kid: keys.kid, path, generated },
    `USING DEVELOPMENT SIGNING KEYS (${generated ? 'generated now' : 'generated earlier'} at ${path}): ` +
      'anyone with access to this file can sign tokens as this service; set SIGNING_KEY_FILE to a managed key in production',
  );
  return keys;
}

/** Writes a new key next to its final name, then links it into place: a concurrent start never reads half a file. */
async function createDevelopmentKeyIfMissing(path: string): Promise<boolean> {
  if (await exists(path)) return false;
  const directory = join(path, '..');
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! }, 'sha256');
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ ...jwk, kid, alg: 'ES256', use: 'sig' }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function readPrivateJwkFile(path: string, what: string, source: 'configured' | 'development'): Promise<SigningKeys> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${what} ${path} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (source === 'development') await tightenPermissions(path);
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ConfigError(`${what} ${path} is not valid JSON`);
  }
  const problem = describeKeyProblem(jwk);
  if (problem) {
    const hint = source === 'development' ? '; delete the file to generate a new development key' : '';
    throw new ConfigError(`${what} ${path}: ${problem}${hint}`);
  }
  const kid = typeof jwk['kid'] === 'string' ? jwk['kid'] : await calculateJwkThumbprint(publicMembers(jwk) as JWK, 'sha256');
  const publicJwk: PublicSigningJwk = { ...publicMembers(jwk), kid, alg: 'ES256', use: 'sig' };
  const privateKey = await importJWK({ kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y, d: jwk['d'] as string }, 'ES256');
  if (privateKey instanceof Uint8Array) throw new ConfigError(`${what} ${path}: not an asymmetric key`);
  return new SigningKeys(privateKey, publicJwk, source);
}

/** Why the object is not a usable private ES256 JWK, or undefined when it is. */
function describeKeyProblem(jwk: Record<string, unknown>): string | undefined {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return 'must be a JWK object';
  if (jwk['kty'] !== 'EC' || jwk['crv'] !== 'P-256') return 'must be an EC P-256 key (kty "EC", crv "P-256") for ES256';
  for (const member of ['x', 'y', 'd']) {
    if (typeof jwk[member] !== 'string' || !BASE64URL_32_BYTES.test(jwk[member] as string)) {
      return member === 'd' ? 'must be a private key: member "d" is missing or malformed' : `member "${member}" is missing or malformed`;
    }
  }
  if (jwk['alg'] !== undefined && jwk['alg'] !== 'ES256') return `alg must be "ES256", got ${JSON.stringify(jwk['alg'])}`;
  if (jwk['kid'] !== undefined && (typeof jwk['kid'] !== 'string' || !KID.test(jwk['kid']))) return 'kid must be 1..128 printable ASCII characters';
  try {
    // The stored public coordinates must belong to the private scalar, or /jwks would publish a key that verifies nothing.
    const derived = createPublicKey(createPrivateKey({ key: { kty: 'EC', crv: 'P-256', x: jwk['x'], y: jwk['y'], d: jwk['d'] } as never, format: 'jwk' })).export({ format: 'jwk' });
    if (derived.x !== jwk['x'] || derived.y !== jwk['y']) return 'x/y do not match the private key d';
  } catch {
    return 'is not a valid P-256 private key (x and y must be the public point of d)';
  }
  return undefined;
}

function publicMembers(jwk: Record<string, unknown>): { kty: 'EC'; crv: 'P-256'; x: string; y: string } {
  return { kty: 'EC', crv: 'P-256', x: jwk['x'] as string, y: jwk['y'] as string };
}

/** A development key readable by other users (copied around, restored from a backup) is fixed rather than refused. */
async function tightenPermissions(path: string): Promise<void> {
  const mode = (await stat(path)).mode & 0o777;
  if ((mode & 0o077) !== 0) await chmod(path, 0o600).catch(() => undefined);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
