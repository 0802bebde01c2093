import fc from 'fast-check';
import { absoluteUriProblem } from './uri.js';

/** The WHATWG parser's answer as the check read it before (constructing a URL). */
function urlConstructs(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

const uriCharacter = fc.constantFrom(...'aZ09+.-:/?#[]@!$&\'()*,;=%~_ '.split(''), 'é', 'http://', 'https://', '[::1]', '%2', '%41', 'urn:');

describe('absolute URIs (RFC 8707 resource indicators, RFC 3986)', () => {
  it.each([
    ['https://erp.example.com', undefined],
    ['urn:example:resource', undefined],
    ['http://[::1', 'must be an absolute URI (RFC 3986)'],
    ['http://exa mple', 'must be an absolute URI (RFC 3986)'],
    ['https://a.example/#frag', 'must not contain a fragment'],
    ['https://a.example/%zz', 'must be an absolute URI (RFC 3986)'],
  ])('RFC 3986 §4.3: %s', (value, problem) => {
    expect(absoluteUriProblem(value)).toBe(problem);
  });

  it('RFC 3986 §4.3: refuses exactly what the URL constructor refuses among syntactically plausible URIs', () => {
    fc.assert(fc.property(fc.array(uriCharacter, { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')), (value) => {
      const passesSyntax = /^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?[\]@!$&'()*+,;=%]+$/.test(value) && !value.includes('#') && !/%(?![0-9A-Fa-f]{2})/.test(value);
      expect(absoluteUriProblem(value) === undefined).toBe(passesSyntax && urlConstructs(value));
    }), { numRuns: 3000 });
  });
});
