import { Injectable } from '@nestjs/common';
import { principalRegistry, rememberingSignatureKeyParser, type ManagementPrincipal, type PrincipalRegistry, type SignatureKeyParser } from '@mission/signature-key';
import type { Clock } from '../time/clock.js';
import type { AgentProviderKeys } from './agent-provider-keys.js';
import {
  contentDigestMatchesBody,
  createdWithinWindow,
  requestHasBody,
  requiredComponentsCovered,
  signatureFieldsLabelledSig,
  signatureVerifies,
  signedMessage,
  signingKeyFromSignatureKey,
  SIGNATURE_MAX_AGE_SECONDS,
  type IncomingSignedRequest,
} from './authentication-rules.js';
import { signatureNotReplayed } from './signature-not-replayed.js';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import type { SignatureReplayCache } from './signature-replay-cache.js';
import type { StoredSignatureClaims } from './stored-signature-claims.js';
import { VerifiedAgentTokens } from './verified-agent-tokens.js';

export interface RequestAuthenticatorOptions {
  /** The PS's BASE_URL: its authority is the `@authority` every signature must cover. */
  readonly baseUrl: string;
  /** Management Principals from the configuration (DESIGN 5 `principals`). */
  readonly principals: readonly ManagementPrincipal[];
  readonly agentProviders: AgentProviderKeys;
  readonly replayCache: SignatureReplayCache;
  /**
   * Issue 12 defect 8: claims of accepted signatures in the event store, shared by every replica and kept
   * across restarts. Absent (unit tests, the bench's in-process authenticator): the check is per process.
   */
  readonly signatureClaims?: StoredSignatureClaims;
  readonly clock: Clock;
  /** `created` tolerance; DESIGN 3.2 fixes ±60 s. */
  readonly maxAgeSeconds?: number;
  /** Agent Tokens verified before (ADR 0065); default: a cache of this authenticator's own. */
  readonly verifiedTokens?: VerifiedAgentTokens;
}

/**
 * Authenticates every request to the Person Server (spec 5.1, 5.3, 5.6; DESIGN 3.2): an RFC 9421
 * signature labelled `sig` over the required components, fresh, over a body whose RFC 9530 digest
 * matches, by the key of an Agent Token from a trusted agent provider or of a registered Management
 * Principal, used once. Any failure throws {@link SignatureVerificationError} (401 with `Signature-Error`).
 * It decides who the caller is, never what the caller may do.
 */
@Injectable()
export class RequestAuthenticator {
  private readonly principals: PrincipalRegistry;
  private readonly maxAgeSeconds: number;
  private readonly verifiedTokens: VerifiedAgentTokens;
  private readonly parseSignatureKey: SignatureKeyParser = rememberingSignatureKeyParser();

  constructor(private readonly options: RequestAuthenticatorOptions) {
    this.principals = principalRegistry(options.principals);
    this.maxAgeSeconds = options.maxAgeSeconds ?? SIGNATURE_MAX_AGE_SECONDS;
    this.verifiedTokens = options.verifiedTokens ?? new VerifiedAgentTokens();
  }

  async authenticate(request: IncomingSignedRequest): Promise<AuthenticatedCaller> {
    const { clock } = this.options;
    const message = signedMessage(request, this.options.baseUrl);
    const hasBody = requestHasBody(request);
    // Cheap structural checks first: nothing is fetched or verified for a request that cannot pass.
    const { input, fields } = signatureFieldsLabelledSig(request.headers);
    requiredComponentsCovered(input, hasBody);
    createdWithinWindow(input, clock, this.maxAgeSeconds);
    contentDigestMatchesBody(request, hasBody);
    const signingKey = await signingKeyFromSignatureKey(request.headers, {
      principals: this.principals,
      agentProviders: this.options.agentProviders,
      clock,
      verifiedTokens: this.verifiedTokens,
      parseSignatureKey: this.parseSignatureKey,
    });
    const verified = await signatureVerifies(message, signingKey, hasBody, clock, this.maxAgeSeconds, fields);
    // Only verified signatures are remembered, so forged ones cannot fill the cache or block a real one.
    await signatureNotReplayed(verified, signingKey, this.options.replayCache, clock, this.maxAgeSeconds, this.options.signatureClaims);
    return signingKey.caller;
  }
}
