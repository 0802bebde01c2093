#!/usr/bin/env node
/**
 * Regenerates the demo configuration with fresh keys:
 *   config/issuer.json, config/person-server.json      public keys, registries (what the services load)
 *   config/demo-keys/*.private.jwk.json                the matching private keys (PUBLIC DEMO KEYS: committed
 *                                                       on purpose so tests and demos can act as these parties)
 *   tools/k8s/base/person-server.json,                 the same registries as inputs of the kustomize generators
 *   tools/k8s/overlays/dev/issuer.json                 (configMapGenerator / secretGenerator, ADR 0052)
 * Run from anywhere: `node tools/scripts/generate-demo-config.mjs`. Only node:crypto is used, so it runs
 * before `npm ci` too. Existing files are overwritten; services started earlier keep their old keys in memory.
 */
import { createHash, generateKeyPairSync, randomBytes, scryptSync } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const configDir = join(root, 'config');
const keysDir = join(configDir, 'demo-keys');

/** Same format the issuer validates: scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key> (base64url, unpadded). */
const SCRYPT = { log2N: 15, r: 8, p: 1, keyLength: 32 };

const DEMO_PASSWORDS = { alice: 'alice-demo-password', bob: 'bob-demo-password' };

/** RFC 7638 thumbprint over the required members in lexicographic order. */
function thumbprint(jwk) {
  const required = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(required)).digest('base64url');
}

/** A fresh key pair as JWKs, with `kid` = thumbprint; `alg` is ES256 (P-256) or EdDSA (Ed25519). */
function newKeyPair(type) {
  const { privateKey } = type === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const privateJwk = privateKey.export({ format: 'jwk' });
  const publicMembers = { ...privateJwk };
  delete publicMembers.d;
  const kid = thumbprint(publicMembers);
  const alg = type === 'ES256' ? 'ES256' : 'EdDSA';
  return {
    kid,
    publicJwk: { ...publicMembers, kid, alg, use: 'sig' },
    privateJwk: { ...privateJwk, kid, alg, use: 'sig' },
  };
}

