import type { HttpRequest, HttpResponse } from './http-message.js';

/** RFC 9421 Appendix B.2 `test-request`. */
export const testRequest: HttpRequest = {
  method: 'POST',
  url: 'https://example.com/foo?param=Value&Pet=dog',
  headers: {
    Host: 'example.com',
    Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    'Content-Type': 'application/json',
    'Content-Digest':
      'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'Content-Length': '18',
  },
};
export const testRequestBody = '{"hello": "world"}';

/** RFC 9421 Appendix B.2 `test-response`. */
export const testResponse: HttpResponse = {
  status: 200,
  headers: {
    Date: 'Tue, 20 Apr 2021 02:07:56 GMT',
    'Content-Type': 'application/json',
    'Content-Digest':
      'sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
    'Content-Length': '23',
  },
};
export const testResponseBody = '{"message": "good dog"}';

/** RFC 9421 Appendix B.1.3 `test-key-ecc-p256`. */
export const testKeyEccP256 = {
  kty: 'EC',
  crv: 'P-256',
  x: 'qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA',
  y: 'Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0',
  d: 'UpuF81l-kOxbjf7T4mNSv0r5tN67Gim7rnf6EFpcYDs',
};

/** RFC 9421 Appendix B.1.4 `test-key-ed25519`. */
export const testKeyEd25519 = {
  kty: 'OKP',
  crv: 'Ed25519',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
};

export function publicJwk(jwk: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(jwk).filter(([name]) => name !== 'd'));
}
