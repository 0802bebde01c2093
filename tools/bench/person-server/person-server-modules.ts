/**
 * The Person Server's own request authentication (apps/person-server/src/auth), loaded from its build
 * output by path: apps are not part of the bench's TypeScript build (as tools/bench/issuer/cascade.ts
 * loads the issuer). The interfaces below are the slices of those modules the bench calls; they mirror
 * apps/person-server/src/auth/*.ts and fail loudly at run time if the shapes drift (a missing export).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { principalRegistry } from '@mission/signature-key';

export interface IncomingSignedRequest {
  readonly method: string;
  readonly originalUrl: string;
  readonly headers: Record<string, string>;
  readonly rawBody?: Uint8Array;
}

export interface Clock {
  now(): Date;
}

export interface RequestAuthenticator {
  authenticate(request: IncomingSignedRequest): Promise<unknown>;
}

/** Opaque to the bench: what `signingKeyFromSignatureKey` resolves and `signatureVerifies` takes. */
export type SigningKey = { readonly caller: unknown };
/** Opaque to the bench: `signedMessage(request, baseUrl)`. */
export type SignedMessage = object;

export interface PersonServerAuth {
  /** `rememberTokens: false`: every Agent Token verified in full, as on its first use (ADR 0065); default as the server. */
  newAuthenticator(options: { baseUrl: string; principals: readonly unknown[]; agentProviders: readonly unknown[]; clock: Clock; rememberTokens?: boolean }): RequestAuthenticator;
  /**
   * `signingKeyFromSignatureKey` over fixed key sources: `Signature-Key` → Agent Token verified with jose
   * (or `hwk` principal lookup) → the signing key and caller.
   */
  keyResolver(principals: readonly unknown[], agentProviders: readonly unknown[], clock: Clock): (headers: Record<string, string>) => Promise<SigningKey>;
  signedMessage(request: IncomingSignedRequest, baseUrl: string): SignedMessage;
  /** RFC 9421 signature base + signature verification with an already resolved key. */
  signatureVerifies(message: SignedMessage, signingKey: SigningKey, hasBody: boolean, clock: Clock): Promise<unknown>;
}

interface AuthModules {
  RequestAuthenticator: new (options: Record<string, unknown>) => RequestAuthenticator;
  AgentProviderKeys: new (providers: readonly unknown[]) => unknown;
  SignatureReplayCache: new () => unknown;
  signingKeyFromSignatureKey: (headers: Record<string, string>, sources: Record<string, unknown>) => Promise<SigningKey>;
  signedMessage: (request: IncomingSignedRequest, baseUrl: string) => SignedMessage;
  signatureVerifies: (message: SignedMessage, signingKey: SigningKey, hasBody: boolean, clock: Clock) => Promise<unknown>;
}

/** A stand-in for the PS's VerifiedAgentTokens that never remembers: each token is verified in full. */
const FORGETFUL_TOKENS = { usable: async () => undefined, remember: (_jwt: string, _verified: unknown, signingKey: unknown) => signingKey };

async function load<T>(repositoryRoot: string, relative: string): Promise<T> {
  return (await import(pathToFileURL(join(repositoryRoot, relative)).href)) as T;
}

export async function loadPersonServerAuth(repositoryRoot: string): Promise<PersonServerAuth> {
  const dist = 'apps/person-server/dist/auth';
  const modules: AuthModules = {
    ...(await load<Pick<AuthModules, 'RequestAuthenticator'>>(repositoryRoot, `${dist}/request-authenticator.js`)),
    ...(await load<Pick<AuthModules, 'AgentProviderKeys'>>(repositoryRoot, `${dist}/agent-provider-keys.js`)),
    ...(await load<Pick<AuthModules, 'SignatureReplayCache'>>(repositoryRoot, `${dist}/signature-replay-cache.js`)),
    ...(await load<Pick<AuthModules, 'signingKeyFromSignatureKey' | 'signedMessage' | 'signatureVerifies'>>(repositoryRoot, `${dist}/authentication-rules.js`)),
  };
  const needed = ['RequestAuthenticator', 'AgentProviderKeys', 'SignatureReplayCache', 'signingKeyFromSignatureKey', 'signedMessage', 'signatureVerifies'] as const;
  for (const name of needed) if (typeof modules[name] !== 'function') throw new Error(`the Person Server build has no export ${name}: rebuild, or update person-server-modules.ts`);
  return {
    newAuthenticator: ({ baseUrl, principals, agentProviders, clock, rememberTokens = true }) =>
      new modules.RequestAuthenticator({
        baseUrl, principals, agentProviders: new modules.AgentProviderKeys(agentProviders), replayCache: new modules.SignatureReplayCache(), clock,
        ...(rememberTokens ? {} : { verifiedTokens: FORGETFUL_TOKENS }),
      }),
    keyResolver: (principals, agentProviders, clock) => {
      const sources = { principals: principalRegistry(principals as Parameters<typeof principalRegistry>[0]), agentProviders: new modules.AgentProviderKeys(agentProviders), clock };
      return (headers) => modules.signingKeyFromSignatureKey(headers, sources);
    },
    signedMessage: modules.signedMessage,
    signatureVerifies: modules.signatureVerifies,
  };
}
