import { randomUUID } from 'node:crypto';
import { verifyHashChain, type CommandContext } from '@mission/es-kit';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { InvalidCommandError, TOKEN_POLICIES, tokensStreamName, type RecordIssuedToken } from '@mission/ps-domain';
import { TokenLedger } from './token-ledger.js';

const S256 = 'ZXhhbXBsZS1taXNzaW9uLWJsb2ItZGlnZXN0LTAwMDA';
const PS = 'https://ps.example';
const AGENT = 'aauth:assistant@agents.example';
const NOW = new Date('2026-11-22T09:00:00.000Z');

const issue = (jti: string): RecordIssuedToken => ({
  type: 'RecordIssuedToken',
  approver: PS,
  missionS256: S256,
  token: { iss: PS, jti, aud: 'https://files.example', exp: new Date(NOW.getTime() + 300_000), origin: 'issued', agent: AGENT, relationship: 'root' },
  actor: { id: AGENT, role: 'agent' },
  policy: TOKEN_POLICIES.owningAgent,
  now: NOW,
});
const context = (causation: string): CommandContext => ({ correlationId: randomUUID(), causationId: causation, actor: { id: AGENT, role: 'agent' }, now: NOW });

let temp: TempEmbeddedStore;
beforeEach(async () => {
  temp = await openTempEmbeddedStore('token-ledger-');
});
afterEach(() => temp.dispose());

describe('TokenLedger: pstokens-<s256> with group commit (spec 2.6)', () => {
  it('commits concurrent issuances in fewer appends, each event with its own command metadata and consecutive sequences', async () => {
    const ledger = new TokenLedger(temp.store);
    let appends = 0;
    const append = temp.store.appendToStream.bind(temp.store);
    temp.store.appendToStream = (...args) => {
      appends++;
      return append(...args);
    };
    await Promise.all(Array.from({ length: 50 }, (_, index) => ledger.execute(S256, issue(`jti-${index}`), context(`token:${index}`))));
    const events = [];
    for await (const event of temp.store.readStream(tokensStreamName(S256))) events.push(event);
    expect(events).toHaveLength(50);
    expect(appends).toBeLessThan(50);
    expect(events.map((event) => event.data['sequence'])).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
    expect(new Set(events.map((event) => event.metadata['causation_id'])).size).toBe(50);
    expect((await verifyHashChain(temp.store, tokensStreamName(S256))).ok).toBe(true);
    expect((await ledger.state(S256)).tokens.size).toBe(50);
  });

  it('a refused command fails alone; the rest of its group commits', async () => {
    const ledger = new TokenLedger(temp.store);
    await ledger.execute(S256, issue('taken'), context('first'));
    const results = await Promise.allSettled([ledger.execute(S256, issue('a'), context('a')), ledger.execute(S256, issue('taken'), context('dup')), ledger.execute(S256, issue('b'), context('b'))]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidCommandError);
    expect([...(await ledger.state(S256)).tokens.keys()]).toHaveLength(3);
  });

  it('two replicas (two ledgers, one store) never lose a write: conflicts are decided again on fresh state', async () => {
    const one = new TokenLedger(temp.store);
    const two = new TokenLedger(temp.store);
    await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? one : two).execute(S256, issue(`r-${index}`), context(`r:${index}`))));
    expect((await one.state(S256)).tokens.size).toBe(20);
    expect((await two.state(S256)).tokens.size).toBe(20);
    expect((await verifyHashChain(temp.store, tokensStreamName(S256))).ok).toBe(true);
  });

  it('the cache only speeds up: a ledger started later reads the same state', async () => {
    await new TokenLedger(temp.store).execute(S256, issue('x'), context('x'));
    const store = await temp.restart();
    expect([...(await new TokenLedger(store).state(S256)).tokens.keys()]).toEqual(['["https://ps.example","x"]']);
  });
});
