import { publicKeyThumbprint } from '@mission/http-signatures';
import type { PublicSigningJwk } from './public-signing-jwk.js';
import { SignatureKeyError } from './signature-key-error.js';

/** A Management Principal as configured (config/person-server.json `principals`, DESIGN 3.2). */
export interface ManagementPrincipal {
  readonly id: string;
  readonly role: 'person' | 'admin';
  /** RFC 7638 SHA-256 thumbprint of the principal's signing key. */
  readonly jkt: string;
  readonly tenant: string;
  /** For persons: the agents whose missions they own. */
  readonly agents?: readonly string[];
}

/** The configured principals indexed by key thumbprint. */
export type PrincipalRegistry = ReadonlyMap<string, ManagementPrincipal>;

/** Indexes principals by `jkt`; the configuration already refuses a thumbprint registered twice. */
export function principalRegistry(principals: readonly ManagementPrincipal[]): PrincipalRegistry {
  return new Map(principals.map((principal) => [principal.jkt, principal]));
}

/**
 * DESIGN 3.2: the principal an `hwk` key belongs to, by its RFC 7638 thumbprint; `unknown_key` when no
 * principal registered it. The thumbprint is computed once per key (ADR 0062).
 */
export async function hwkPrincipal(key: PublicSigningJwk, registry: PrincipalRegistry): Promise<ManagementPrincipal> {
  const jkt = publicKeyThumbprint(key);
  const principal = registry.get(jkt);
  if (principal === undefined) throw new SignatureKeyError('unknown_key', 'no principal registered this key');
  return principal;
}
