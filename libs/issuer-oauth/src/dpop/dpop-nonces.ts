import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../pipeline/clock.js';

const COUNTER_BYTES = 8;
const TAG_BYTES = 16;
const NONCE = /^[A-Za-z0-9_-]{32}$/;
const DOMAIN = 'mission-issuer dpop-nonce v1';

export interface DpopNoncesOptions {
  /** Length of one time window; a nonce is accepted in its own window and the neighbouring ones. Default 60 s. */
  readonly windowSeconds?: number;
}

/**
 * Stateless server nonces for DPoP (RFC 9449 §8, §9): `base64url(counter ‖ HMAC-SHA-256(secret, domain ‖ counter)[0..16])`
 * where `counter` is the index of the current time window. Nothing is stored: any replica holding the
 * same secret verifies any replica's nonce. A nonce is accepted during its own window and the
 * windows either side (replica clock skew), so it lives between one and two windows and at most three.
 * Nonces are not single use — proofs are (jti) — they bound how long a pre-computed proof stays usable.
 */
export class DpopNonces {
  private readonly windowMs: number;

  constructor(
    private readonly secret: Uint8Array,
    private readonly clock: Clock,
    options: DpopNoncesOptions = {},
  ) {
    if (secret.byteLength < 32) throw new TypeError('DPoP nonce secret must be at least 32 bytes');
    const windowSeconds = options.windowSeconds ?? 60;
    if (!Number.isInteger(windowSeconds) || windowSeconds < 1) throw new TypeError('DPoP nonce window must be a positive whole number of seconds');
    this.windowMs = windowSeconds * 1000;
  }

  /** A nonce for the current window: send it in `DPoP-Nonce`. */
  issue(): string {
    const counter = this.counter();
    return Buffer.concat([counterBytes(counter), this.tag(counter)]).toString('base64url');
  }

  /** True when the nonce was issued with this secret in the current window or a neighbouring one. */
  verify(nonce: unknown): boolean {
    if (typeof nonce !== 'string' || !NONCE.test(nonce)) return false;
    const bytes = Buffer.from(nonce, 'base64url');
    const counter = bytes.readBigUInt64BE(0);
    const distance = counter - BigInt(this.counter());
    if (distance < -1n || distance > 1n) return false;
    return timingSafeEqual(bytes.subarray(COUNTER_BYTES), this.tag(Number(counter)));
  }

  private counter(): number {
    return Math.floor(this.clock.now().getTime() / this.windowMs);
  }

  private tag(counter: number): Buffer {
    return createHmac('sha256', this.secret).update(DOMAIN).update(counterBytes(counter)).digest().subarray(0, TAG_BYTES);
  }
}

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(COUNTER_BYTES);
  bytes.writeBigUInt64BE(BigInt(counter));
  return bytes;
}
