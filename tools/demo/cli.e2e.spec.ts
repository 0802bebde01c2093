import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningKey, IssuerClient, PersonServerClient } from '@mission/mission-client';
import { demoKey, issuerClientKey } from './stack/demo-keys.js';
import { agentToken, ASSISTANT } from './stack/parties.js';
import { repositoryRoot, Stack } from './stack/stack.js';
import { inMinutes, REDIRECT_URI, ROOT_AUTHORITY } from './story/authority.js';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built `mission` bin, as a script runs it. */
function mission(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repositoryRoot, 'apps/cli/bin/mission.mjs'), ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('mission CLI (e2e against both services)', () => {
  let stack: Stack;
  let dir: string;
  const keyPath = (name: string, jwk: unknown): string => {
    const path = join(dir, `${name}.jwk.json`);
    writeFileSync(path, JSON.stringify(jwk));
    return path;
  };

  beforeAll(async () => {
    stack = await Stack.start();
    dir = mkdtempSync(join(tmpdir(), 'mission-cli-'));
  }, 120_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('--help lists the commands; keygen prints a key and its thumbprint; usage errors exit 2', async () => {
    const help = await mission(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['ps approve', 'terminate', 'revoke-token', 'issuer <command>', 'evidence', 'introspect', 'keygen']) expect(help.stdout).toContain(command.split(' ').pop());
    const key = await mission(['keygen', '--json']);
    expect(key.code).toBe(0);
    expect(JSON.parse(key.stdout)).toMatchObject({ jkt: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), private_jwk: { d: expect.any(String) } });
    expect((await mission(['ps', 'frobnicate'])).code).toBe(2);
  });

  it('bad key files, bad URLs and an unreachable service are one-line errors with their exit codes, never stack traces', async () => {
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, 'nope');
    const badKey = await mission(['ps', 'status', 'x', '--key', notJson, '--ps-url', stack.personServerUrl]);
    expect(badKey).toMatchObject({ code: 3 });
    expect(badKey.stderr).toMatch(/^mission: the key file .* is not JSON/);
    const badUrl = await mission(['issuer', 'status', 'msn_x', '--issuer-url', 'not a url', '--client-id', 'demo-admin', '--key', keyPath('admin', issuerClientKey('demo-admin'))]);
    expect(badUrl).toMatchObject({ code: 3 });
    const down = await mission(['ps', 'status', 'x', '--key', keyPath('alice', demoKey('ps-principal-alice')), '--ps-url', 'http://127.0.0.1:9']);
    expect(down.code).toBe(4);
    for (const run of [badKey, badUrl, down]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a person approves, reads status and the tree, and terminates; an operator reads, suspends and revokes at the issuer', async () => {
    const agentKey = await generateSigningKey('EdDSA');
    const agent = await PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'agent', key: agentKey, agentToken: () => agentToken(ASSISTANT, agentKey) } });
    const proposal = await agent.proposeMission({ description: 'CLI test' });
    const alice = { MISSION_PS_URL: stack.personServerUrl, MISSION_KEY_FILE: keyPath('alice', demoKey('ps-principal-alice')) };
    const approved = await mission(['ps', 'approve', proposal.pendingId, '--json'], alice);
    expect(approved.code).toBe(0);
    const { s256 } = JSON.parse(approved.stdout) as { s256: string };
    expect((await mission(['ps', 'status', s256], alice))).toMatchObject({ code: 0, stdout: expect.stringContaining('active') });
    expect((await mission(['ps', 'tree', s256], alice)).stdout).toContain(ASSISTANT);
    const terminated = await mission(['ps', 'terminate', s256, '--reason', 'revoked'], alice);
    expect(terminated).toMatchObject({ code: 0, stdout: expect.stringContaining('token residual') });
    expect((await mission(['ps', 'status', s256], alice)).code).toBe(10);
    const refused = await mission(['ps', 'terminate', s256, '--reason', 'frozen'], alice);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('invalid_termination_reason');

    const root = await (await IssuerClient.discover({ issuer: stack.issuerUrl, clientId: 'demo-agent', clientKey: issuerClientKey('demo-agent') }))
      .obtainRootMission({ intent: { goal: 'CLI', resources: ['https://erp.example.com'], expiresAt: inMinutes(30) }, authorizationDetails: ROOT_AUTHORITY, redirectUri: REDIRECT_URI });
    const operator = { MISSION_ISSUER_URL: stack.issuerUrl, MISSION_CLIENT_ID: 'demo-admin', MISSION_KEY_FILE: keyPath('admin', issuerClientKey('demo-admin')) };
    expect((await mission(['issuer', 'status', root.id], operator)).code).toBe(0);
    expect((await mission(['issuer', 'suspend', root.id, '--reason', 'check'], operator)).stdout).toContain('suspended');
    expect((await mission(['issuer', 'status', root.id], operator)).code).toBe(10);
    expect((await mission(['issuer', 'revoke', root.id, '--reason', 'done'], operator)).stdout).toContain('revoked');
    expect((await mission(['issuer', 'tree', root.id, '--json'], operator)).code).toBe(0);
    expect((await mission(['issuer', 'evidence', root.id], operator)).stdout).toContain('no evidence');
    expect((await mission(['issuer', 'introspect', root.accessToken], operator)).code).toBe(10);
    expect((await mission(['issuer', 'status', 'msn_AAAAAAAAAAAAAAAAAAAAAA'], operator)).code).toBe(10);
  });
});
