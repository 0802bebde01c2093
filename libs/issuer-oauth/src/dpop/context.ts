import type { JWK, JWTPayload, ProtectedHeaderParameters } from 'jose';
import type { AsymmetricAlgorithm } from '../errors/dpop-algorithms.js';
import type { Clock } from '../pipeline/clock.js';
import type { JtiRegistry } from '../replay/jti-registry.js';
import type { DpopNonces } from './dpop-nonces.js';

/** The parts of an HTTP request a DPoP proof is checked against. */
export interface DpopRequest {
  /** The HTTP method, e.g. `POST`. */
  readonly method: string;
  /** The absolute request URL as this server is addressed (BASE_URL + path); query and fragment are ignored. */
  readonly url: string;
  /** Every `DPoP` header value received (Node joins repeated headers, so pass `req.headersDistinct.dpop`). */
  readonly dpop: string | readonly string[] | undefined;
  /** The access token (or grant, e.g. `parent_token` at PAR, DESIGN 2.4) the proof must carry `ath` for. */
  readonly accessToken?: string;
}

export interface DpopVerificationDeps {
  /** Proof `jti` single use; the issuer injects an EventStoreJtiRegistry (see README). */
  readonly jtis: JtiRegistry;
  readonly clock: Clock;
  /** When given, every proof must carry a current nonce from it (RFC 9449 §8). */
  readonly nonces?: DpopNonces;
  /** How far `iat` may be from now, both ways. Default 60 s. */
  readonly iatWindowSeconds?: number;
  /** Accepted `alg` values; default ES256, EdDSA, Ed25519. */
  readonly algorithms?: readonly AsymmetricAlgorithm[];
  /** 401 + DPoP challenge for `use_dpop_nonce` (resource-server behaviour, RFC 9449 §9) instead of 400 (§8). */
  readonly resourceServer?: boolean;
}

export interface DpopProofContext {
  readonly request: DpopRequest;
  readonly deps: DpopVerificationDeps;
  readonly algorithms: readonly AsymmetricAlgorithm[];
  readonly now: number;
  readonly iatWindow: number;
  proof?: string;
  header?: ProtectedHeaderParameters;
  claims?: JWTPayload;
  publicJwk?: JWK;
  jkt?: string;
}

export interface VerifiedDpopProof {
  /** RFC 7638 SHA-256 thumbprint of the proof key: the value of `cnf.jkt` (RFC 9449 §6.1). */
  readonly jkt: string;
  /** The proof's public key, reduced to its public members. */
  readonly jwk: JWK;
  readonly jti: string;
  readonly iat: number;
}
