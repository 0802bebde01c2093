import type { OpenApiDefinition } from '@mission/platform';
import { AuthorizationCodeForm, ChildCreationGrantForm, RefreshTokenForm, RevocationForm } from '../token-parameters.js';
import { EvidenceForm, IntrospectionForm, LifecycleForm, LifecycleReasonForm, StatusForm, TreeForm } from '../mission-forms.js';
import { AuthorizeQuery, ChildMissionRequestForm, ClientAuthenticationForm, ConsentDecisionForm, RootMissionRequestForm } from './documented-forms.js';

export const CLIENT_AUTH = 'private_key_jwt';
export const DPOP = 'DPoP';

/** The issuer's OpenAPI 3.1 document (ADR 0047): served at /openapi.json, Swagger UI at /docs. */
export const issuerOpenApi: OpenApiDefinition = {
  title: 'OAuth Mission Issuer',
  description: [
    'Root missions through PAR, DPoP-bound tokens and Child Missions for sub-agents (DESIGN 2; specs child-mission-delegation and the issuance profile).',
    'Every client authenticates with `private_key_jwt` in the form body (RFC 7523: `client_assertion_type`, `client_assertion`); every token is DPoP-bound (RFC 9449).',
    'Errors are OAuth JSON `{"error", "error_description"}` with `Cache-Control: no-store`; a Child Mission denial adds `mission_denial_reason`.',
  ].join('\n\n'),
  securitySchemes: (baseUrl) => ({
    [CLIENT_AUTH]: {
      type: 'oauth2',
      description:
        'OAuth 2.0 with `private_key_jwt` client authentication only (RFC 7523 §2.2): the form carries `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and `client_assertion`, a JWT signed with a registered client key (`aud` = the issuer identifier, single-use `jti`). Root missions use PAR + the authorization code with PKCE S256.',
      flows: { authorizationCode: { authorizationUrl: `${baseUrl}/authorize`, tokenUrl: `${baseUrl}/token`, refreshUrl: `${baseUrl}/token`, scopes: {} } },
    },
    [DPOP]: {
      type: 'apiKey',
      in: 'header',
      name: 'DPoP',
      description: 'RFC 9449 proof-of-possession JWT (`typ: dpop+jwt`, `htm`, `htu`, `iat`, single-use `jti`, `ath` over `parent_token` at Child Mission creation); with `DPOP_NONCE_SECRET` set the issuer asks for a nonce (`use_dpop_nonce`, `DPoP-Nonce` header).',
    },
  }),
  tags: [
    { name: 'metadata', description: 'RFC 8414 authorization server metadata' },
    { name: 'authorization', description: 'PAR, /authorize and the consent page' },
    { name: 'tokens', description: '/token, /revoke, /introspect' },
    { name: 'missions', description: 'Lifecycle, signed status, delegation tree and Child Evidence (DESIGN 2.1)' },
    { name: 'keys', description: 'The issuer’s signing keys' },
    { name: 'operations', description: 'Probes and metrics (on MANAGEMENT_PORT when it is set)' },
  ],
  extraModels: [
    ClientAuthenticationForm, RootMissionRequestForm, ChildMissionRequestForm, AuthorizeQuery, ConsentDecisionForm,
    AuthorizationCodeForm, RefreshTokenForm, ChildCreationGrantForm, RevocationForm, IntrospectionForm,
    LifecycleForm, LifecycleReasonForm, StatusForm, TreeForm, EvidenceForm,
  ],
};
