import { fold, type Decider, type DomainEvent } from '@mission/decider';
import * as domain from './index.js';

const {
  authorityHash,
  authorizationRequestDecider,
  grantDecider,
  grantIdFromBytes,
  grantIdOfToken,
  grantStreamName,
  grantTokenFromBytes,
  grantTokenHash,
  lifecycleResult,
  missionDecider,
  missionIdFromBytes,
  missionStreamName,
  MissionNotActiveError,
  parStreamName,
  parseAuthorizationDetails,
  parseMissionIntent,
  requestIdFromBytes,
  requestIdFromUri,
  requestUriFor,
  sha256Base64url,
  throwIfGrantRefused,
} = domain;

/** Runs commands through a decider like handleCommand does, but storing events as JSON text. */
function stream<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  const stored: string[] = [];
  const events = (): E[] => stored.map((text) => JSON.parse(text) as E);
  return {
    handle(command: C): { newEvents: E[]; state: S } {
      const newEvents = decider.decide(command, fold(decider, events()));
      for (const event of newEvents) {
        const text = JSON.stringify(event);
        // Event data is plain JSON: nothing is lost or changed by storing it.
        expect(JSON.parse(text)).toEqual(event);
        expect(text).not.toContain('undefined');
        stored.push(text);
      }
      return { newEvents, state: fold(decider, events()) };
    },
    state: (): S => fold(decider, events()),
  };
}

const bytes = (fill: number, length = 16): Uint8Array => new Uint8Array(length).fill(fill);

