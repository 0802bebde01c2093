import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files `generate-demo-config.mjs` writes must stay consistent with each other: every demo private
 * key belongs to a registered public key, and the Kubernetes ConfigMaps carry exactly the config files.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(join(root, path), 'utf8')) as Record<string, unknown>;

type Jwk = Record<string, string>;
const thumbprint = (jwk: Jwk): string =>
  createHash('sha256')
    .update(JSON.stringify(jwk['kty'] === 'EC' ? { crv: jwk['crv'], kty: jwk['kty'], x: jwk['x'], y: jwk['y'] } : { crv: jwk['crv'], kty: jwk['kty'], x: jwk['x'] }))
    .digest('base64url');

const issuer = readJson('config/issuer.json') as { clients: { client_id: string; jwks: { keys: Jwk[] } }[] };
const personServer = readJson('config/person-server.json') as {
  principals: { id: string; jkt: string }[];
  agent_providers: { issuer: string; jwks: { keys: Jwk[] } }[];
  resources: { issuer: string; jwks: { keys: Jwk[] } }[];
};

/** Where each demo private key's public half must be registered. */
function registeredThumbprints(fileStem: string): string[] {
  const [, kind, name] = /^(issuer-client|ps-principal|ps-agent-provider|ps-resource)-(.+)$/.exec(fileStem) ?? [];
  switch (kind) {
    case 'issuer-client':
      return issuer.clients.find((client) => client.client_id === name)?.jwks.keys.map(thumbprint) ?? [];
    case 'ps-principal':
      return personServer.principals.filter((principal) => principal.id === name).map((principal) => principal.jkt);
    case 'ps-agent-provider':
      return personServer.agent_providers.find((provider) => provider.issuer === `https://${name}`)?.jwks.keys.map(thumbprint) ?? [];
    case 'ps-resource':
      return personServer.resources.find((resource) => resource.issuer === `https://${name}`)?.jwks.keys.map(thumbprint) ?? [];
    default:
      return [];
  }
}

describe('generated demo configuration', () => {
  const keyFiles = readdirSync(join(root, 'config/demo-keys')).filter((name) => name.endsWith('.private.jwk.json'));

  it('has a private key for every demo party', () => {
    expect(keyFiles).toHaveLength(issuer.clients.length + personServer.principals.length + personServer.agent_providers.length + personServer.resources.length);
  });

  it.each(readdirSync(join(root, 'config/demo-keys')).filter((name) => name.endsWith('.private.jwk.json')))('%s is registered by its thumbprint', (file) => {
    const jwk = readJson(`config/demo-keys/${file}`) as Jwk;
    expect(typeof jwk['d']).toBe('string');
    expect(jwk['kid']).toBe(thumbprint(jwk));
    expect(registeredThumbprints(file.replace('.private.jwk.json', ''))).toContain(thumbprint(jwk));
  });

  it.each([
    ['issuer', 'tools/k8s/overlays/dev/issuer.json'],
    ['person-server', 'tools/k8s/base/person-server.json'],
  ])('the Kubernetes generator input for %s (%s) is config/%s.json unchanged', (service, path) => {
    expect(readFileSync(join(root, path), 'utf8')).toBe(readFileSync(join(root, `config/${service}.json`), 'utf8'));
  });
});
