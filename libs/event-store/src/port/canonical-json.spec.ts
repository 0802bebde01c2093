import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalJson } from './canonical-json.js';

/**
 * canonicalJson must give exactly the RFC 8785 text of the reference implementation (the `canonicalize` package) for
 * every JSON value, whichever of its paths answers: the stored form (already in order), the ordered copy + one
 * JSON.stringify, or `canonicalize` itself. The keys are chosen to hit what the ordered copy cannot do — array-index keys
 * (JSON.stringify writes them first, in numeric order), `__proto__` as an own member (what JSON.parse makes of it) —
 * and objects with more members than the insertion sort takes.
 */
const KEY = fc.oneof(
  fc.constantFrom('__proto__', '0', '1', '9', '10', '01', '4294967295', '-1', '1.5', 'a', 'b', 'A', 'aa', '_', 'é', '😀', '\u2028', 'constructor', 'toJSON'),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
);
const LEAF = fc.oneof(
  fc.constantFrom(1e21, -0, 1e-7, 5e-324, 1e300, 0.1, '', null, true, false),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.string({ unit: 'grapheme' }),
);

/** Objects built as JSON.parse builds them: every key an own, enumerable member (`__proto__` included). */
function asParsedObject(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

const { json } = fc.letrec<{ json: unknown; object: Record<string, unknown> }>((tie) => ({
  json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, LEAF, fc.array(tie('json'), { maxLength: 4 }), tie('object')),
  object: fc.oneof(
    fc.array(fc.tuple(KEY, tie('json')), { maxLength: 6 }).map(asParsedObject),
    // More members than the insertion sort takes (32): the native sort's branch.
    fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 5 }), LEAF), { minLength: 33, maxLength: 60, selector: ([key]) => key }).map(asParsedObject),
  ),
}));

describe('canonicalJson (RFC 8785, ADR 0005): the same text as the canonicalize package', () => {
  it('for any JSON value, in any member order (property)', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('for the same values after a round trip through their canonical text (the stored form: already in order)', () => {
    fc.assert(
      fc.property(json, (value) => {
        const stored = JSON.parse(canonicalize(value)!) as unknown;
        expect(canonicalJson(stored)).toBe(canonicalize(value));
      }),
      { numRuns: 1_000 },
    );
  });

  it('writes array-index keys in code-unit order, not the numeric order JSON.stringify uses', () => {
    expect(canonicalJson({ b: 1, '10': 2, '9': 3, a: [{ y: 1, x: 2 }] })).toBe('{"10":2,"9":3,"a":[{"x":2,"y":1}],"b":1}');
  });

  it('keeps `__proto__` as a member and the prototype of nothing', () => {
    const parsed = JSON.parse('{"z":1,"__proto__":{"polluted":true}}') as unknown;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"z":1}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('drops members whose value is undefined and refuses what is not JSON as canonicalize does', () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(canonicalJson({ b: [undefined], a: new Date('2026-01-01T00:00:00Z') })).toBe(canonicalize({ b: [undefined], a: new Date('2026-01-01T00:00:00Z') }));
    expect(() => canonicalJson({ b: 1, a: '\ud800' })).toThrow('Lone surrogate');
    expect(() => canonicalJson({ b: 1, ['\udc00']: 1 })).toThrow('Lone surrogate');
    expect(() => canonicalJson({ b: 1, a: Number.POSITIVE_INFINITY })).toThrow();
  });
});
