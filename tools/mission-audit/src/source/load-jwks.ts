import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { UsageError } from '../cli-args.js';

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use'] as const;
/** Where a service keeps its development key (libs/platform DEV_KEY_FILE_NAME). */
const DEV_KEY_PATH = ['keys', 'signing-es256.private.jwk.json'];

export interface LoadedJwks {
  readonly jwks: { keys: JWK[] };
  readonly from: string;
}

/**
 * The public keys seals are checked with: `--jwks` (a file, or the service's `/jwks` URL), else — for a
 * development store only — the public half of the development key under DATA_DIR (private members are
 * dropped before use: checking needs no secret).
 */
export async function loadJwks(jwks: string | undefined, dataDir: string | undefined): Promise<LoadedJwks | undefined> {
  if (jwks !== undefined) return { jwks: await readJwks(jwks), from: jwks };
  if (dataDir === undefined) return undefined;
  const devKey = join(dataDir, ...DEV_KEY_PATH);
  if (!existsSync(devKey)) return undefined;
  const jwk = parseJson(readFileSync(devKey, 'utf8'), devKey) as Record<string, unknown>;
  const publicJwk = Object.fromEntries(PUBLIC_MEMBERS.filter((member) => jwk[member] !== undefined).map((member) => [member, jwk[member]])) as JWK;
  return { jwks: { keys: [publicJwk] }, from: `${devKey} (public half of the development key; pass --jwks for an independent check)` };
}

async function readJwks(location: string): Promise<{ keys: JWK[] }> {
  let text: string;
  try {
    text = /^https?:\/\//.test(location) ? await (await fetch(location)).text() : readFileSync(location, 'utf8');
  } catch (error) {
    throw new UsageError(`--jwks ${location} cannot be read: ${(error as Error).message}`);
  }
  const value = parseJson(text, location) as { keys?: unknown };
  if (!Array.isArray(value.keys)) throw new UsageError(`--jwks ${location} is not a JWK Set ({"keys": [...]})`);
  return { keys: value.keys as JWK[] };
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${where} is not valid JSON`);
  }
}
