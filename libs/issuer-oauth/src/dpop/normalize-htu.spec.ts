import { normalizeHtu } from './normalize-htu.js';

describe('normalizeHtu (RFC 9449 §4.3 step 9, RFC 3986 §6.2.2–6.2.3)', () => {
  it.each([
    ['https://issuer.example/token', 'https://issuer.example/token'],
    ['HTTPS://Issuer.EXAMPLE/token', 'https://issuer.example/token'],
    ['https://issuer.example:443/token', 'https://issuer.example/token'],
    ['http://issuer.example:80/token', 'http://issuer.example/token'],
    ['https://issuer.example:8443/token', 'https://issuer.example:8443/token'],
    ['https://issuer.example', 'https://issuer.example/'],
    ['https://issuer.example/a/./b/../token', 'https://issuer.example/a/token'],
    ['https://issuer.example/%7Euser/%2f', 'https://issuer.example/~user/%2F'],
    ['https://issuer.example/token?x=1#y', 'https://issuer.example/token'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeHtu(input)).toBe(expected);
  });

  it.each([['relative'], ['/token'], ['ftp://issuer.example/token'], ['https://u:p@issuer.example/token'], ['urn:x:y']])('refuses %s', (input) => {
    expect(normalizeHtu(input)).toBeUndefined();
  });
});
