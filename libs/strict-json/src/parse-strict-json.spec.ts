import { parseStrictJson, StrictJsonError } from './parse-strict-json.js';

describe('strict JSON (duplicate member names are refused, DESIGN 3.3)', () => {
  it('parses RFC 8259 JSON to the same value as JSON.parse', () => {
    const text = '{"a":[1,2.5,-3e2,true,false,null,"é\\u0000🚀"],"b":{"c":{}},"":""}';
    expect(parseStrictJson(text)).toEqual(JSON.parse(text));
    expect(parseStrictJson('"just a string"')).toBe('just a string');
  });

  it.each([
    ['a duplicate member', '{"a":1,"a":2}', /duplicate member name "a"/],
    ['a nested duplicate', '{"x":[{"b":1,"b":1}]}', /duplicate member name "b"/],
    ['a duplicate spelled with an escape', '{"a":1,"\\u0061":2}', /duplicate member name "a"/],
    ['a trailing comma', '{"a":1,}', /not valid JSON/],
    ['a comment', '{"a":1 /* c */}', /not valid JSON/],
    ['single quotes', "{'a':1}", /not valid JSON/],
    ['an unquoted name', '{a:1}', /not valid JSON/],
    ['two documents', '{} {}', /not valid JSON/],
    ['empty text', '', /not valid JSON/],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseStrictJson(text)).toThrow(StrictJsonError);
    expect(() => parseStrictJson(text)).toThrow(message);
  });

  it('limits size and depth', () => {
    expect(() => parseStrictJson(`"${'x'.repeat(100)}"`, { maxBytes: 50 })).toThrow(/exceeds 50 bytes/);
    expect(() => parseStrictJson('['.repeat(40) + ']'.repeat(40))).toThrow(/deeper than 32/);
  });

  it('refuses very deep nesting by its depth (the AST walk alone used to overflow the stack: "not valid JSON")', () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    expect(() => parseStrictJson(deep)).toThrow(StrictJsonError);
    expect(() => parseStrictJson(deep)).toThrow(/deeper than 32/);
  });

  it('counts UTF-8 bytes, not UTF-16 code units, against maxBytes', () => {
    expect(() => parseStrictJson(`"${'é'.repeat(30)}"`, { maxBytes: 61 })).toThrow(/exceeds 61 bytes/);
    expect(parseStrictJson(`"${'é'.repeat(30)}"`, { maxBytes: 62 })).toBe('é'.repeat(30));
    expect(() => parseStrictJson(`"${'🚀'.repeat(10)}"`, { maxBytes: 41 })).toThrow(/exceeds 41 bytes/);
  });
});
