import { publicSigningJwk, signatureAlgorithmOf } from '@mission/signature-key';
import type { Clock } from '../time/clock.js';
import { TemporarilyUnavailableProblem } from '../errors/problems.js';
import { SignatureVerificationProblem } from '../errors/signature-verification.problem.js';
import {
  contentDigestMatchesBody,
  createdWithinWindow,
  requestHasBody,
  requiredComponentsCovered,
  signatureFieldsLabelledSig,
  signatureKeyOf,
  signatureVerifies,
  signedMessage,
  type IncomingSignedRequest,
} from './authentication-rules.js';
import { signatureNotReplayed } from './signature-not-replayed.js';
import type { SignatureReplayCache } from './signature-replay-cache.js';
import type { StoredSignatureClaims } from './stored-signature-claims.js';
import { ResourceUnavailableError, type ResourceDirectory } from './resource-directory.js';
import type { AuthenticatedResource } from './revoker.js';

/** The metadata document a resource's `jwks_uri` Signature-Key names (`dwk`), as the PS names its own `aauth-person.json`. */
export const RESOURCE_DWK = 'aauth-resource.json';

export interface ResourceRequestAuthenticatorOptions {
  readonly baseUrl: string;
  readonly resources: Pick<ResourceDirectory, 'isTrusted' | 'keysFor'>;
  readonly replayCache: SignatureReplayCache;
  readonly signatureClaims?: StoredSignatureClaims;
  readonly clock: Clock;
}

/**
 * ADR 0016: a configured resource signing a request to the PS (the revocation endpoint) the way the PS signs its
 * own revocation calls to resources (DESIGN 3.3): RFC 9421 over the DESIGN 3.2 components, `Signature-Key`
 * scheme `jwks_uri` with `id` = the resource's configured issuer and the `kid` of one of its configured (or
 * discovered) keys; fresh, digest over the bytes received, and used once (the same shared replay claims as
 * every other request). Failures are 401 with `Signature-Error`, as for agents and principals.
 */
export class ResourceRequestAuthenticator {
  constructor(private readonly options: ResourceRequestAuthenticatorOptions) {}

  async authenticate(request: IncomingSignedRequest): Promise<AuthenticatedResource> {
    const { clock, resources } = this.options;
    const message = signedMessage(request, this.options.baseUrl);
    const hasBody = requestHasBody(request);
    const { input, fields } = signatureFieldsLabelledSig(request.headers);
    requiredComponentsCovered(input, hasBody);
    createdWithinWindow(input, clock);
    contentDigestMatchesBody(request, hasBody);
    const signatureKey = signatureKeyOf(request.headers);
    if (signatureKey.scheme !== 'jwks_uri' || signatureKey.dwk !== RESOURCE_DWK) throw new SignatureVerificationProblem('unsupported_scheme');
    if (!resources.isTrusted(signatureKey.id)) throw new SignatureVerificationProblem('unknown_key');
    let keys: Awaited<ReturnType<typeof resources.keysFor>>;
    try {
      keys = await resources.keysFor(signatureKey.id, signatureKey.kid);
    } catch (error) {
      if (error instanceof ResourceUnavailableError) throw new TemporarilyUnavailableProblem('the resource keys cannot be obtained right now', 5);
      throw error;
    }
    const jwk = keys.find((candidate) => candidate['kid'] === signatureKey.kid);
    if (jwk === undefined) throw new SignatureVerificationProblem('unknown_key');
    let publicKey: ReturnType<typeof publicSigningJwk>;
    try {
      publicKey = publicSigningJwk(jwk, 'a resource key');
    } catch (error) {
      throw new SignatureVerificationProblem('invalid_key', { cause: error });
    }
    const key = { key: { alg: signatureAlgorithmOf(publicKey), publicKey: { ...publicKey } } };
    const verified = await signatureVerifies(message, key, hasBody, clock, undefined, fields);
    await signatureNotReplayed(verified, key, this.options.replayCache, clock, undefined, this.options.signatureClaims);
    return { kind: 'resource', resource: signatureKey.id };
  }
}
