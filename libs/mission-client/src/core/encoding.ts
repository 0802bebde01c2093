/** Isomorphic helpers over WebCrypto (`globalThis.crypto`, present in Node >= 20 and every browser). */

const encoder = new TextEncoder();

/** RFC 4648 §5 base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `count` bytes from the platform CSPRNG, base64url: 16 bytes = 128 bits (22 characters). */
export function randomBase64url(count = 16): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(count)));
}

/** base64url(SHA-256(UTF-8 text)), e.g. a DPoP `ath` (RFC 9449 §4.2). */
export async function sha256Base64url(text: string | Uint8Array): Promise<string> {
  const data = typeof text === 'string' ? encoder.encode(text) : text;
  return base64url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>)));
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Wait without holding the process open longer than needed; `signal` aborts the wait. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
