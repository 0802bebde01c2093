import * as api from './index.js';

describe('@mission/issuer-oauth public API', () => {
  it('exports every check, the error classes and the replay registries', () => {
    for (const name of [
      'authenticateClient', 'verifyDpopProof', 'assertDpopBinding', 'verifyPkce', 'assertCodeChallenge', 'issueAccessToken',
      'verifyAccessToken', 'normalizeHtu', 'accessTokenHash', 's256CodeChallenge', 'cappedExpiry', 'runRules', 'runSyncRules',
      'withMissionDenialReason', 'formValue',
    ] as const) {
      expect(typeof api[name]).toBe('function');
    }
    for (const name of [
      'InvalidRequestError', 'InvalidClientError', 'InvalidGrantError', 'UnauthorizedClientError', 'UnsupportedGrantTypeError',
      'InvalidAuthorizationDetailsError', 'AccessDeniedError', 'InvalidDpopProofError', 'UseDpopNonceError', 'InvalidTokenError',
      'ConflictError', 'NotFoundError', 'DpopNonces', 'EventStoreJtiRegistry', 'InMemoryJtiRegistry',
    ] as const) {
      expect(api[name].prototype).toBeDefined();
    }
    expect(api.CLIENT_ASSERTION_TYPE_JWT_BEARER).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
  });
});