describe('issuer-domain public API: a root mission from PAR to revocation (DESIGN 2.3)', () => {
  it('DESIGN 2.3: PAR → approval → mission + code → redemption → refresh → suspend/resume → revoke, events stored as JSON', () => {
    const issuer = 'http://localhost:4000';
    let now = new Date('2026-11-22T09:00:00.000Z');
    const later = (seconds: number): Date => (now = new Date(now.getTime() + seconds * 1000));

    // POST /par
    const authoritySet = parseAuthorizationDetails([{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read', 'invoices.list'] }]);
    const intent = parseMissionIntent({ intent: { goal: 'Reconcile invoices', resources: ['https://erp.example.com/invoices'], expires_at: '2026-11-22T17:00:00Z' } }, { now, maxLifetimeSeconds: 86_400 });
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const jkt = sha256Base64url('client key');
    const requestId = requestIdFromBytes(bytes(1));
    expect(parStreamName(requestId)).toBe(`par-${requestId}`);
    const par = stream(authorizationRequestDecider);
    par.handle({
      type: 'PushAuthorizationRequest',
      requestId,
      clientId: 'agent-a',
      redirectUri: 'http://127.0.0.1:9000/cb',
      codeChallenge: sha256Base64url(verifier),
      codeChallengeMethod: 'S256',
      dpopJkt: jkt,
      authoritySet,
      intent,
      expiresAt: new Date(now.getTime() + 90_000),
      now,
    });

    // GET /authorize?client_id&request_uri → approval by policy
    expect(requestIdFromUri(requestUriFor(requestId))).toBe(requestId);
    const missionId = missionIdFromBytes(bytes(2));
    const grantId = grantIdFromBytes(bytes(3));
    par.handle({ type: 'ApproveAuthorizationRequest', clientId: 'agent-a', missionId, grantId, approvedBy: { id: 'auto', role: 'policy' }, now: later(5) });

    const mission = stream(missionDecider);
    expect(missionStreamName(missionId)).toBe(`mission-${missionId}`);
    mission.handle({
      type: 'CreateMission',
      missionId,
      issuer,
      clientId: 'agent-a',
      authoritySet,
      authorityHash: authorityHash(issuer, authoritySet),
      intent,
      expiresAt: new Date(intent.expires_at),
      approvedBy: { id: 'auto', role: 'policy' },
      now,
    });

    const code = grantTokenFromBytes(grantId, bytes(4, 32));
    const grant = stream(grantDecider);
    expect(grantStreamName(grantIdOfToken(code)!)).toBe(`grant-${grantId}`);
    grant.handle({
      type: 'IssueAuthorizationCode',
      grantId,
      missionId,
      clientId: 'agent-a',
      codeHash: grantTokenHash(code),
      redirectUri: 'http://127.0.0.1:9000/cb',
      codeChallenge: sha256Base64url(verifier),
      dpopJkt: jkt,
      requestId,
      expiresAt: new Date(now.getTime() + 60_000),
      now,
    });

    // POST /token (authorization_code)
    domain.assertDerivable(mission.state(), later(5));
    const refresh1 = grantTokenFromBytes(grantId, bytes(5, 32));
    const redeemed = grant.handle({
      type: 'RedeemAuthorizationCode',
      codeHash: grantTokenHash(code),
      clientId: 'agent-a',
      redirectUri: 'http://127.0.0.1:9000/cb',
      codeVerifierChallenge: sha256Base64url(verifier),
      dpopJkt: jkt,
      refreshTokenHash: grantTokenHash(refresh1),
      now,
    });
    throwIfGrantRefused(redeemed.newEvents);
    expect(redeemed.state).toMatchObject({ status: 'active', missionId, jkt });

    // POST /missions/lifecycle suspend → derivation refused → resume
    mission.handle({ type: 'ChangeMissionLifecycle', operation: 'suspend', actor: { id: 'agent-a', role: 'client' }, reason: 'pause', nonce: 'n1', now: later(60) });
    expect(() => domain.assertDerivable(mission.state(), now)).toThrow(MissionNotActiveError);
    mission.handle({ type: 'ChangeMissionLifecycle', operation: 'resume', actor: { id: 'agent-a', role: 'client' }, reason: 'go on', expectedVersion: 2, now: later(60) });

    // POST /token (refresh_token)
    domain.assertDerivable(mission.state(), later(5));
    const refresh2 = grantTokenFromBytes(grantId, bytes(6, 32));
    grant.handle({ type: 'RotateRefreshToken', refreshTokenHash: grantTokenHash(refresh1), newRefreshTokenHash: grantTokenHash(refresh2), clientId: 'agent-a', dpopJkt: jkt, now });

    // the old refresh token again: the grant is revoked and the client refused
    const reuse = grant.handle({ type: 'RotateRefreshToken', refreshTokenHash: grantTokenHash(refresh1), newRefreshTokenHash: grantTokenHash(grantTokenFromBytes(grantId, bytes(7, 32))), clientId: 'agent-a', dpopJkt: jkt, now: later(5) });
    expect(() => throwIfGrantRefused(reuse.newEvents)).toThrow(domain.RefreshTokenReusedError);

    // revoke the mission; a repeat of the earlier nonce still answers as it did
    mission.handle({ type: 'ChangeMissionLifecycle', operation: 'revoke', actor: { id: 'agent-a', role: 'client' }, reason: 'done with it', now: later(5) });
    expect(mission.state()).toMatchObject({ lifecycle: 'revoked', version: 4 });
    expect(mission.handle({ type: 'ChangeMissionLifecycle', operation: 'suspend', actor: { id: 'agent-a', role: 'client' }, reason: 'pause', nonce: 'n1', now: later(5) }).newEvents).toEqual([]);
    expect(lifecycleResult(mission.state(), { actor: { id: 'agent-a', role: 'client' }, nonce: 'n1' })).toEqual({ state: 'suspended', version: 2 });
  });

  it('exports every part named in src/index.ts', () => {
    for (const name of [
      'parseAuthorizationDetails',
      'normalizeAuthoritySet',
      'authorityHash',
      'authoritySetCanonicalJson',
      'InvalidAuthorizationDetailsError',
      'parseMissionIntent',
      'InvalidMissionIntentError',
      'missionDecider',
      'missionStreamName',
      'isMissionId',
      'missionIdFromBytes',
      'effectiveState',
      'assertDerivable',
      'lifecycleResult',
      'missionStatusView',
      'MissionNotFoundError',
      'MissionNotActiveError',
      'StaleVersionError',
      'InvalidTransitionError',
      'NonceReuseError',
      'authorizationRequestDecider',
      'pendingAuthorizationRequest',
      'grantDecider',
      'throwIfGrantRefused',
      'grantTokenFromBytes',
      'grantIdOfToken',
      'grantTokenHash',
    ]) {
      const kind = typeof (domain as Record<string, unknown>)[name];
      expect([name, kind === 'function' || kind === 'object']).toEqual([name, true]);
    }
  });
});
