import * as oauth from 'oauth4webapi';
import type { JWK } from 'jose';
import { MissionClientError } from '../core/errors.js';
import { randomBase64url } from '../core/encoding.js';
import { generateSigningKey, signingKeyFromJwk, type SigningKey } from '../core/keys.js';
import { mapped } from './oauth-errors.js';
import { Mission, type MissionTokens } from './mission.js';
import { checkedStatus, type MissionStatus } from './mission-status.js';
import { IssuerJwks } from './issuer-jwks.js';
import { oauthOptions, serviceUrl, transportFor, withDpopNonceRetry, type Transport } from './transport.js';
import { postAuthenticatedForm, postAuthenticatedRaw, type AuthenticatedPoster } from './authenticated-form.js';

/** The token-endpoint grant a child actor redeems its grant reference with (DESIGN 2.4). */
export const CHILD_CREATION_GRANT = 'urn:ietf:params:oauth:grant-type:mission-child-creation';

/** One `mission_resource_access` Authority Set entry (DESIGN 2.3). */
export interface AuthorityEntry {
  readonly type: 'mission_resource_access';
  readonly resource: string;
  readonly actions: readonly string[];
  readonly constraints?: Record<string, unknown>;
  readonly delegation?: Record<string, unknown>;
}

/** The Mission Intent (`mission_intent` envelope `{"intent": {...}}`). */
export interface MissionIntent {
  readonly goal: string;
  readonly resources: readonly string[];
  readonly expiresAt: Date | string;
}

export interface IssuerClientOptions {
  /** The issuer identifier (RFC 8414 `issuer`); metadata is discovered under it and must name it exactly. */
  readonly issuer: string | URL;
  readonly clientId: string;
  /** The client's registered private key (JWK with `d`, P-256 or Ed25519) for `private_key_jwt`. */
  readonly clientKey: JWK | SigningKey;
  readonly fetch?: typeof fetch;
  /** Allow plain `http:` (default: only for localhost / 127.0.0.1 / [::1]). */
  readonly allowInsecureHttp?: boolean;
}

export interface RootMissionRequest {
  readonly intent: MissionIntent;
  readonly authorizationDetails: readonly AuthorityEntry[];
  /** A registered redirect URI of the client (default: its first one must be passed; there is no discovery of it). */
  readonly redirectUri: string;
}

/** A Mission Issuer as one registered client sees it. Create with {@link IssuerClient.discover}. */
export class IssuerClient {
  private constructor(
    readonly metadata: oauth.AuthorizationServer,
    readonly clientId: string,
    private readonly clientKey: SigningKey,
    private readonly transport: Transport,
    private readonly jwks: IssuerJwks,
  ) {}

