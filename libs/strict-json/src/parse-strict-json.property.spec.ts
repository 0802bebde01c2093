import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { parseWithAst } from './ast-parse.js';
import { parseStrictJson, StrictJsonError } from './parse-strict-json.js';

/** What a parse answered: the value, or the refusal's message (any other error is reported as such). */
function outcome(parse: () => unknown): { value: unknown } | { refused: string } {
  try {
    return { value: parse() };
  } catch (error) {
    if (error instanceof StrictJsonError) return { refused: error.message };
    return { refused: `NOT A StrictJsonError: ${String(error)}` };
  }
}

function expectSameAnswer(text: string, maxDepth: number): void {
  const fast = outcome(() => parseStrictJson(text, { maxDepth }));
  const ast = outcome(() => parseWithAst(text, maxDepth));
  // isDeepStrictEqual compares prototypes and own properties (an own "__proto__" member), and -0 with 0.
  if (!isDeepStrictEqual(fast, ast)) throw new Error(`different answers for ${JSON.stringify(text)}: ${JSON.stringify(fast)} vs ${JSON.stringify(ast)}`);
}

// Few names, so that duplicates are frequent; several spell the same name with escapes.
const memberName = fc.constantFrom('"a"', '"\\u0061"', '"b"', '"__proto__"', '"\\u005f_proto__"', '""', '"é"', '"\\u00e9"', '"\\""', '"\\\\"', '"a\\/b"', '"a/b"', '"\\ud83d\\ude80"', '"🚀"');
const space = fc.constantFrom('', '', ' ', '\n', '\t', '\r\n  ');
const scalar = fc.oneof(
  fc.constantFrom('true', 'false', 'null', '0', '-0', '1.5e3', '1E400', '-12', '"x"', '"{\\"a\\":1,\\"a\\":2}"', '"[[["', '"\\u0000"', '"a,b"', '"}"'),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string().map((s) => JSON.stringify(s)),
);
const { value: jsonText } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: fc
    .array(fc.tuple(space, memberName, space, tie('value')), { maxLength: 5 })
    .map((members) => `{${members.map(([s1, name, s2, value]) => `${s1}${name}${s2}:${value}`).join(',')}}`),
  array: fc.array(fc.tuple(space, tie('value')), { maxLength: 5 }).map((elements) => `[${elements.map(([s, value]) => `${s}${value}`).join(',')}]`),
}));
/** Deep chains of objects and arrays, around the depth limit, with a duplicate or not at the bottom. */
const deepText = fc
  .tuple(fc.array(fc.constantFrom('[', '{"a":', '{"b":1,"\\u0062":'), { minLength: 1, maxLength: 12 }), fc.constantFrom('1', '{"a":1,"a":2}', '[]'))
  .map(([opens, inner]) => opens.join('') + inner + opens.map((open) => (open === '[' ? ']' : '}')).reverse().join(''));
/** Valid text with one character inserted, removed or replaced: mostly invalid JSON. */
const mutated = fc
  .tuple(jsonText, fc.nat(), fc.constantFrom('', ',', '"', '{', '}', '[', ']', ':', '\\', '\t', '\u0000', ' ', '1', 'x', '\u2028', '\ud800'), fc.boolean())
  .map(([text, at, character, replace]) => {
    const index = text.length === 0 ? 0 : at % text.length;
    return text.slice(0, index) + character + text.slice(index + (replace ? 1 : 0));
  });

describe('strict JSON: the linear scan answers exactly as the AST check (DESIGN 3.3, ADR 0072)', () => {
  it('DESIGN 3.3: same value or same refusal on random JSON with repeated and escaped member names', () => {
    fc.assert(fc.property(jsonText, fc.integer({ min: 1, max: 6 }), (text, maxDepth) => expectSameAnswer(text, maxDepth)), { numRuns: 3000 });
  });

  it('DESIGN 3.3: same answer at and around the depth limit, duplicates at depth', () => {
    fc.assert(fc.property(deepText, fc.integer({ min: 1, max: 14 }), (text, maxDepth) => expectSameAnswer(text, maxDepth)), { numRuns: 2000 });
  });

  it('DESIGN 3.3: same answer on text that is almost JSON', () => {
    fc.assert(fc.property(mutated, (text) => expectSameAnswer(text, 32)), { numRuns: 3000 });
  });

  it('DESIGN 3.3: same answer on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => expectSameAnswer(text, 32)), { numRuns: 1000 });
  });

  it.each([
    ['"__proto__" is an own member, as JSON.parse makes it', '{"__proto__":{"x":1}}'],
    ['"__proto__" spelled with an escape repeats it', '{"__proto__":1,"\\u005f_proto__":2}'],
    ['a repeated name inside an array at depth', '[[{"a":[{"b":1,"b":2}]}]]'],
    ['a name after a string value that looks like an object', '{"a":"{\\"b\\":1}","b":2}'],
    ['a name after an escaped quote', '{"a\\"":1,"a\\u0022":2}'],
    ['names in sibling objects', '[{"a":1},{"a":2}]'],
    ['an unescaped tab inside a string (momoa accepts it, JSON.parse does not)', '{"a":"\t"}'],
  ])('DESIGN 3.3: %s', (_, text) => {
    expectSameAnswer(text, 32);
  });
});
