import type { EventStore } from '@mission/event-store';
import { handleCommand, type CommandContext } from '@mission/es-kit';
import {
  isTerminalMissionState, missionDecider, missionExists, missionStreamName, ParentNotActiveError,
  type TerminalMissionState,
} from '@mission/issuer-domain';
import { childDenialProtocolError } from '../../errors/domain-refusals.js';
import { reportedLineage } from '../../lineage/lineage-report.js';
import type { MissionLineage } from '../../lineage/mission-lineage.js';

export const CREATION_CASCADE_ACTOR = { id: 'issuer:child-creation', role: 'system' } as const;

/**
 * Spec 4.1 rule 1, 3.2 (decision 0021). The child was attached while its parent was active, and its
 * `MissionCreated` has just committed; if the parent (or an ancestor) has ended since, the child is
 * cascaded now — `MissionCreated` followed at once by `cascaded` — and `ParentNotActiveError` is thrown,
 * so the creation grant is never issued and the requester gets `parent_not_active`.
 *
 * A parent that ends after this read still cascades the child: it is attached on the parent's stream and
 * its stream exists, so the cascade process manager records it (and its redemption is refused by the
 * lineage check in the meantime). This check only makes the answer honest when the end came first.
 */
export async function cascadeIfLineageEnded(
  store: EventStore,
  lineage: MissionLineage,
  ids: { readonly parentMissionId: string; readonly childMissionId: string },
  context: CommandContext,
): Promise<void> {
  const parent = await lineage.mission(ids.parentMissionId);
  if (!missionExists(parent)) return;
  const report = reportedLineage(parent, await lineage.ancestors(parent), context.now);
  if (!isTerminalMissionState(report.state) || report.since === undefined) return;
  const parentState = report.state as TerminalMissionState;
  await handleCommand(
    store,
    missionStreamName(ids.childMissionId),
    missionDecider,
    {
      type: 'CascadeMission', actor: CREATION_CASCADE_ACTOR, missionId: ids.childMissionId, parentMissionId: ids.parentMissionId,
      parentState, parentTerminalAt: new Date(report.since), now: context.now,
    },
    { ...context, actor: CREATION_CASCADE_ACTOR },
    { hashChain: true, maxAttempts: 10 },
  );
  throw new ParentNotActiveError(parentState);
}

/**
 * Spec 4.1 rule 1, spec 7 (decision 0021): runs the creation's writes after the attachment (`MissionCreated`, then
 * `cascadeIfLineageEnded`); when the cascade reached the child first — the stream was marked before `MissionCreated`,
 * or the parent had ended by the time it committed — the answer is `parent_not_active`, and the caller issues no grant.
 */
export async function parentNotActiveIfCascaded(logger: { info(obj: object, msg: string): void }, parentMissionId: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof ParentNotActiveError)) throw error;
    logger.info({ parent_mission_id: parentMissionId, parent_state: error.state }, 'child mission cascaded before its creation grant was issued');
    throw childDenialProtocolError('parent_not_active', error.message);
  }
}
