/**
 * JWS algorithms accepted for DPoP proofs and private_key_jwt assertions: asymmetric only (RFC 9449 §4.3
 * step 5, RFC 7523 §3 item 9), matching the keys the registries accept (EC P-256, OKP Ed25519; ADR 0006).
 * `Ed25519` is the fully-specified name of EdDSA over Ed25519 (RFC 9864).
 */
export const ASYMMETRIC_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519'] as const;
export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];
