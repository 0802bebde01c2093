import { InvalidAuthorizationDetailsError } from './invalid-authorization-details.error.js';
import { AUTHORIZATION_DETAILS_LIMITS, parseAuthorizationDetails } from './parse-authorization-details.js';

const entry = (extra: Record<string, unknown> = {}) => ({
  type: 'mission_resource_access',
  resource: 'https://erp.example.com/invoices',
  actions: ['invoices.read'],
  ...extra,
});

function refusal(value: unknown): InvalidAuthorizationDetailsError {
  try {
    parseAuthorizationDetails(value);
  } catch (error) {
    if (error instanceof InvalidAuthorizationDetailsError) return error;
    throw error;
  }
  throw new Error('expected InvalidAuthorizationDetailsError');
}

// RFC 6749 §5.2: error_description is limited to %x20-21 / %x23-5B / %x5D-7E.
const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

describe('parseAuthorizationDetails (RFC 9396, DESIGN 2.3)', () => {
  it('accepts a minimal entry and returns fresh objects', () => {
    const input = [entry()];
    const set = parseAuthorizationDetails(input);
    expect(set).toEqual(input);
    expect(set[0]).not.toBe(input[0]);
  });

  it('DESIGN 2.3: keeps entries in approved order, de-duplicates and sorts actions by code unit', () => {
    const set = parseAuthorizationDetails([
      entry({ resource: 'https://z.example', actions: ['write', 'read', 'write', 'Admin'] }),
      entry({ resource: 'https://a.example', actions: ['b', 'a'] }),
    ]);
    expect(set.map((e) => e.resource)).toEqual(['https://z.example', 'https://a.example']);
    expect(set[0]!.actions).toEqual(['Admin', 'read', 'write']);
    expect(set[1]!.actions).toEqual(['a', 'b']);
  });

  it('carries constraints as given (deep copy)', () => {
    const constraints = { max_amount: { amount: '500.00', currency: 'USD' }, tenant: 'acme', flags: [true, null, 1.5] };
    const set = parseAuthorizationDetails([entry({ constraints })]);
    expect(set[0]!.constraints).toEqual(constraints);
    expect(set[0]!.constraints).not.toBe(constraints);
  });

  it('spec 2.4: accepts delegation with children and validates the known controls', () => {
    const delegation = {
      max_depth: 0,
      allowed_delegates: [{ sub_profile: 'ai_agent' }],
      children: { max_children: 3, allowed_child_actors: [{ sub_profile: 'ai_agent' }], max_child_depth: 2, child_creation_policy: 'urn:policy:x' },
    };
    expect(parseAuthorizationDetails([entry({ delegation })])[0]!.delegation).toEqual(delegation);
  });

  it('spec 9.4: carries unknown delegation and children members unchanged', () => {
    const delegation = { max_depth: 1, future_member: { a: [1, 'x'] }, children: { max_children: 2, future_control: 'strict' } };
    expect(parseAuthorizationDetails([entry({ delegation })])[0]!.delegation).toEqual(delegation);
  });

  it.each([
    ['not an array', { type: 'mission_resource_access' }, 'authorization_details must be a JSON array'],
    ['an empty array', [], 'authorization_details must contain at least one entry'],
    ['an entry that is not an object', ['x'], 'authorization_details[0] must be a JSON object'],
    ['a missing type', [{ resource: 'https://r.example', actions: ['a'] }], 'authorization_details[0] is missing the member type'],
    ['a missing resource', [{ type: 'mission_resource_access', actions: ['a'] }], 'authorization_details[0] is missing the member resource'],
    ['missing actions', [{ type: 'mission_resource_access', resource: 'https://r.example' }], 'authorization_details[0] is missing the member actions'],
    ['empty actions', [entry({ actions: [] })], 'authorization_details[0].actions must contain at least one action'],
    ['a non-string action', [entry({ actions: ['a', 3] })], 'authorization_details[0].actions[1] must be a non-empty string'],
    ['an empty action', [entry({ actions: [''] })], 'authorization_details[0].actions[0] must be a non-empty string'],
    ['an action with a control character', [entry({ actions: ['a\nb'] })], 'must not contain control characters'],
    ['a relative resource', [entry({ resource: '/invoices' })], 'authorization_details[0].resource must be an absolute URI'],
    ['a resource with a fragment', [entry({ resource: 'https://r.example/#x' })], 'resource must not contain a fragment'],
    ['a resource with spaces', [entry({ resource: 'https://r.example/a b' })], 'resource must be an absolute URI'],
    ['a non-ASCII resource (IRI)', [entry({ resource: 'https://exämple.com/' })], 'resource must be an absolute URI'],
    ['a bad percent-encoding', [entry({ resource: 'https://r.example/%zz' })], 'resource must be an absolute URI'],
    ['an unknown entry member', [entry({ locations: ['https://x'] })], "authorization_details[0] 'locations' is not a member"],
    ['constraints that are not an object', [entry({ constraints: ['a'] })], 'constraints must be a JSON object'],
    ['delegation that is not an object', [entry({ delegation: 1 })], 'delegation must be a JSON object'],
    ['a negative max_depth', [entry({ delegation: { max_depth: -1 } })], 'delegation.max_depth must be a non-negative integer'],
    ['a fractional max_depth', [entry({ delegation: { max_depth: 1.5 } })], 'delegation.max_depth must be a non-negative integer'],
    ['a zero max_children', [entry({ delegation: { children: { max_children: 0 } } })], 'children.max_children must be a positive integer'],
    ['a zero max_child_depth', [entry({ delegation: { children: { max_child_depth: 0 } } })], 'children.max_child_depth must be a positive integer'],
    ['children that is not an object', [entry({ delegation: { children: [] } })], 'delegation.children must be a JSON object'],
    ['an empty matcher', [entry({ delegation: { allowed_delegates: [{}] } })], 'allowed_delegates[0] must have between 1 and'],
    ['a matcher with a non-string value', [entry({ delegation: { children: { allowed_child_actors: [{ sub_profile: 1 }] } } })], 'allowed_child_actors[0].sub_profile must be a non-empty string'],
    ['an empty child_creation_policy', [entry({ delegation: { children: { child_creation_policy: '' } } })], 'child_creation_policy must be a non-empty string'],
  ])('refuses %s', (_, value, message) => {
    const error = refusal(value);
    expect(error.message).toContain(message);
    expect(error.error).toBe('invalid_authorization_details');
    expect(error.message).toMatch(ERROR_DESCRIPTION);
  });

  it('RFC 9396 §5: refuses an unknown type with InvalidAuthorizationDetailsError', () => {
    const error = refusal([{ type: 'payment_initiation', resource: 'https://r.example', actions: ['pay'] }]);
    expect(error.message).toBe("authorization_details[0].type 'payment_initiation' is not a supported type (supported: mission_resource_access)");
  });

  it('does not quote member names that are unsafe in error_description', () => {
    const error = refusal([entry({ 'bad"name\\': 1 })]);
    expect(error.message).toMatch(ERROR_DESCRIPTION);
    expect(error.message).toContain('a member with an unsupported name');
    expect(refusal([{ type: 'x"y', resource: 'https://r.example', actions: ['a'] }]).message).toMatch(ERROR_DESCRIPTION);
  });

  it('refuses __proto__ members instead of copying them into a prototype', () => {
    expect(refusal(JSON.parse('[{"type":"mission_resource_access","resource":"https://r.example","actions":["a"],"constraints":{"__proto__":{"x":1}}}]')).message).toContain('__proto__');
    expect(refusal(JSON.parse('[{"type":"mission_resource_access","resource":"https://r.example","actions":["a"],"delegation":{"__proto__":1}}]')).message).toContain('__proto__');
    expect(refusal(JSON.parse('[{"type":"mission_resource_access","resource":"https://r.example","actions":["a"],"__proto__":1}]'))).toBeInstanceOf(InvalidAuthorizationDetailsError);
  });

  it('refuses values that are not JSON (non-finite numbers, class instances, lone surrogates)', () => {
    expect(refusal([entry({ constraints: { n: Number.NaN } })]).message).toContain('must be a finite number');
    expect(refusal([entry({ constraints: { d: new Date(0) } })]).message).toContain('must be a JSON value');
    expect(refusal([entry({ constraints: { s: '\uD800' } })]).message).toContain('well-formed');
    expect(refusal([entry({ actions: ['\uDC00'] })]).message).toContain('lone surrogates');
  });

  describe('input limits', () => {
    const L = AUTHORIZATION_DETAILS_LIMITS;
    it(`at most ${L.maxEntries} entries`, () => {
      expect(parseAuthorizationDetails(Array.from({ length: L.maxEntries }, () => entry()))).toHaveLength(L.maxEntries);
      expect(refusal(Array.from({ length: L.maxEntries + 1 }, () => entry())).message).toContain(`at most ${L.maxEntries} entries`);
    });
    it(`at most ${L.maxActions} actions of at most ${L.maxActionLength} characters`, () => {
      const many = Array.from({ length: L.maxActions + 1 }, (_, i) => `a${i}`);
      expect(refusal([entry({ actions: many })]).message).toContain(`at most ${L.maxActions} actions`);
      expect(refusal([entry({ actions: ['x'.repeat(L.maxActionLength + 1)] })]).message).toContain(`${L.maxActionLength} characters`);
    });
    it('a bounded resource length', () => {
      expect(refusal([entry({ resource: `https://r.example/${'a'.repeat(2100)}` })]).message).toContain('at most 2048 characters');
    });
    it('bounded constraint nesting, strings and total size', () => {
      let deep: unknown = 1;
      for (let i = 0; i < L.maxJsonDepth + 1; i++) deep = { d: deep };
      expect(refusal([entry({ constraints: deep })]).message).toContain('nests deeper than');
      expect(refusal([entry({ constraints: { s: 'x'.repeat(L.maxJsonStringLength + 1) } })]).message).toContain('characters');
      const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, Array.from({ length: 20 }, () => 1)]));
      expect(refusal([entry({ constraints: wide })]).message).toContain('too many values in total');
    });
    it('bounded matcher lists', () => {
      const many = Array.from({ length: L.maxMatchers + 1 }, () => ({ sub_profile: 'ai_agent' }));
      expect(refusal([entry({ delegation: { allowed_delegates: many } })]).message).toContain(`at most ${L.maxMatchers} matchers`);
    });
  });
});
