import { InvalidRequestError } from '@mission/protocol-errors';
import { InvalidGrantError } from '../errors/invalid-grant.error.js';
import { s256CodeChallenge } from './rules/s256-matches.js';
import { assertCodeChallenge, CODE_CHALLENGE_RULES, PKCE_VERIFICATION_RULES, verifyPkce } from './verify-pkce.js';

// RFC 7636 Appendix B
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('verifyPkce (RFC 7636 §4.5, §4.6)', () => {
  it('runs presence, syntax, then comparison', () => {
    expect(PKCE_VERIFICATION_RULES.map((rule) => rule.name)).toEqual(['codeVerifierPresent', 'codeVerifierSyntax', 's256Matches']);
  });

  it('RFC 7636 Appendix B: S256 of the example verifier is the example challenge', () => {
    expect(s256CodeChallenge(VERIFIER)).toBe(CHALLENGE);
  });

  it('RFC 7636 §4.6: accepts the verifier of the stored challenge', () => {
    expect(() => verifyPkce(VERIFIER, CHALLENGE)).not.toThrow();
  });

  it('RFC 7636 §4.6: refuses another verifier with invalid_grant', () => {
    expect(() => verifyPkce(`${VERIFIER.slice(0, -1)}A`, CHALLENGE)).toThrow(InvalidGrantError);
  });

  it('RFC 7636 §4.6: refuses the challenge itself sent as verifier (plain downgrade)', () => {
    expect(() => verifyPkce(CHALLENGE, CHALLENGE)).toThrow(InvalidGrantError);
  });

  it('RFC 7636 §4.5: accepts a present verifier', () => {
    expect(() => verifyPkce(VERIFIER, CHALLENGE)).not.toThrow();
  });

  it.each([[undefined], ['']])('RFC 7636 §4.5: refuses a missing verifier (%p) with invalid_grant', (verifier) => {
    expect(() => verifyPkce(verifier, CHALLENGE)).toThrow(InvalidGrantError);
  });

  it.each([
    ['43 characters', 'a'.repeat(43)],
    ['128 characters', '~'.repeat(128)],
    ['every unreserved character', 'ABCXYZabcxyz0189-._~'.repeat(3)],
  ])('RFC 7636 §4.1: accepts a verifier of %s (syntax)', (_what, verifier) => {
    expect(() => verifyPkce(verifier, s256CodeChallenge(verifier))).not.toThrow();
  });

  it.each([
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a reserved character', `${'a'.repeat(42)}+`],
    ['a space', `${'a'.repeat(42)} `],
    ['a non-ASCII character', `${'a'.repeat(42)}é`],
  ])('RFC 7636 §4.1: refuses a verifier of %s with invalid_request', (_what, verifier) => {
    expect(() => verifyPkce(verifier, s256CodeChallenge(verifier))).toThrow(InvalidRequestError);
  });
});

describe('assertCodeChallenge (RFC 7636 §4.2, §4.3) at PAR', () => {
  it('runs presence, method, then syntax', () => {
    expect(CODE_CHALLENGE_RULES.map((rule) => rule.name)).toEqual(['codeChallengePresent', 'codeChallengeMethodS256', 'codeChallengeSyntax']);
  });

  it('RFC 7636 §4.3: accepts an S256 challenge', () => {
    expect(() => assertCodeChallenge(CHALLENGE, 'S256')).not.toThrow();
  });

  it('RFC 7636 §4.3: refuses a request without code_challenge', () => {
    expect(() => assertCodeChallenge(undefined, 'S256')).toThrow(new InvalidRequestError('code_challenge is required'));
  });

  it.each([['plain'], [undefined], ['s256'], ['S512']])('RFC 7636 §4.2 / RFC 9700 §2.1.1: refuses code_challenge_method %p', (method) => {
    expect(() => assertCodeChallenge(CHALLENGE, method)).toThrow(new InvalidRequestError('code_challenge_method must be S256'));
  });

  it.each([
    ['a plain verifier as challenge (44+ characters)', VERIFIER + 'x'],
    ['padding', `${CHALLENGE.slice(0, 42)}=`],
    ['standard base64 characters', `${CHALLENGE.slice(0, 42)}+`],
  ])('RFC 7636 §4.2: refuses a challenge with %s', (_what, challenge) => {
    expect(() => assertCodeChallenge(challenge, 'S256')).toThrow(InvalidRequestError);
  });
});
