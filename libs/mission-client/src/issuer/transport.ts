import * as oauth from 'oauth4webapi';
import { MissionClientError, UnreachableError } from '../core/errors.js';

/** How the SDK talks HTTP: an injectable `fetch` (tests, proxies) and whether plain `http:` is allowed. */
export interface Transport {
  readonly fetch: typeof fetch;
  /** Plain `http:` URLs; by default only for loopback hosts (local development). */
  readonly allowInsecureHttp: boolean;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Parses a service URL; a bad URL is a clear `bad_url` error, never a stack trace. */
export function serviceUrl(value: string | URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new MissionClientError('bad_url', `${what} is not a URL: ${String(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new MissionClientError('bad_url', `${what} must be an http(s) URL: ${url.href}`);
  return url;
}

export function transportFor(url: URL, options: { fetch?: typeof fetch; allowInsecureHttp?: boolean }): Transport {
  const base = options.fetch ?? globalThis.fetch.bind(globalThis);
  const wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    try {
      return await base(input, init);
    } catch (error) {
      if (error instanceof MissionClientError) throw error;
      throw new UnreachableError(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, (error as { cause?: unknown }).cause ?? error);
    }
  }) as typeof fetch;
  return { fetch: wrapped, allowInsecureHttp: options.allowInsecureHttp ?? LOOPBACK.has(url.hostname) };
}

/** oauth4webapi's per-call options for this transport. */
export function oauthOptions(transport: Transport): { [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => Promise<Response>; [oauth.allowInsecureRequests]: boolean } {
  return {
    [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => transport.fetch(url, init as RequestInit),
    [oauth.allowInsecureRequests]: transport.allowInsecureHttp,
  };
}

/** Runs an oauth4webapi request once more when the server asked for a (fresh) DPoP nonce (RFC 9449 §8). */
export async function withDpopNonceRetry<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return call();
  }
}
