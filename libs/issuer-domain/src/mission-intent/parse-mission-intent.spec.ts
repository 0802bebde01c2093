import { InvalidMissionIntentError } from './invalid-mission-intent.error.js';
import { parseMissionIntent } from './parse-mission-intent.js';

const now = new Date('2026-11-22T10:00:00Z');
const context = { now, maxLifetimeSeconds: 86_400 };
const intent = (members: Record<string, unknown> = {}) => ({
  intent: { goal: 'Reconcile November invoices', resources: ['https://erp.example.com/invoices'], expires_at: '2026-11-22T17:00:00Z', ...members },
});
const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

function refusal(value: unknown, ctx = context): InvalidMissionIntentError {
  try {
    parseMissionIntent(value, ctx);
  } catch (error) {
    if (error instanceof InvalidMissionIntentError) return error;
    throw error;
  }
  throw new Error('expected InvalidMissionIntentError');
}

describe('parseMissionIntent (DESIGN 2.3 envelope)', () => {
  it('DESIGN 2.3: accepts {"intent": {goal, resources, expires_at}} and normalises expires_at to UTC', () => {
    expect(parseMissionIntent(intent({ expires_at: '2026-11-22T18:30:00.5+01:00' }), context)).toEqual({
      goal: 'Reconcile November invoices',
      resources: ['https://erp.example.com/invoices'],
      expires_at: '2026-11-22T17:30:00.500Z',
    });
  });

  it('accepts a multi-line goal of exactly 2000 characters', () => {
    const goal = `line one\nline two\t${'x'.repeat(1982)}`;
    expect(goal).toHaveLength(2000);
    expect(parseMissionIntent(intent({ goal }), context).goal).toBe(goal);
  });

  it('accepts expires_at exactly at the maximum lifetime', () => {
    expect(parseMissionIntent(intent({ expires_at: '2026-11-23T10:00:00Z' }), context).expires_at).toBe('2026-11-23T10:00:00.000Z');
  });

  it.each([
    ['a non-object', 'x', 'mission_intent must be a JSON object'],
    ['an array', [intent()], 'mission_intent must be a JSON object'],
    ['no intent member', {}, 'mission_intent is missing the member intent'],
    ['an unknown envelope member', { ...intent(), extra: 1 }, "mission_intent has an unknown member 'extra'"],
    ['a non-object intent', { intent: 'x' }, 'mission_intent.intent must be a JSON object'],
    ['an unknown intent member', intent({ tools: ['x'] }), "mission_intent.intent has an unknown member 'tools'"],
    ['a missing goal', { intent: { resources: ['https://r.example'], expires_at: '2026-11-22T17:00:00Z' } }, 'missing the member goal'],
    ['a missing resources', { intent: { goal: 'g', expires_at: '2026-11-22T17:00:00Z' } }, 'missing the member resources'],
    ['a missing expires_at', { intent: { goal: 'g', resources: ['https://r.example'] } }, 'missing the member expires_at'],
    ['an empty goal', intent({ goal: '' }), 'goal must be a non-empty string of at most 2000 characters'],
    ['a blank goal', intent({ goal: ' \n ' }), 'goal must not be only white space'],
    ['a goal over 2000 characters', intent({ goal: 'x'.repeat(2001) }), 'at most 2000 characters'],
    ['a non-string goal', intent({ goal: 42 }), 'goal must be a non-empty string'],
    ['a goal with control characters', intent({ goal: 'a\u0000b' }), 'must not contain control characters'],
    ['resources not an array', intent({ resources: 'https://r.example' }), 'resources must be a JSON array'],
    ['empty resources', intent({ resources: [] }), 'must contain between 1 and 32 resources'],
    ['too many resources', intent({ resources: Array.from({ length: 33 }, (_, i) => `https://r.example/${i}`) }), 'between 1 and 32'],
    ['a relative resource', intent({ resources: ['invoices'] }), 'resources[0] must be an absolute URI'],
    ['a repeated resource', intent({ resources: ['https://r.example', 'https://r.example'] }), 'resources[1] repeats an earlier resource'],
    ['a non-string expires_at', intent({ expires_at: 1795000000 }), 'expires_at must be an RFC 3339 date-time string'],
    ['a date without time', intent({ expires_at: '2026-11-23' }), 'expires_at must be an RFC 3339 date-time'],
    ['a time without offset', intent({ expires_at: '2026-11-22T17:00:00' }), 'expires_at must be an RFC 3339 date-time'],
    ['an impossible date', intent({ expires_at: '2026-02-30T17:00:00Z' }), 'expires_at must be an RFC 3339 date-time'],
    ['a leap second', intent({ expires_at: '2026-11-22T17:00:60Z' }), 'expires_at must be an RFC 3339 date-time'],
    ['an expires_at in the past', intent({ expires_at: '2026-11-22T09:00:00Z' }), 'expires_at must be in the future'],
    ['an expires_at equal to now', intent({ expires_at: '2026-11-22T10:00:00Z' }), 'expires_at must be in the future'],
    ['an expires_at beyond the maximum lifetime', intent({ expires_at: '2026-11-23T10:00:00.001Z' }), 'at most 86400 seconds from now'],
  ])('refuses %s', (_, value, message) => {
    const error = refusal(value);
    expect(error.message).toContain(message);
    expect(error.message).toMatch(ERROR_DESCRIPTION);
  });

  it('refuses a lone-surrogate goal and an unsafe member name without quoting it', () => {
    expect(refusal(intent({ goal: 'a\uD800' })).message).toContain('lone surrogates');
    const error = refusal({ intent: { ...intent().intent, 'x"\\': 1 } });
    expect(error.message).toMatch(ERROR_DESCRIPTION);
  });

  it('rejects an invalid context as a programming error', () => {
    expect(() => parseMissionIntent(intent(), { now: new Date(Number.NaN), maxLifetimeSeconds: 10 })).toThrow(TypeError);
    expect(() => parseMissionIntent(intent(), { now, maxLifetimeSeconds: 0 })).toThrow(TypeError);
  });
});
