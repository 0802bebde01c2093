import { epochSeconds } from '../pipeline/clock.js';
import type { FormParameters } from '../pipeline/form.js';
import { runRules, type Rule } from '../pipeline/rule.js';
import type { RegisteredClient } from './client-registry.js';
import type { AuthenticatedClient, ClientAuthenticationContext, ClientAuthenticationDeps, ClientAuthenticationHeaders } from './context.js';
import { assertionAlgorithm } from './rules/assertion-algorithm.js';
import { assertionSignature } from './rules/assertion-signature.js';
import { assertionTypHeader } from './rules/assertion-typ-header.js';
import { audience } from './rules/audience.js';
import { clientAssertionFormat } from './rules/client-assertion-format.js';
import { clientAssertionType } from './rules/client-assertion-type.js';
import { clientIdParameter } from './rules/client-id-parameter.js';
import { expiration } from './rules/expiration.js';
import { issuedAt } from './rules/issued-at.js';
import { issuerIsSubject } from './rules/issuer-is-subject.js';
import { jtiSingleUse } from './rules/jti-single-use.js';
import { notBefore } from './rules/not-before.js';
import { registeredClient } from './rules/registered-client.js';
import { requiredClaims } from './rules/required-claims.js';
import { singleAuthenticationMethod } from './rules/single-authentication-method.js';

export const DEFAULT_MAX_ASSERTION_LIFETIME_SECONDS = 300;
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** private_key_jwt, in order: syntax first, then the key, then time, and the single-use record last. */
export const CLIENT_AUTHENTICATION_RULES: readonly Rule<ClientAuthenticationContext>[] = [
  clientAssertionType,
  singleAuthenticationMethod,
  clientAssertionFormat,
  assertionAlgorithm,
  assertionTypHeader,
  requiredClaims,
  issuerIsSubject,
  clientIdParameter,
  registeredClient,
  assertionSignature,
  audience,
  expiration,
  notBefore,
  issuedAt,
  jtiSingleUse,
];

/**
 * Authenticates the client of a form request with `private_key_jwt` (RFC 7523 §2.2, §3; RFC 7521 §4.2).
 * Pass the `Authorization` header in `headers` so a second method is refused (RFC 6749 §2.3).
 * Every failure is an InvalidClientError (401).
 */
export async function authenticateClient<Client extends RegisteredClient>(
  form: FormParameters,
  deps: ClientAuthenticationDeps<Client>,
  headers: ClientAuthenticationHeaders = {},
): Promise<AuthenticatedClient<Client>> {
  const context: ClientAuthenticationContext<Client> = {
    form,
    headers,
    deps,
    now: epochSeconds(deps.clock.now()),
    maxLifetime: deps.maxAssertionLifetimeSeconds ?? DEFAULT_MAX_ASSERTION_LIFETIME_SECONDS,
    tolerance: deps.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
  };
  await runRules(context, CLIENT_AUTHENTICATION_RULES);
  return { clientId: context.client!.client_id, client: context.client!, assertion: { jti: context.claims!.jti!, exp: context.claims!.exp! } };
}
