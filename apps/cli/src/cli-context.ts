import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import { MissionClientError } from '@mission/mission-client';

export interface Output {
  write(text: string): unknown;
}

/** Parsed flags and positionals of one command, the environment, and where to print. */
export interface CliContext {
  readonly positionals: readonly string[];
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: Output;
  readonly json: boolean;
}

/** A usage error (exit 2). */
export class UsageError extends Error {}

export function flag(context: CliContext, name: string, envName?: string): string | undefined {
  const value = context.flags[name];
  if (typeof value === 'string') return value;
  return envName !== undefined ? context.env[envName] : undefined;
}

export function required(context: CliContext, name: string, envName?: string): string {
  const value = flag(context, name, envName);
  if (value === undefined || value === '') throw new UsageError(`--${name}${envName ? ` (or ${envName})` : ''} is required`);
  return value;
}

export function positional(context: CliContext, index: number, what: string): string {
  const value = context.positionals[index];
  if (value === undefined) throw new UsageError(`missing ${what}`);
  return value;
}

/** Reads a private JWK file (`--key` or `MISSION_KEY_FILE`); a bad file is a clear `bad_key` error. */
export function keyFile(context: CliContext): JWK {
  const path = required(context, 'key', 'MISSION_KEY_FILE');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new MissionClientError('bad_key', `cannot read the key file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return JSON.parse(text) as JWK;
  } catch {
    throw new MissionClientError('bad_key', `the key file ${path} is not JSON (expected a private JWK)`);
  }
}

/** Prints `value` as JSON with `--json`, else as the human text. */
export function print(context: CliContext, value: unknown, human: string): void {
  context.out.write(context.json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
}