  /** RFC 8414 discovery; the metadata's `issuer` must equal `options.issuer` (mix-up defence). */
  static async discover(options: IssuerClientOptions): Promise<IssuerClient> {
    const issuer = serviceUrl(options.issuer, 'the issuer URL');
    const transport = transportFor(issuer, options);
    const metadata = await mapped(async () =>
      oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...oauthOptions(transport) })),
    );
    if (metadata.mission_bound_authorization_supported !== true) {
      throw new MissionClientError('invalid_response', `${issuer.href} does not advertise mission_bound_authorization_supported`);
    }
    const key = 'privateKey' in options.clientKey ? (options.clientKey as SigningKey) : await signingKeyFromJwk(options.clientKey as JWK);
    return new IssuerClient(metadata, options.clientId, key, transport, new IssuerJwks(metadata, transport));
  }

  get issuer(): string {
    return this.metadata.issuer;
  }

  /** @internal */
  get client(): oauth.Client {
    return { client_id: this.clientId };
  }

  /** @internal `private_key_jwt` (RFC 7523) with `aud` = the issuer identifier. */
  get clientAuth(): oauth.ClientAuth {
    return oauth.PrivateKeyJwt({ key: this.clientKey.privateKey, ...(this.clientKey.kid !== undefined ? { kid: this.clientKey.kid } : {}) }, {
      // oauth4webapi names Ed25519 signatures with the fully-specified `Ed25519`; the issuer advertises RFC 8037 `EdDSA`.
      [oauth.modifyAssertion]: (header) => {
        if (header.alg === 'Ed25519') header.alg = 'EdDSA';
      },
    });
  }

  /** @internal */
  get options(): ReturnType<typeof oauthOptions> {
    return oauthOptions(this.transport);
  }

  /** @internal POSTs a client-authenticated form to one of the issuer's own endpoints. */
  get poster(): AuthenticatedPoster {
    return (url, form) => postAuthenticatedForm(this, url, form, this.transport);
  }

  /** The URL of a `/missions/*` endpoint: from metadata where advertised, else beside the status endpoint. */
  endpoint(name: 'status' | 'lifecycle' | 'tree' | 'evidence'): string {
    const advertised = this.metadata[`mission_${name}_endpoint`];
    if (typeof advertised === 'string') return advertised;
    const status = this.metadata['mission_status_endpoint'];
    if (typeof status !== 'string') throw new MissionClientError('invalid_response', 'the issuer advertises no mission_status_endpoint');
    return status.replace(/status$/, name);
  }

  /**
   * A root mission for a client whose `approval_policy` approves without a person: PAR → `/authorize`
   * (answered by policy with a redirect) → code → DPoP-bound tokens with a fresh key of this instance.
   */
  async obtainRootMission(request: RootMissionRequest): Promise<Mission> {
    const started = await this.startRootMission(request);
    const response = await mapped(() => this.transport.fetch(started.authorizationUrl, { redirect: 'manual' }));
    const location = response.headers.get('location');
    if (response.status !== 302 && response.status !== 303) {
      throw new MissionClientError('approval_required', `/authorize answered ${response.status}: this client's approval policy needs a person (use startRootMission and a browser)`);
    }
    if (location === null) throw new MissionClientError('invalid_response', '/authorize redirected without a Location');
    return started.complete(location);
  }

  /**
   * The first half of a root mission for any client: PAR, then the URL a person opens (consent page).
   * `complete(callbackUrl)` validates `state` and `iss` (RFC 9207) and redeems the code.
   */
  async startRootMission(request: RootMissionRequest): Promise<{ authorizationUrl: string; complete(callbackUrl: string): Promise<Mission> }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const parameters = new URLSearchParams({
      response_type: 'code',
      redirect_uri: request.redirectUri,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      mission_intent: intentJson(request.intent),
      authorization_details: JSON.stringify(request.authorizationDetails),
    });
    const par = await mapped(async () =>
      oauth.processPushedAuthorizationResponse(this.metadata, this.client,
        await oauth.pushedAuthorizationRequest(this.metadata, this.client, this.clientAuth, parameters, this.options)),
    );
    const authorizationUrl = new URL(this.metadata.authorization_endpoint ?? `${this.issuer}/authorize`);
    authorizationUrl.search = new URLSearchParams({ client_id: this.clientId, request_uri: par.request_uri }).toString();
    return {
      authorizationUrl: authorizationUrl.href,
      complete: async (callbackUrl: string) => {
        const key = await generateSigningKey('ES256');
        const dpop = oauth.DPoP(this.client, { privateKey: key.privateKey, publicKey: key.publicKey });
        const tokens = await mapped(async () => {
          const callback = oauth.validateAuthResponse(this.metadata, this.client, new URL(callbackUrl), state);
          return withDpopNonceRetry(async () =>
            oauth.processAuthorizationCodeResponse(this.metadata, this.client,
              await oauth.authorizationCodeGrantRequest(this.metadata, this.client, this.clientAuth, callback, request.redirectUri, verifier, { ...this.options, DPoP: dpop })),
          );
        });
        return new Mission(this, key, dpop, tokens as unknown as MissionTokens);
      },
    };
  }

  /**
   * The child actor's side of DESIGN 2.4: redeems the grant reference a parent conveyed (its
   * `request_uri`) with this client's own authentication and a fresh DPoP key; the parent never sees
   * these tokens.
   */
  async redeemChild(grant: { readonly requestUri: string } | string): Promise<Mission> {
    const requestUri = typeof grant === 'string' ? grant : grant.requestUri;
    const key = await generateSigningKey('ES256');
    const dpop = oauth.DPoP(this.client, { privateKey: key.privateKey, publicKey: key.publicKey });
    const tokens = await mapped(() =>
      withDpopNonceRetry(async () =>
        oauth.processGenericTokenEndpointResponse(this.metadata, this.client,
          await oauth.genericTokenEndpointRequest(this.metadata, this.client, this.clientAuth, CHILD_CREATION_GRANT, { request_uri: requestUri }, { ...this.options, DPoP: dpop })),
      ),
    );
    return new Mission(this, key, dpop, tokens as unknown as MissionTokens);
  }

  /**
   * Spec 2.7 / DESIGN 2.1 Mission Status, verified (issuer JWKS, `typ`, `iss`, `aud`, echoed `nonce`,
   * `fresh_until`). **Fails closed**: an unreachable issuer, an error answer, a bad signature or a stale
   * answer gives `active: false` with the reason in `failure` — it never throws.
   */
  async status(missionId: string, options: { audience?: string; now?: () => Date } = {}): Promise<MissionStatus> {
    return checkedStatus({
      missionId, post: (url, form) => postAuthenticatedRaw(this, url, form, this.transport), endpoint: this.endpoint('status'), keys: this.jwks.resolve, issuer: this.issuer,
      audience: options.audience ?? this.clientId, now: options.now ?? (() => new Date()),
      ...(options.audience !== undefined ? { requestAudience: options.audience } : {}),
    });
  }

  /** `/missions/lifecycle`: `revoke`, `suspend`, `resume`, `complete` (permission `lifecycle` or `admin`). */
  async lifecycle(
    missionId: string,
    operation: 'revoke' | 'suspend' | 'resume' | 'complete',
    options: { reason: string; expectedVersion?: number; nonce?: string },
  ): Promise<{ mission_id: string; state: string; version: number }> {
    return this.poster(this.endpoint('lifecycle'), {
      mission_id: missionId, operation, reason: options.reason, nonce: options.nonce ?? randomBase64url(16),
      ...(options.expectedVersion !== undefined ? { expected_version: String(options.expectedVersion) } : {}),
    }) as Promise<{ mission_id: string; state: string; version: number }>;
  }

  /** `/missions/tree`: the delegation tree under a mission (permission `audit`). */
  async tree(missionId: string): Promise<{ mission_id: string; observed_at: string; nodes: Record<string, unknown>[]; truncated: boolean }> {
    return this.poster(this.endpoint('tree'), { mission_id: missionId }) as Promise<{ mission_id: string; observed_at: string; nodes: Record<string, unknown>[]; truncated: boolean }>;
  }

  /** `/missions/evidence`: every Child Evidence record (spec 2.6) under a mission, page by page (permission `audit`). */
  async *evidence(missionId: string, options: { pageSize?: number } = {}): AsyncGenerator<Record<string, unknown>> {
    let cursor: string | undefined;
    do {
      const page = (await this.poster(this.endpoint('evidence'), {
        mission_id: missionId, ...(options.pageSize !== undefined ? { max_results: String(options.pageSize) } : {}), ...(cursor !== undefined ? { cursor } : {}),
      })) as { evidence: Record<string, unknown>[]; next_cursor?: string };
      yield* page.evidence;
      cursor = page.next_cursor;
    } while (cursor !== undefined);
  }

  /** RFC 7662 introspection with the `mission` member (permission `introspection`). */
  async introspect(token: string): Promise<oauth.IntrospectionResponse> {
    return mapped(async () =>
      oauth.processIntrospectionResponse(this.metadata, this.client,
        await oauth.introspectionRequest(this.metadata, this.client, this.clientAuth, token, this.options)),
    );
  }

  /** RFC 7009 revocation of a refresh token this client holds. */
  async revokeToken(token: string): Promise<void> {
    await mapped(async () =>
      oauth.processRevocationResponse(await oauth.revocationRequest(this.metadata, this.client, this.clientAuth, token, this.options)),
    );
  }
}

/** The `mission_intent` form value. */
export function intentJson(intent: MissionIntent): string {
  const expiresAt = typeof intent.expiresAt === 'string' ? intent.expiresAt : intent.expiresAt.toISOString();
  return JSON.stringify({ intent: { goal: intent.goal, resources: intent.resources, expires_at: expiresAt } });
}
