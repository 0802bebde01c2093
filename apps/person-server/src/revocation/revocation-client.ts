import { KeyObject } from 'node:crypto';
import { contentDigest, signRequest } from '@mission/http-signatures';
import type { RequestTrace } from '@mission/es-kit';
import { withOutgoingTrace, type SigningKeys } from '@mission/platform';
import type { RevocationFailure, TokenIdentity } from '@mission/ps-domain';

/** What one call to a resource's revocation endpoint came to (spec 4.4 rule 3). */
export type RevocationAnswer = { readonly outcome: 'confirmed'; readonly httpStatus: 200 } | { readonly outcome: RevocationFailure; readonly httpStatus?: number };

export interface RevocationClientOptions {
  /** This PS's issuer identifier (BASE_URL). */
  readonly issuer: string;
  readonly keys: SigningKeys;
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
  readonly nowSeconds?: () => number;
}

/**
 * Calls a resource's `revocation_endpoint` with `{"iss", "jti"}` (spec 4.4 rule 1), signed by the PS
 * with RFC 9421 (spec 4.4 rule 2 "authenticated", DESIGN 3.3): `Signature-Key:
 * sig=jwks_uri;id="<issuer>";dwk="aauth-person.json";kid="<kid>"`, covering method, authority, path,
 * `signature-key`, `content-type` and `content-digest`. Only a `200` confirms; everything else —
 * timeout, connection failure, 5xx, 4xx, other 2xx/3xx — stays unconfirmed (spec 4.4 rule 3).
 */
export class RevocationClient {
  private readonly privateKey: KeyObject;
  private readonly signatureKey: string;

  constructor(private readonly options: RevocationClientOptions) {
    this.privateKey = KeyObject.from(options.keys.privateKey as unknown as Parameters<typeof KeyObject.from>[0]);
    this.signatureKey = `sig=jwks_uri;id="${options.issuer}";dwk="aauth-person.json";kid="${options.keys.kid}"`;
  }

  async revoke(endpoint: string, token: TokenIdentity, signal?: AbortSignal, trace?: RequestTrace): Promise<RevocationAnswer> {
    const body = Buffer.from(JSON.stringify({ iss: token.iss, jti: token.jti }), 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-digest': contentDigest(body),
      'signature-key': this.signatureKey,
    };
    const created = this.options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
    const signed = signRequest(
      { method: 'POST', url: endpoint, headers },
      {
        label: 'sig',
        components: ['@method', '@authority', '@path', 'signature-key', 'content-type', 'content-digest'],
        params: { created },
        alg: 'ecdsa-p256-sha256',
        privateKey: this.privateKey,
      },
    );
    // The call is a client span of the terminate request that caused it, and carries its `traceparent` (ADR 0050);
    // trace headers are not signed: a proxy may rewrite them without breaking the signature.
    return withOutgoingTrace(trace, 'POST revocation_endpoint', endpoint, async (traceHeaders) => {
      const answer = await this.send(endpoint, { ...headers, ...traceHeaders, 'signature-input': signed['signature-input'], signature: signed.signature }, body, signal);
      return { result: answer, ...(answer.httpStatus !== undefined ? { status: answer.httpStatus } : {}) };
    });
  }

  private async send(endpoint: string, headers: Record<string, string>, body: Buffer, signal: AbortSignal | undefined): Promise<RevocationAnswer> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(endpoint, {
        method: 'POST',
        headers,
        // A copy as a plain Uint8Array: the same bytes, and a body type both Node's and the DOM's fetch typings accept
        // (the browser specs type-check this file with the DOM library).
        body: new Uint8Array(body),
        redirect: 'manual',
        signal: signal !== undefined ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      return { outcome: timeout.aborted || isAbort(error) ? 'timeout' : 'unreachable' };
    }
    // The body is irrelevant to the outcome; drain it so the connection can be reused.
    await response.body?.cancel().catch(() => undefined);
    if (response.status === 200) return { outcome: 'confirmed', httpStatus: 200 };
    if (response.status >= 500) return { outcome: 'server_error', httpStatus: response.status };
    if (response.status >= 400) return { outcome: 'rejected', httpStatus: response.status };
    return { outcome: 'ambiguous', httpStatus: response.status };
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
