import type { JsonObject } from '@mission/event-store';

/** What is being used once: a client assertion (RFC 7523 §3 item 7) or a DPoP proof (RFC 9449 §11.1). */
export type SingleUseKind = 'client_assertion' | 'dpop_proof';

export interface SingleUse {
  readonly kind: SingleUseKind;
  /** Whose `jti` namespace: the client_id for assertions, the key thumbprint for DPoP proofs. */
  readonly scope: string;
  readonly jti: string;
  /**
   * From this instant on the token is refused on its own time claims (exp, iat window, clock tolerance
   * included), so the record may be swept after it (ADR 0057); before it, forgetting the use re-opens a replay.
   */
  readonly expiresAt: Date;
  /** Audit data stored with the use (store-backed registry only). */
  readonly data?: JsonObject;
}

/**
 * Records `jti` values so each is accepted once. `use` resolves `true` the first time a (kind, scope, jti)
 * is seen and `false` on every later attempt, concurrent ones included.
 */
export interface JtiRegistry {
  use(use: SingleUse): Promise<boolean>;
}
