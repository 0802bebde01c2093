import type { ActorMatcher } from '../authority-set/authority-set.js';
import { ISSUER } from '../testing/fixtures.js';
import { childActorAllowed, claimedProfilesBacked, InvalidChildActorError, parseChildActor, type ChildActor, type RegisteredActor } from './child-actor.js';

const registered = (sub_profile: string, overrides: Partial<RegisteredActor> = {}): RegisteredActor => ({ sub: 'child-agent-1', iss: ISSUER, sub_profile, ...overrides });

describe('child_actor (spec 2.2, spec 2.4 allowed_child_actors, DESIGN 2.2)', () => {
  describe('parseChildActor', () => {
    it.each([
      ['sub only', { sub: 'child-agent-1' }],
      ['sub and iss', { sub: 'child-agent-1', iss: ISSUER }],
      ['sub and one sub_profile', { sub: 'child-agent-1', sub_profile: 'ai_agent' }],
      ['a space-separated sub_profile list', { sub: 'inst-42', sub_profile: 'ai_agent client_instance' }],
      ['all three members', { sub: 'child-agent-1', iss: ISSUER, sub_profile: 'ai_agent' }],
      ['a sub of exactly 255 characters', { sub: 'a'.repeat(255) }],
      ['non-ASCII text in sub', { sub: 'agent-é-1' }],
    ])('spec 2.2: accepts %s and returns exactly what was given', (_, value) => {
      expect(parseChildActor(value)).toEqual(value);
    });

    it('spec 2.2: the result has no members for absent optional ones (it is copied into the record and evidence)', () => {
      const actor = parseChildActor({ sub: 'child-agent-1' });
      expect(Object.keys(actor)).toEqual(['sub']);
    });

    it('spec 2.2: the result is a copy, not the input object', () => {
      const input = { sub: 'child-agent-1', sub_profile: 'ai_agent' };
      const actor = parseChildActor(input);
      input.sub = 'someone-else';
      expect(actor.sub).toBe('child-agent-1');
    });

    it.each([
      ['null', null],
      ['a string', 'child-agent-1'],
      ['a number', 42],
      ['an array', [{ sub: 'child-agent-1' }]],
      ['undefined', undefined],
    ])('spec 2.2 / 4.1: refuses %s with invalid_request (child_actor must be an object)', (_, value) => {
      expect(() => parseChildActor(value)).toThrow(InvalidChildActorError);
      try {
        parseChildActor(value);
      } catch (error) {
        expect(error).toMatchObject({ error: 'invalid_request' });
      }
    });

    it.each([
      ['sub is missing', {}],
      ['sub is missing but iss is present', { iss: ISSUER }],
      ['sub is empty', { sub: '' }],
      ['sub is a number', { sub: 7 }],
      ['sub is null', { sub: null }],
      ['sub is longer than 255 characters', { sub: 'a'.repeat(256) }],
      ['sub has a control character', { sub: 'child\nagent' }],
      ['sub has a lone surrogate', { sub: 'child\uD800agent' }],
      ['iss is empty', { sub: 'child-agent-1', iss: '' }],
      ['iss is an object', { sub: 'child-agent-1', iss: { url: ISSUER } }],
      ['sub_profile is an array', { sub: 'child-agent-1', sub_profile: ['ai_agent'] }],
      ['sub_profile is empty', { sub: 'child-agent-1', sub_profile: '' }],
      ['sub_profile has a leading space', { sub: 'child-agent-1', sub_profile: ' ai_agent' }],
      ['sub_profile has a trailing space', { sub: 'child-agent-1', sub_profile: 'ai_agent ' }],
      ['sub_profile has two spaces between values', { sub: 'child-agent-1', sub_profile: 'ai_agent  client_instance' }],
      ['sub_profile is separated by a comma', { sub: 'child-agent-1', sub_profile: 'ai_agent,client_instance' }],
      ['sub_profile has a tab', { sub: 'child-agent-1', sub_profile: 'ai_agent\tclient_instance' }],
      ['sub_profile has an upper-case value', { sub: 'child-agent-1', sub_profile: 'AI_AGENT' }],
      ['sub_profile value starts with a digit', { sub: 'child-agent-1', sub_profile: '1agent' }],
      ['a member outside spec 2.2', { sub: 'child-agent-1', role: 'admin' }],
      ['a cnf member (keys are never taken from the request)', { sub: 'child-agent-1', cnf: { jkt: 'x' } }],
      ['a __proto__ member', JSON.parse('{"sub":"child-agent-1","__proto__":{"iss":"x"}}') as unknown],
    ])('spec 2.2: refuses a child_actor where %s', (_, value) => {
      expect(() => parseChildActor(value)).toThrow(InvalidChildActorError);
    });

    it('spec 2.2: error messages name members, never quote values', () => {
      try {
        parseChildActor({ sub: 'secret-value\u0007' });
        throw new Error('expected a refusal');
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidChildActorError);
        expect((error as Error).message).toContain('child_actor.sub');
        expect((error as Error).message).not.toContain('secret-value');
      }
    });
  });

  describe('claimedProfilesBacked (DESIGN 2.2: the registered sub_profile is what matches)', () => {
    it.each([
      ['no claim at all', undefined, 'ai_agent'],
      ['no claim, nothing registered', undefined, ''],
      ['the registered profile itself', 'ai_agent', 'ai_agent'],
      ['one of several registered profiles', 'client_instance', 'ai_agent client_instance'],
      ['all registered profiles, in another order', 'client_instance ai_agent', 'ai_agent client_instance'],
      ['a repeated registered profile', 'ai_agent ai_agent', 'ai_agent'],
    ])('DESIGN 2.2: backed — %s', (_, claimed, backing) => {
      const actor: ChildActor = { sub: 'child-agent-1', ...(claimed !== undefined ? { sub_profile: claimed } : {}) };
      expect(claimedProfilesBacked(actor, registered(backing))).toBe(true);
    });

    it.each([
      ['a profile the registration does not list', 'human', 'ai_agent'],
      ['one backed and one unbacked profile', 'ai_agent human', 'ai_agent'],
      ['any profile when nothing is registered', 'ai_agent', ''],
      ['a prefix of a registered profile', 'ai', 'ai_agent'],
      ['the registered list as a single value', 'ai_agent_client_instance', 'ai_agent client_instance'],
    ])('DESIGN 2.2, spec 7 child_actor_not_allowed: not backed — %s', (_, claimed, backing) => {
      expect(claimedProfilesBacked({ sub: 'child-agent-1', sub_profile: claimed }, registered(backing))).toBe(false);
    });
  });

  describe('childActorAllowed (spec 2.4 allowed_child_actors, matching as allowed_delegates)', () => {
    it('spec 2.4: absent allowed_child_actors admits any actor', () => {
      expect(childActorAllowed(undefined, registered(''))).toBe(true);
      expect(childActorAllowed(undefined, registered('human'))).toBe(true);
    });

    it('spec 2.4: an empty allowed_child_actors admits nobody', () => {
      expect(childActorAllowed([], registered('ai_agent'))).toBe(false);
    });

    it.each<[string, ActorMatcher[], string]>([
      ['sub_profile equal to the single registered profile', [{ sub_profile: 'ai_agent' }], 'ai_agent'],
      ['sub_profile among a space-separated registered list (spec 2.2)', [{ sub_profile: 'client_instance' }], 'ai_agent client_instance'],
      ['some matcher of several matching', [{ sub_profile: 'human' }, { sub_profile: 'ai_agent' }], 'ai_agent'],
      ['a matcher on sub', [{ sub: 'child-agent-1' }], ''],
      ['a matcher on iss (this issuer)', [{ iss: ISSUER }], ''],
      ['a matcher whose every member matches', [{ sub_profile: 'ai_agent', sub: 'child-agent-1', iss: ISSUER }], 'ai_agent tool'],
    ])('spec 2.4: admits — %s', (_, matchers, profiles) => {
      expect(childActorAllowed(matchers, registered(profiles))).toBe(true);
    });

    it.each<[string, ActorMatcher[], string]>([
      ['a sub_profile the actor is not registered with', [{ sub_profile: 'human' }], 'ai_agent'],
      ['a sub_profile matcher whose value is the whole registered list', [{ sub_profile: 'ai_agent client_instance' }], 'ai_agent client_instance'],
      ['a sub_profile matcher against an actor with no registered profile', [{ sub_profile: 'ai_agent' }], ''],
      ['a sub_profile prefix', [{ sub_profile: 'ai' }], 'ai_agent'],
      ['another sub', [{ sub: 'child-agent-2' }], 'ai_agent'],
      ['another iss', [{ iss: 'https://other.example' }], 'ai_agent'],
      ['a matcher with one non-matching member among matching ones', [{ sub_profile: 'ai_agent', sub: 'child-agent-2' }], 'ai_agent'],
      ['a matcher with a member the issuer does not know (spec 2.4 rule 1)', [{ tenant: 'acme' }], 'ai_agent'],
      ['a known member beside an unknown one (the matcher cannot be enforced)', [{ sub_profile: 'ai_agent', tenant: 'acme' }], 'ai_agent'],
    ])('spec 2.4, spec 7 child_actor_not_allowed: does not admit — %s', (_, matchers, profiles) => {
      expect(childActorAllowed(matchers, registered(profiles))).toBe(false);
    });

    it('spec 2.4 rule 1: an unenforceable matcher does not stop another matcher from admitting', () => {
      expect(childActorAllowed([{ tenant: 'acme' }, { sub_profile: 'ai_agent' }], registered('ai_agent'))).toBe(true);
    });

    it('DESIGN 2.2: matching uses the registered profiles, not what the request claims', () => {
      // The registration says tool; a request claiming ai_agent is refused by claimedProfilesBacked, and matching never sees the claim.
      expect(childActorAllowed([{ sub_profile: 'ai_agent' }], registered('tool'))).toBe(false);
    });
  });
});
