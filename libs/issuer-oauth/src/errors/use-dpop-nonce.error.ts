import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/**
 * RFC 9449 §8 `use_dpop_nonce`: the proof lacks the server's nonce or carries a stale one; the fresh nonce
 * travels in the `DPoP-Nonce` header. At the authorization server this is a 400 error response
 * (§8); at a resource server (§9) it is a 401 with a `DPoP` challenge, selected by `resourceServer`.
 */
export class UseDpopNonceError extends ProtocolError {
  constructor(
    readonly nonce: string,
    description = 'Authorization server requires nonce in DPoP proof',
    options: ProtocolErrorOptions & { readonly resourceServer?: boolean } = {},
  ) {
    const { resourceServer = false, ...rest } = options;
    const challenge: Record<string, string> = resourceServer ? { 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"' } : {};
    super(resourceServer ? 401 : 400, 'use_dpop_nonce', description, { ...rest, headers: { ...challenge, 'DPoP-Nonce': nonce, ...rest.headers } });
  }
}
