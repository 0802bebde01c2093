import { contentDigest, ContentDigestError, verifyContentDigest } from './content-digest.js';
import { testRequest, testRequestBody, testResponse, testResponseBody } from './rfc9421-vectors.spec-helper.js';

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ContentDigestError) return error.reason;
    throw error;
  }
  throw new Error('expected a ContentDigestError');
}

describe('Content-Digest (RFC 9530)', () => {
  it('RFC 9530 §2 / Appendix B: sha-256 of {"hello": "world"}', () => {
    expect(contentDigest(testRequestBody)).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
  });

  it('RFC 9530 §2 / Appendix B: sha-512 of {"hello": "world"}', () => {
    expect(contentDigest(Buffer.from(testRequestBody), 'sha-512')).toBe(
      'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    );
  });

  it('RFC 9530 Appendix B.1: empty content has the digest of zero bytes', () => {
    expect(contentDigest('')).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
  });

  it('RFC 9530 §2: verifies the RFC 9421 Appendix B.2 test-request and test-response digests', () => {
    expect(verifyContentDigest(testRequest.headers['Content-Digest'], testRequestBody)).toEqual(['sha-512']);
    expect(verifyContentDigest(testResponse.headers['Content-Digest'], Buffer.from(testResponseBody))).toEqual([
      'sha-512',
    ]);
  });

  it('RFC 9530 §2: several digests are all checked, unknown algorithms ignored', () => {
    const value = `${contentDigest(testRequestBody)}, unixsum=:AAAA:, ${contentDigest(testRequestBody, 'sha-512')}`;
    expect(verifyContentDigest(value, testRequestBody)).toEqual(['sha-256', 'sha-512']);
    expect(verifyContentDigest([contentDigest(testRequestBody), 'md5=:AAAA:'], testRequestBody)).toEqual(['sha-256']);
  });

  it('RFC 9530 §2: a body that does not match is refused', () => {
    expect(reasonOf(() => verifyContentDigest(contentDigest(testRequestBody), '{"hello": "World"}'))).toBe('mismatch');
    const oneWrong = `${contentDigest(testRequestBody)}, ${contentDigest('other', 'sha-512')}`;
    expect(reasonOf(() => verifyContentDigest(oneWrong, testRequestBody))).toBe('mismatch');
  });

  it('RFC 9530 §5: no supported algorithm, missing or malformed field is refused', () => {
    expect(reasonOf(() => verifyContentDigest('md5=:AAAA:', testRequestBody))).toBe('unsupported_algorithm');
    expect(reasonOf(() => verifyContentDigest(undefined, testRequestBody))).toBe('missing');
    expect(reasonOf(() => verifyContentDigest('sha-256=abc def', testRequestBody))).toBe('malformed');
    expect(reasonOf(() => verifyContentDigest('sha-256="not-bytes"', testRequestBody))).toBe('malformed');
  });
});