function passwordHash(password) {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, SCRYPT.keyLength, { N: 2 ** SCRYPT.log2N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$ln=${SCRYPT.log2N},r=${SCRYPT.r},p=${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const privateKeyFiles = new Map();
function keyFor(fileStem, type) {
  const pair = newKeyPair(type);
  privateKeyFiles.set(`${fileStem}.private.jwk.json`, pair.privateJwk);
  return pair;
}

const ALL_GRANTS = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:mission-child-creation'];

const issuerConfig = {
  clients: [
    {
      client_id: 'demo-agent',
      jwks: { keys: [keyFor('issuer-client-demo-agent', 'ES256').publicJwk] },
      sub_profile: 'ai_agent',
      redirect_uris: ['http://127.0.0.1:9000/cb'],
      grant_types: ALL_GRANTS,
      approval_policy: 'auto',
      permissions: ['lifecycle', 'status', 'introspection', 'audit'],
    },
    {
      client_id: 'demo-consent-agent',
      jwks: { keys: [keyFor('issuer-client-demo-consent-agent', 'ES256').publicJwk] },
      sub_profile: 'ai_agent',
      redirect_uris: ['http://127.0.0.1:9000/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      approval_policy: 'consent',
      permissions: ['status', 'introspection'],
    },
    {
      client_id: 'demo-subagent',
      jwks: { keys: [keyFor('issuer-client-demo-subagent', 'EdDSA').publicJwk] },
      // Spec child-mission-delegation 2.2: a space-separated profile list, matched against allowed_child_actors.
      sub_profile: 'ai_agent tool_runner',
      redirect_uris: [],
      grant_types: ['refresh_token', 'urn:ietf:params:oauth:grant-type:mission-child-creation'],
      approval_policy: 'auto',
      permissions: ['lifecycle', 'status', 'introspection'],
    },
    {
      // Issue 11: a third agent, so a grandchild's actor is neither its parent's nor its grandparent's client.
      client_id: 'demo-worker',
      jwks: { keys: [keyFor('issuer-client-demo-worker', 'EdDSA').publicJwk] },
      sub_profile: 'ai_agent',
      redirect_uris: [],
      grant_types: ['refresh_token', 'urn:ietf:params:oauth:grant-type:mission-child-creation'],
      approval_policy: 'auto',
      permissions: ['lifecycle', 'status', 'introspection'],
    },
    {
      client_id: 'demo-admin',
      jwks: { keys: [keyFor('issuer-client-demo-admin', 'ES256').publicJwk] },
      sub_profile: 'operator',
      redirect_uris: [],
      grant_types: [],
      approval_policy: 'consent',
      permissions: ['admin', 'lifecycle', 'status', 'introspection', 'audit'],
    },
  ],
  persons: Object.entries(DEMO_PASSWORDS).map(([sub, password]) => ({ sub, password_hash: passwordHash(password) })),
  access_token_ttl_seconds: 300,
  mission_max_stale_seconds: 60,
  // Spec child-mission-delegation 2.4 child_creation_policy: named policies beside the built-in allow and deny.
  child_missions: {
    creation_grant_ttl_seconds: 300,
    policies: [
      { name: 'short-lived', effect: 'allow', max_child_lifetime_seconds: 3600 },
      { name: 'first-generation-only', effect: 'allow', max_child_depth: 1 },
      { name: 'frozen', effect: 'deny' },
    ],
    experimental_cascade_modes: [],
  },
};

const personServerConfig = {
  principals: [
    { id: 'alice', role: 'person', jkt: keyFor('ps-principal-alice', 'EdDSA').kid, tenant: 't1', agents: ['aauth:assistant@agents.example'] },
    { id: 'bob', role: 'person', jkt: keyFor('ps-principal-bob', 'ES256').kid, tenant: 't1', agents: ['aauth:researcher@agents.example'] },
    { id: 'ops', role: 'admin', jkt: keyFor('ps-principal-ops', 'ES256').kid, tenant: 't1' },
  ],
  agent_providers: [{ issuer: 'https://agents.example', agent_domains: ['agents.example'], jwks: { keys: [keyFor('ps-agent-provider-agents.example', 'ES256').publicJwk] } }],
  resources: [
    {
      issuer: 'https://files.example',
      jwks: { keys: [keyFor('ps-resource-files.example', 'ES256').publicJwk] },
      revocation_endpoint: 'http://127.0.0.1:5000/revoke',
      // DESIGN 3.3 call chains (ADR 0012): the agent this resource calls onwards as.
      call_chain_agents: ['aauth:files-service@agents.example'],
      // Spec 4.3 rule 3 (ADR 0019): those agents belong to tenant t1, so t1's callers see their call-chain nodes.
      tenant: 't1',
    },
  ],
  untracked_access_modes: true,
  status_freshness_seconds: 30,
  rate_limits: { per_caller_per_minute: 600, per_source_per_minute: 6000 },
};

function writeText(path, text) {
  writeFileSync(path, text);
  console.log(`wrote ${relative(root, path)}`);
}

function writeJson(path, value) {
  writeText(path, `${JSON.stringify(value, null, 2)}\n`);
}

mkdirSync(keysDir, { recursive: true });
for (const name of readdirSync(keysDir)) {
  if (name.endsWith('.private.jwk.json')) rmSync(join(keysDir, name));
}
writeJson(join(configDir, 'issuer.json'), issuerConfig);
writeJson(join(configDir, 'person-server.json'), personServerConfig);
// The Kubernetes generators read these copies (kustomize loads only files under a kustomization's directory).
writeJson(join(root, 'tools/k8s/overlays/dev/issuer.json'), issuerConfig);
writeJson(join(root, 'tools/k8s/base/person-server.json'), personServerConfig);
for (const [name, jwk] of privateKeyFiles) writeJson(join(keysDir, name), jwk);
