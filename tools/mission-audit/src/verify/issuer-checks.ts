import { formatPosition, type RecordedEvent } from '@mission/event-store';
import {
  activeChildCount, checkStrictSubset, GRANT_STREAM_CATEGORY, initialMissionState, isTerminalMissionState, lineageState, missionDecider, missionExists,
  type Mission, type MissionCreatedData, type MissionEvent, type MissionState,
} from '@mission/issuer-domain';
import type { Findings } from './finding.js';
import type { ServiceChecks } from './service-checks.js';

const MISSION_PREFIX = 'mission-';
const GRANT_PREFIX = `${GRANT_STREAM_CATEGORY}-`;
/** Grant events that hand out a token (an access token with a refresh token, or a rotated one). */
const TOKEN_ISSUING = new Set(['AuthorizationCodeRedeemed', 'ChildGrantRedeemed', 'RefreshTokenIssued', 'RefreshTokenRotated']);

/**
 * Issuer invariants over the recorded history (child-mission-delegation spec 2.4–2.6, 3, 4), with the
 * mission decider's own `evolve` — the fold every issuer decision runs over a mission's stream — as the model at
 * every position of the log.
 */
export class IssuerChecks implements ServiceChecks {
  readonly chainedCategories = new Set(['mission']);
  readonly erasableCategories = new Set<string>();
  /** The jti replay records (`@mission/issuer-oauth` JTI_CATEGORIES). */
  readonly expiringCategories = new Set(['clientjti', 'dpopjti']);
  readonly missions = new Map<string, MissionState>();
  private readonly grantMissions = new Map<string, string>();

  constructor(private readonly findings: Findings) {}

  observe(event: RecordedEvent): void {
    if (event.streamName.startsWith(MISSION_PREFIX)) this.missionEvent(event.streamName.slice(MISSION_PREFIX.length), event);
    else if (event.streamName.startsWith(GRANT_PREFIX)) this.grantEvent(event);
  }

  finish(): void {
    // Spec 3.2: every descendant of a terminal parent ends terminal (cascaded unless its own end came first).
    for (const [id, state] of this.missions) {
      if (!missionExists(state) || !isTerminalMissionState(state.lifecycle)) continue;
      for (const childId of state.children.keys()) {
        const child = this.missions.get(childId);
        const childTerminal = child === undefined ? false : missionExists(child) ? isTerminalMissionState(child.lifecycle) : child.cascadedBeforeCreation !== undefined;
        if (!childTerminal) this.fail('issuer.cascade', `mission-${childId}`, undefined, `child ${childId} of ${state.lifecycle} mission ${id} never reached a terminal state`);
      }
    }
  }

  private missionEvent(id: string, event: RecordedEvent): void {
    const before = this.missions.get(id) ?? initialMissionState;
    const data = event.data as Record<string, unknown>;
    if (event.type === 'MissionCreated') this.childCreation(id, event, data as unknown as MissionCreatedData);
    let after: MissionState;
    try {
      after = missionDecider.evolve(before, event as unknown as MissionEvent);
    } catch (error) {
      this.fail('projection.mission_status', event.streamName, event, `the mission projection cannot apply ${event.type}: ${(error as Error).message}`);
      return;
    }
    this.missions.set(id, after);
    if (typeof data['version'] === 'number' && event.type !== 'MissionCreated' && missionExists(before) && data['version'] !== before.version + 1) {
      this.fail('issuer.version', event.streamName, event, `${event.type} sets version ${data['version']} after version ${before.version} (must be +1 per transition)`);
    }
    if (event.type === 'ChildMissionAttached' && missionExists(after)) this.fanOut(after, event);
  }

  /** Spec 2.4 rule 2: non-terminal children ≤ `max_children` of every delegable entry, at every position. */
  private fanOut(parent: Mission, event: RecordedEvent): void {
    for (const [index, entry] of parent.authoritySet.entries()) {
      const max = entry.delegation?.children?.max_children;
      if (max === undefined) continue;
      const active = activeChildCount(parent, index);
      if (active > max) this.fail('issuer.max_children', event.streamName, event, `entry ${index} of mission ${parent.missionId} has ${active} non-terminal children, max_children is ${max}`);
    }
  }

  private childCreation(id: string, event: RecordedEvent, data: MissionCreatedData): void {
    if (!data.parent) return;
    const parent = this.missions.get(data.parent.id);
    if (!parent || !missionExists(parent)) {
      this.fail('issuer.child_without_parent', event.streamName, event, `child ${id} names parent ${data.parent.id}, which has no MissionCreated before it`);
      return;
    }
    const at = new Date(data.occurred_at);
    const parentState = lineageState(parent, this.ancestorsOf(parent), at);
    if (parentState !== 'active') this.fail('issuer.child_after_parent_inactive', event.streamName, event, `child ${id} was created while its parent ${parent.missionId} was ${parentState}`);
    if (Date.parse(data.expires_at) > parent.expiresAt.getTime()) this.fail('issuer.child_expiry', event.streamName, event, `child ${id} expires at ${data.expires_at}, after its parent (${parent.expiresAt.toISOString()})`);
    const subset = checkStrictSubset(parent.authoritySet, data.authority_set);
    if (!subset.ok) this.fail('issuer.child_authority', event.streamName, event, `child ${id}'s authority is not a strict subset of its parent's: ${subset.reason}`);
    const attachment = parent.children.get(id);
    if (!attachment) this.fail('issuer.child_evidence', event.streamName, event, `child ${id} has no ChildMissionAttached (with its evidence) on the parent's stream before its creation`);
  }

  /** Spec 4.3: no token while the mission or an ancestor is not active. */
  private grantEvent(event: RecordedEvent): void {
    const missionId = event.data['mission_id'];
    if (typeof missionId === 'string') this.grantMissions.set(event.streamName, missionId);
    if (!TOKEN_ISSUING.has(event.type)) return;
    const id = this.grantMissions.get(event.streamName);
    const mission = id === undefined ? undefined : this.missions.get(id);
    if (!mission || !missionExists(mission)) {
      this.fail('issuer.token_without_mission', event.streamName, event, `${event.type} for a grant whose mission is unknown`);
      return;
    }
    const occurred = typeof event.data['occurred_at'] === 'string' ? new Date(event.data['occurred_at']) : event.created;
    const state = lineageState(mission, this.ancestorsOf(mission), occurred);
    if (state !== 'active') this.fail('issuer.token_while_inactive', event.streamName, event, `${event.type} for mission ${mission.missionId} while it was ${state}`);
  }

  private ancestorsOf(mission: Mission): Mission[] {
    const ancestors: Mission[] = [];
    for (let parentId = mission.parent?.id; parentId !== undefined && ancestors.length < 64; ) {
      const parent = this.missions.get(parentId);
      if (!parent || !missionExists(parent)) break;
      ancestors.push(parent);
      parentId = parent.parent?.id;
    }
    return ancestors;
  }

  private fail(rule: string, stream: string, event: RecordedEvent | undefined, message: string): void {
    this.findings.add({
      check: rule.startsWith('projection.') ? 'projection' : 'invariant', rule, message, stream,
      ...(event ? { revision: event.revision.toString(), position: formatPosition(event.position) } : {}),
    });
  }
}
