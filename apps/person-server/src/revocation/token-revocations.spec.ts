import { randomUUID } from 'node:crypto';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { TOKEN_POLICIES, tokensStreamName, type TokenIdentity } from '@mission/ps-domain';
import type { RevocationSettings } from '../config/person-server-config.js';
import { TokenLedger } from '../store/token-ledger.js';
import type { RevocationAnswer, RevocationClient } from './revocation-client.js';
import { ResourceRateLimiter } from './resource-rate-limiter.js';
import { TokenRevocations } from './token-revocations.js';

const S256 = 'ZXhhbXBsZS1taXNzaW9uLWJsb2ItZGlnZXN0LTAwMDA';
const PS = 'https://ps.example';
const ENDPOINT = 'http://127.0.0.1:5000/revoke';
const T0 = new Date('2026-11-22T09:00:00.000Z');
const SETTINGS: RevocationSettings = { wait_ms: 0, max_attempts: 3, initial_delay_ms: 10, max_delay_ms: 10, timeout_ms: 100, lease_ms: 1_000, per_resource_per_second: 100_000, concurrency: 4 };

class ScriptedClient {
  readonly calls: TokenIdentity[] = [];
  answer: RevocationAnswer = { outcome: 'server_error', httpStatus: 500 };
  async revoke(_endpoint: string, token: TokenIdentity): Promise<RevocationAnswer> {
    this.calls.push({ iss: token.iss, jti: token.jti });
    return this.answer;
  }
}

let temp: TempEmbeddedStore;
let now: Date;
let ledger: TokenLedger;
let client: ScriptedClient;
let revocations: TokenRevocations;

async function track(jti: string, expSeconds: number, endpoint: string | null = ENDPOINT): Promise<void> {
  await ledger.execute(
    S256,
    {
      type: 'RecordIssuedToken',
      approver: PS,
      missionS256: S256,
      token: { iss: PS, jti, aud: 'https://files.example', exp: new Date(T0.getTime() + expSeconds * 1000), origin: 'issued', agent: 'aauth:a@agents.example', relationship: 'root', ...(endpoint ? { revocationEndpoint: endpoint } : {}) },
      actor: { id: 'aauth:a@agents.example', role: 'agent' },
      policy: TOKEN_POLICIES.owningAgent,
      now: T0,
    },
    { correlationId: randomUUID(), causationId: jti, actor: { id: 'aauth:a@agents.example', role: 'agent' }, now: T0 },
  );
}

async function types(): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of temp.store.readStream(tokensStreamName(S256))) seen.push(`${event.type}:${String(event.data['jti'])}${event.data['reason'] ? `:${String(event.data['reason'])}` : ''}`);
  return seen;
}

beforeEach(async () => {
  temp = await openTempEmbeddedStore('token-revocations-');
  now = T0;
  ledger = new TokenLedger(temp.store);
  client = new ScriptedClient();
  revocations = new TokenRevocations(ledger, client as unknown as RevocationClient, new ResourceRateLimiter(100_000), SETTINGS, { now: () => now });
});
afterEach(() => temp.dispose());

describe('spec 4.4: a revocation round', () => {
  it('attempts every live token, records attempt then result, and reports what remains', async () => {
    await track('a', 300);
    await track('b', 300);
    expect(await revocations.round(S256, { lastRound: false })).toEqual({ remaining: 2 });
    expect(await types()).toEqual([
      'AuthTokenIssued:a',
      'AuthTokenIssued:b',
      'TokenRevocationAttempted:a',
      'TokenRevocationAttempted:b',
      'TokenRevocationFailed:a',
      'TokenRevocationFailed:b',
    ]);
    client.answer = { outcome: 'confirmed', httpStatus: 200 };
    expect(await revocations.round(S256, { lastRound: false })).toEqual({ remaining: 0 });
    expect(await revocations.residual(S256, false)).toEqual({ tracked: 2, revocation_attempted: 2, revocation_confirmed: 2, complete: true });
    // A later round (e.g. re-run after a crash) calls nobody and records nothing.
    const before = (await types()).length;
    expect(await revocations.round(S256, { lastRound: false })).toEqual({ remaining: 0 });
    expect((await types()).length).toBe(before);
    expect(client.calls).toHaveLength(4);
  });

  it('spec 4.4 rule 3: stops at the token’s exp — an expired token is closed as expired and never called again', async () => {
    await track('short', 60);
    await track('long', 600);
    expect(await revocations.round(S256, { lastRound: false })).toEqual({ remaining: 2 });
    now = new Date(T0.getTime() + 61_000);
    client.calls.length = 0;
    expect(await revocations.round(S256, { lastRound: false })).toEqual({ remaining: 1 });
    expect(client.calls.map((call) => call.jti)).toEqual(['long']);
    expect(await types()).toContain('TokenRevocationStopped:short:expired');
    const residual = await revocations.residual(S256, false);
    expect(residual).toMatchObject({ tracked: 2, revocation_confirmed: 0, residual_until: new Date(T0.getTime() + 600_000).toISOString(), complete: false });
  });

  it('spec 4.4 rule 2: the last round closes what is left as attempts_exhausted; the residual stays reported until exp', async () => {
    await track('a', 300);
    expect(await revocations.round(S256, { lastRound: true })).toEqual({ remaining: 0 });
    expect((await types()).slice(-1)).toEqual(['TokenRevocationStopped:a:attempts_exhausted']);
    expect(await revocations.residual(S256, false)).toMatchObject({ revocation_confirmed: 0, residual_until: new Date(T0.getTime() + 300_000).toISOString(), complete: false });
    now = new Date(T0.getTime() + 300_000);
    expect(await revocations.residual(S256, false)).toEqual({ tracked: 1, revocation_attempted: 1, revocation_confirmed: 0, complete: true });
  });

  it('a token without a revocation endpoint is recorded no_endpoint (unconfirmed), without a call', async () => {
    await track('silent', 300, null);
    expect(await revocations.round(S256, { lastRound: false })).toEqual({ remaining: 1 });
    expect(client.calls).toHaveLength(0);
    expect(await types()).toContain('TokenRevocationFailed:silent');
  });
});
