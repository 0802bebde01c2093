import { createHash, createHmac, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@mission/platform';

/** Environment variable with the per-deployment audit HMAC key (base64url, ≥ 32 bytes; the same on every replica). */
export const AUDIT_DIGEST_KEY_ENV = 'SECURITY_AUDIT_HMAC_KEY';
/** Where the key is kept under DATA_DIR when the environment gives none. */
export const AUDIT_DIGEST_KEY_FILE = join('keys', 'security-audit-hmac.key');

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MIN_KEY_BYTES = 32;

/**
 * The per-deployment secret of the security audit's keyed digests (spec 5.9, DESIGN 3.3): the audit keeps
 * HMAC-SHA-256(key, reference) instead of a raw Mission Reference, so repeated probes of one reference
 * can be correlated without the log disclosing which mission was probed.
 */
export class AuditDigestKey {
  /** A short, non-secret identifier of the key (so digests made under different keys are not compared). */
  readonly id: string;

  constructor(private readonly key: Buffer) {
    if (key.length < MIN_KEY_BYTES) throw new ConfigError(`the audit HMAC key must be at least ${MIN_KEY_BYTES} bytes`);
    this.id = createHash('sha256').update('security-audit-hmac-key-id\0').update(key).digest('base64url').slice(0, 12);
  }

  /** base64url(HMAC-SHA-256(key, "<purpose>\0<value>")); the purpose keeps digests of different kinds apart. */
  digest(purpose: string, value: string): string {
    return createHmac('sha256', this.key).update(purpose).update('\0').update(value, 'utf8').digest('base64url');
  }
}

export interface LoadAuditDigestKeyResult {
  readonly key: AuditDigestKey;
  readonly source: 'environment' | 'generated' | 'data_dir';
  readonly path?: string;
}

function decodeKey(text: string, what: string): Buffer {
  const trimmed = text.trim();
  if (!BASE64URL.test(trimmed)) throw new ConfigError(`${what} must be base64url text`);
  const key = Buffer.from(trimmed, 'base64url');
  if (key.length < MIN_KEY_BYTES) throw new ConfigError(`${what} must decode to at least ${MIN_KEY_BYTES} bytes, got ${key.length}`);
  return key;
}

/**
 * The audit HMAC key: from `SECURITY_AUDIT_HMAC_KEY` when set (what several replicas must share, e.g. a
 * Kubernetes Secret); otherwise from `<DATA_DIR>/keys/security-audit-hmac.key`, generated (32 random
 * bytes, mode 0600) on first start. A replica with its own DATA_DIR gets its own key, so set the
 * variable whenever replicas share one audit stream.
 */
export async function loadAuditDigestKey(env: NodeJS.ProcessEnv, dataDir: string): Promise<LoadAuditDigestKeyResult> {
  const fromEnv = env[AUDIT_DIGEST_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    return { key: new AuditDigestKey(decodeKey(fromEnv, AUDIT_DIGEST_KEY_ENV)), source: 'environment' };
  }
  const path = join(dataDir, AUDIT_DIGEST_KEY_FILE);
  const generated = await createKeyFileIfMissing(path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`the audit HMAC key ${path} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  await chmod(path, 0o600).catch(() => undefined);
  return { key: new AuditDigestKey(decodeKey(text, `the audit HMAC key ${path}`)), source: generated ? 'generated' : 'data_dir', path };
}

/** Writes a fresh key next to its final name, then links it into place: concurrent starts agree on one key. */
async function createKeyFileIfMissing(path: string): Promise<boolean> {
  try {
    await readFile(path);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${randomBytes(MIN_KEY_BYTES).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
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
