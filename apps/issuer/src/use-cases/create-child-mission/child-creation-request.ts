import type { AuthoritySet, CascadeMode, ChildActor, MissionIntent } from '@mission/issuer-domain';
import type { RequestTrace } from '@mission/es-kit';
import type { VerifiedDpopProof } from '@mission/issuer-oauth';
import { Command } from '@nestjs/cqrs';
import type { ClientRegistration } from '../../config/issuer-config.js';

/** What the PAR controller parsed (syntax only) from a Child Mission creation request. */
export interface ChildCreationRequest {
  readonly client: ClientRegistration;
  readonly claimedParent: string;
  readonly parentToken: string;
  readonly childActor: ChildActor;
  readonly intent: MissionIntent;
  readonly authoritySet: AuthoritySet;
  readonly cascadeMode: CascadeMode;
  /** The DPoP proof of the parent grant's key, with `ath` over parent_token (DESIGN 2.2, 2.4). */
  readonly proof: VerifiedDpopProof;
  /** The request it runs for (ADR 0050): into the events' metadata and the log lines. */
  readonly trace: RequestTrace | undefined;
}

export interface ChildCreated {
  readonly requestUri: string;
  readonly expiresIn: number;
  readonly childMissionId: string;
}

/** `POST /par` with `parent`, `parent_token`, `child_actor`: Child Mission creation (spec 4.1, DESIGN 2.4). */
export class CreateChildMission extends Command<ChildCreated> {
  constructor(readonly request: ChildCreationRequest) {
    super();
  }
}
