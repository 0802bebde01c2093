/** The public demo keys of config/demo-keys (never for production: anyone can sign as these parties). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { repositoryRoot } from './stack.js';

export function demoKey(name: string): JWK {
  return JSON.parse(readFileSync(join(repositoryRoot, 'config/demo-keys', `${name}.private.jwk.json`), 'utf8')) as JWK;
}

/** The private key of a demo issuer client (`demo-agent`, `demo-subagent`, `demo-worker`, `demo-admin`, ...). */
export const issuerClientKey = (clientId: string): JWK => demoKey(`issuer-client-${clientId}`);
