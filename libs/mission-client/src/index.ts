/**
 * `@mission/mission-client`: the agent SDK for the Mission Issuer (OAuth, Child Missions), the AAuth
 * Person Server, and resource servers that accept mission-bound tokens. Isomorphic: WebCrypto + fetch.
 */
export { createPkcePair } from './core/pkce.js';
export { clientAssertion, CLIENT_ASSERTION_TYPE, type ClientKey, type PrivateJwk } from './core/client-assertion.js';
export { DpopKey } from './core/dpop.js';
export { MissionClientError, ProtocolError, UnreachableError } from './core/errors.js';
export { algOf, generateSigningKey, publicMembers, signingKeyFromJwk, type SigningAlg, type SigningKey } from './core/keys.js';
export { randomBase64url } from './core/encoding.js';
export { CHILD_CREATION_GRANT, IssuerClient, type AuthorityEntry, type IssuerClientOptions, type MissionIntent, type RootMissionRequest } from './issuer/issuer-client.js';
export { Mission, type ChildActor, type ChildGrant, type ChildRequest, type MissionTokens } from './issuer/mission.js';
export { MISSION_STATUS_TYP, verifyMissionStatusJwt, type MissionStatus, type ParentStatus, type StatusFailure } from './issuer/mission-status.js';
export { PersonServerClient, RESOURCE_METADATA_DOCUMENT, type PendingProposal, type PersonServerClientOptions, type PsIdentity, type TerminateRequest } from './person-server/person-server-client.js';
export { Proposal, type ApprovedMission } from './person-server/proposal.js';
export type { PsMissionStatus } from './person-server/ps-status.js';
export { signRequest, signatureKeyHeader, contentDigestOf, type SignatureKeyScheme, type SignedHeaders } from './person-server/http-signature.js';
export { MissionResourceServer, type AuthorizedRequest, type RequiredAuthority, type ResourceServerOptions } from './resource-server/resource-server.js';
export { missionMiddleware, type NodeStyleRequest, type NodeStyleResponse } from './resource-server/middleware.js';
export { ResourceAccessError } from './resource-server/errors.js';
export { InMemoryProofReplayCache, type ProofReplayCache } from './resource-server/replay-cache.js';
export type { CascadeMode, MissionStateDecision } from './resource-server/cascade-enforcement.js';
