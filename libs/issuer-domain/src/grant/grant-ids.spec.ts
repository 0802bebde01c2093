import { InvalidCommandError } from '../shared/errors.js';
import { sha256Base64url } from '../shared/sha256.js';
import {
  grantIdFromBytes,
  grantIdOfToken,
  grantStreamName,
  grantTokenFromBytes,
  grantTokenHash,
  isGrantId,
  isRequestId,
  parStreamName,
  requestIdFromBytes,
  requestIdFromUri,
  requestUriFor,
} from './grant-ids.js';

const grantId = grantIdFromBytes(new Uint8Array(16).fill(7));
const secret = Uint8Array.from({ length: 32 }, (_, i) => i);

describe('grant and request identifiers (DESIGN 1 streams par-<id>, grant-<id>)', () => {
  it('DESIGN 1: grant ids name the grant stream; request ids the par stream', () => {
    expect(isGrantId(grantId)).toBe(true);
    expect(grantStreamName(grantId)).toBe(`grant-${grantId}`);
    const requestId = requestIdFromBytes(new Uint8Array(16).fill(9));
    expect(isRequestId(requestId)).toBe(true);
    expect(parStreamName(requestId)).toBe(`par-${requestId}`);
    expect(() => grantStreamName('grt_x')).toThrow(InvalidCommandError);
    expect(() => parStreamName(grantId)).toThrow(InvalidCommandError);
  });

  it('RFC 9126 §2.2: request_uri is the URN prefix plus the request id, and parses back', () => {
    const requestId = requestIdFromBytes(new Uint8Array(16));
    const uri = requestUriFor(requestId);
    expect(uri).toBe(`urn:ietf:params:oauth:request_uri:${requestId}`);
    expect(requestIdFromUri(uri)).toBe(requestId);
    expect(requestIdFromUri(`urn:ietf:params:oauth:request_uri:${grantId}`)).toBeUndefined();
    expect(requestIdFromUri('https://issuer.example/par/1')).toBeUndefined();
    expect(requestIdFromUri(7)).toBeUndefined();
  });

  it('DESIGN 2.3: a code or refresh token is <grant_id>.<32 random bytes>, and only its SHA-256 is stored', () => {
    const token = grantTokenFromBytes(grantId, secret);
    expect(token).toBe(`${grantId}.AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8`);
    expect(grantIdOfToken(token)).toBe(grantId);
    expect(grantTokenHash(token)).toBe(sha256Base64url(token));
    expect(grantTokenHash(token)).toHaveLength(43);
  });

  it.each([
    ['no separator', `${grantId}AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8`],
    ['a short secret', `${grantId}.AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh`],
    ['a non-canonical secret end', `${grantId}.AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9`],
    ['a foreign prefix', `msn_${grantId.slice(4)}.AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8`],
    ['a JWT', 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
    ['not a string', 42],
  ])('grantIdOfToken refuses %s', (_, token) => {
    expect(grantIdOfToken(token)).toBeUndefined();
  });

  it('refuses secrets of the wrong size', () => {
    expect(() => grantTokenFromBytes(grantId, new Uint8Array(16))).toThrow(InvalidCommandError);
    expect(() => grantTokenFromBytes('grt_bad', secret)).toThrow(InvalidCommandError);
  });
});
