import { randomBytes } from 'node:crypto';
import { IssuerClient } from '@mission/mission-client';
import { issuerClientKey } from './stack/demo-keys.js';
import { Stack } from './stack/stack.js';
import { inMinutes, LEAF, REDIRECT_URI, ROOT_AUTHORITY } from './story/authority.js';

/**
 * SDK-16b: the issuer calls the first e2e pass left out, against a real issuer that demands RFC 9449 §8
 * server nonces (`DPOP_NONCE_SECRET`): every DPoP-bound request of the SDK first meets `use_dpop_nonce`
 * and must retry with the nonce. Counted through the SDK's injectable `fetch`.
 */
describe('SDK ↔ issuer with DPoP nonces: consent flow, nonce retry, token revocation (e2e)', () => {
  let stack: Stack;
  const nonceChallenges: string[] = [];
  /** Counts the issuer's `use_dpop_nonce` answers (RFC 9449 §8: 400 at the token endpoint / PAR, 401 at resources). */
  const countingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((response.status === 400 || response.status === 401) && response.headers.get('dpop-nonce') !== null) {
      const text = await response.clone().text();
      if (text.includes('use_dpop_nonce')) nonceChallenges.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
    }
    return response;
  };
  const client = (clientId: string): Promise<IssuerClient> => IssuerClient.discover({ issuer: stack.issuerUrl, clientId, clientKey: issuerClientKey(clientId), fetch: countingFetch });
  const request = { intent: { goal: 'Consent flow', resources: ['https://erp.example.com'], expiresAt: inMinutes(60) }, authorizationDetails: ROOT_AUTHORITY, redirectUri: REDIRECT_URI };

  /** A person at the consent page, as a browser would: the form's hidden fields, the CSRF cookie, the decision. */
  async function personDecides(authorizationUrl: string, person: string, decision: 'approve' | 'decline'): Promise<string> {
    const page = await fetch(authorizationUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    const hidden = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [match[1]!, match[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"')]));
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const answer = await fetch(new URL('/authorize/decision', stack.issuerUrl), {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ ...hidden, person, password: `${person}-demo-password`, decision }).toString(),
    });
    expect(answer.status).toBe(302);
    return answer.headers.get('location')!;
  }

  beforeAll(async () => {
    stack = await Stack.start({ issuerEnv: { DPOP_NONCE_SECRET: randomBytes(32).toString('base64url') } });
  }, 120_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('startRootMission → a person approves on the consent page → complete(callback) gives an active mission; every DPoP request was retried with the server nonce', async () => {
    const consentClient = await client('demo-consent-agent');
    await expect(consentClient.obtainRootMission(request)).rejects.toMatchObject({ code: 'approval_required' });
    const started = await consentClient.startRootMission(request);
    nonceChallenges.length = 0;
    const mission = await started.complete(await personDecides(started.authorizationUrl, 'alice', 'approve'));
    expect(mission.id).toMatch(/^msn_/);
    expect(nonceChallenges).toContain('/token');
    expect((await mission.status()).active).toBe(true);
    // Refresh and child creation are DPoP-bound too: they meet (and pass) the nonce as well.
    await mission.refresh();
    const grant = await mission.createChild({ actor: 'demo-subagent', authority: LEAF, expiresAt: inMinutes(30) });
    const child = await (await client('demo-subagent')).redeemChild(grant);
    expect(child.parent).toMatchObject({ id: mission.id });
    expect((await child.status()).active).toBe(true);
  });

  it('a person declines on the consent page: complete(callback) rejects with access_denied and no mission exists', async () => {
    const started = await (await client('demo-consent-agent')).startRootMission(request);
    const callback = await personDecides(started.authorizationUrl, 'bob', 'decline');
    expect(new URL(callback).searchParams.get('error')).toBe('access_denied');
    await expect(started.complete(callback)).rejects.toMatchObject({ code: 'access_denied' });
  });

  it('complete() refuses a callback whose state is not this flow’s (RFC 6749 §10.12) before redeeming anything', async () => {
    const issuer = await client('demo-consent-agent');
    const first = await issuer.startRootMission(request);
    const second = await issuer.startRootMission(request);
    const callbackOfSecond = await personDecides(second.authorizationUrl, 'alice', 'approve');
    await expect(first.complete(callbackOfSecond)).rejects.toBeDefined();
    expect((await second.complete(callbackOfSecond)).id).toMatch(/^msn_/);
  });

  it('IssuerClient.revokeToken (RFC 7009): a revoked refresh token can no longer refresh the mission', async () => {
    const issuer = await client('demo-agent');
    const mission = await issuer.obtainRootMission({ ...request, intent: { ...request.intent, goal: 'Revocation' } });
    await mission.refresh();
    await issuer.revokeToken(mission.tokens.refresh_token!);
    await expect(mission.refresh()).rejects.toMatchObject({ code: 'invalid_grant' });
  });
});
