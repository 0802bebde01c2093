import { escapeHtml, renderConsentPage } from './consent-page.js';
import { verifyPassword } from './verify-password.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../testing/run-issuer.js';

describe('consent page (issue 3 item 4: derived Authority Set, goal and expiry as inert text)', () => {
  const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
  const page = renderConsentPage({
    clientId: 'demo-agent',
    requestUri: 'urn:ietf:params:oauth:request_uri:abc',
    goal: hostile,
    expiresAt: '2026-11-23T00:00:00Z',
    authoritySet: [{ type: 'mission_resource_access', resource: hostile, actions: ['read'] }],
    csrfToken: 'token"><script>',
  });

  it('escapes every client-controlled string', () => {
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain(escapeHtml('<script>alert(1)</script>'));
    expect(page).toContain('value="token&quot;&gt;&lt;script&gt;"');
  });

  it('issue 17: the Authority Set is a readable table (resource, actions, constraints, delegation, children), still escaped', () => {
    const table = renderConsentPage({
      clientId: 'demo-agent',
      requestUri: 'urn:x',
      goal: 'g',
      expiresAt: '2026-11-23T00:00:00Z',
      authoritySet: [
        { type: 'mission_resource_access', resource: 'https://files.example/a', actions: ['read', 'write'], constraints: { max_amount: 100 }, delegation: { max_depth: 2, children: { max_children: 3 } } },
        { type: 'mission_resource_access', resource: hostile, actions: [hostile] },
      ],
      csrfToken: 't',
    });
    expect(table).not.toContain('<pre>');
    expect(table).toContain('<th scope="row"><code>https://files.example/a</code></th><td>read, write</td><td><ul><li>max amount: 100</li></ul></td><td><ul><li>max depth: 2</li></ul></td><td><ul><li>max children: 3</li></ul></td>');
    expect(table).toContain('<td>may not delegate</td><td>none</td>');
    expect(table).not.toContain('<script>');
    expect(table).not.toContain('<img');
  });

  it('shows goal, expiry and the authority set', () => {
    expect(page).toContain('2026-11-23T00:00:00Z');
    expect(page).toContain('name="decision" value="approve"');
    expect(page).toContain('name="decision" value="decline"');
  });
});

describe('person passwords (scrypt, issue 3 item 4)', () => {
  const config = JSON.parse(readFileSync(join(repositoryRoot, 'config/issuer.json'), 'utf8')) as { persons: { sub: string; password_hash: string }[] };
  const alice = config.persons.find((person) => person.sub === 'alice')!;

  it('accepts the right password and refuses a wrong one', async () => {
    expect(await verifyPassword('alice-demo-password', alice.password_hash)).toBe(true);
    expect(await verifyPassword('alice-demo-passwordX', alice.password_hash)).toBe(false);
  });

  it('refuses an unknown person after the same work', async () => {
    expect(await verifyPassword('alice-demo-password', undefined)).toBe(false);
  });
});
