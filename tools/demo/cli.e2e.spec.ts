import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningKey, IssuerClient, PersonServerClient } from '@mission/mission-client';
import { demoKey, issuerClientKey } from './stack/demo-keys.js';
import { agentToken, ASSISTANT, DEMO_RESOURCE, resourceToken } from './stack/parties.js';
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

  it('keygen --alg EdDSA prints an Ed25519 key; a person lists its pending proposals and declines one; another person lists none of them', async () => {
    const ed = await mission(['keygen', '--alg', 'EdDSA', '--json']);
    expect(ed.code).toBe(0);
    expect(JSON.parse(ed.stdout)).toMatchObject({ private_jwk: { kty: 'OKP', crv: 'Ed25519', d: expect.any(String) }, jkt: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect((await mission(['keygen', '--alg', 'RS256'])).code).toBe(2);

    const agentKey = await generateSigningKey('EdDSA');
    const agent = await PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'agent', key: agentKey, agentToken: () => agentToken(ASSISTANT, agentKey) } });
    const proposal = await agent.proposeMission({ description: 'CLI pending listing' });
    const alice = { MISSION_PS_URL: stack.personServerUrl, MISSION_KEY_FILE: keyPath('alice', demoKey('ps-principal-alice')) };
    const bob = { MISSION_PS_URL: stack.personServerUrl, MISSION_KEY_FILE: keyPath('bob', demoKey('ps-principal-bob')) };
    const listed = await mission(['ps', 'pending'], alice);
    expect(listed).toMatchObject({ code: 0, stdout: expect.stringContaining(proposal.pendingId) });
    expect(listed.stdout).toContain('CLI pending listing');
    const asJson = JSON.parse((await mission(['ps', 'pending', '--json', '--page-size', '1'], alice)).stdout) as { proposals: { pending_id: string }[] };
    expect(asJson.proposals.map((entry) => entry.pending_id)).toContain(proposal.pendingId);
    expect((await mission(['ps', 'pending'], bob)).stdout).not.toContain(proposal.pendingId);
    expect((await mission(['ps', 'decline', proposal.pendingId], bob)).code).toBe(1);
    expect(await mission(['ps', 'decline', proposal.pendingId], alice)).toMatchObject({ code: 0, stdout: 'declined\n' });
    await expect(proposal.wait()).rejects.toMatchObject({ code: 'denied' });
    expect((await mission(['ps', 'pending'], alice)).stdout).not.toContain(proposal.pendingId);
    expect((await mission(['ps', 'decline', proposal.pendingId], alice)).code).toBe(1);
  });

  it('ps revoke-token as the holder (--agent-token, by --auth-token) and as the audience (--resource, by --iss/--jti): the revoked tokens are refused as upstream_token; without exactly one identity it is a usage error', async () => {
    const agentKey = await generateSigningKey('ES256', { exportPrivate: true });
    const agent = await PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'agent', key: agentKey, agentToken: () => agentToken(ASSISTANT, agentKey) } });
    const proposal = await agent.proposeMission({ description: 'CLI revoke-token' });
    await (await PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'principal', key: demoKey('ps-principal-alice') } })).approve(proposal.pendingId);
    const { s256 } = await proposal.wait();
    const audience = stack.personServerUrl;
    const issue = async (): Promise<string> => (await agent.authToken({ resourceToken: await resourceToken({ agent: ASSISTANT, agentJkt: agentKey.jkt, missionS256: s256, audience }) })).auth_token;
    const [byHolder, byAudience] = [await issue(), await issue()];
    const env = { MISSION_PS_URL: stack.personServerUrl };
    const tokenFile = join(dir, 'agent-token.jwt');
    writeFileSync(tokenFile, await agentToken(ASSISTANT, agentKey));
    const holder = await mission(['ps', 'revoke-token', '--auth-token', byHolder, '--agent-token', tokenFile, '--key', keyPath('agent', agentKey.privateJwk)], env);
    expect(holder).toMatchObject({ code: 0, stdout: expect.stringContaining('holder') });
    const { jti } = JSON.parse(Buffer.from(byAudience.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string };
    const byResource = await mission(['ps', 'revoke-token', '--iss', stack.personServerUrl, '--jti', jti, '--resource', DEMO_RESOURCE, '--key', keyPath('resource', demoKey('ps-resource-files.example')), '--json'], env);
    expect(byResource.code).toBe(0);
    expect(JSON.parse(byResource.stdout)).toEqual({ sent: true, as: 'resource' });
    const usage = await mission(['ps', 'revoke-token', '--iss', stack.personServerUrl, '--jti', jti, '--key', keyPath('alice', demoKey('ps-principal-alice'))], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('holder');

    const filesKey = await generateSigningKey('ES256');
    const files = await PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'agent', key: filesKey, agentToken: () => agentToken(FILES_SERVICE, filesKey) } });
    const onwards = async (upstreamToken: string) =>
      files.authToken({ resourceToken: await resourceToken({ agent: FILES_SERVICE, agentJkt: filesKey.jkt, missionS256: s256, audience }), upstreamToken });
    await expect(onwards(byHolder)).rejects.toMatchObject({ status: 400 });
    await expect(onwards(byAudience)).rejects.toMatchObject({ status: 400 });
    await expect(onwards(await issue())).resolves.toMatchObject({ auth_token: expect.any(String) });
  });

  it('issuer resume: an operator resumes a suspended mission and its status is active again', async () => {
    const root = await (await IssuerClient.discover({ issuer: stack.issuerUrl, clientId: 'demo-agent', clientKey: issuerClientKey('demo-agent') }))
      .obtainRootMission({ intent: { goal: 'CLI resume', resources: ['https://erp.example.com'], expiresAt: inMinutes(30) }, authorizationDetails: ROOT_AUTHORITY, redirectUri: REDIRECT_URI });
    const operator = { MISSION_ISSUER_URL: stack.issuerUrl, MISSION_CLIENT_ID: 'demo-admin', MISSION_KEY_FILE: keyPath('admin', issuerClientKey('demo-admin')) };
    expect((await mission(['issuer', 'suspend', root.id, '--reason', 'check'], operator)).code).toBe(0);
    expect((await mission(['issuer', 'status', root.id], operator)).code).toBe(10);
    const resumed = await mission(['issuer', 'resume', root.id, '--reason', 'checked'], operator);
    expect(resumed).toMatchObject({ code: 0, stdout: expect.stringContaining('active') });
    expect((await mission(['issuer', 'status', root.id], operator)).code).toBe(0);
    // Resuming an active mission is refused by the issuer: exit 1, one line.
    const again = await mission(['issuer', 'resume', root.id, '--reason', 'twice'], operator);
    expect(again.code).toBe(1);
    expect(again.stderr).not.toMatch(/\n\s+at /);
  });
});

const FILES_SERVICE = 'aauth:files-service@agents.example';
