import { createHash } from 'node:crypto';
import type { EventData } from '@mission/event-store';
import {
  MISSION_POLICIES, missionS256, missionStreamName, pendingIdFromBytes, proposalStreamName,
  type MissionApprovedData, type MissionStatusReadData, type ProposalApprovedData, type ProposalSubmittedData,
} from '@mission/ps-domain';
import { asData, Batcher, idBytes, type History, type HistoryBatch } from './history.js';

/** What `SignatureUsed` on `pssig-…` holds (apps/person-server/src/auth/stored-signature-claims.ts). */
const SIGNATURE_CLAIM_CATEGORY = 'pssig';
const SIGNATURE_USED = 'SignatureUsed';
const APPROVER = 'https://ps.bench.example';
const TENANT = 'bench';
const PERSON = 'bench-person';

interface Mission {
  readonly s256: string;
  readonly agent: string;
  sequence: number;
}

/**
 * The Person Server's history under status polling (issue 15 item 3): `missions` approved missions (proposal
 * submitted and approved on `psproposal-…`, `MissionApproved` on `psmission-…`), then agents polling
 * `status` round-robin over them. Every poll is what the PS writes for one authorized `status`: the
 * RFC 9421 signature's replay claim (`SignatureUsed` on its own `pssig-…` stream, ADR 0016) and the spec 6
 * `MissionStatusRead` on the mission's log. Claims' windows close 10 minutes after the fill, so the sweeper
 * of expired records (ADR 0057) leaves the million events in place during the run.
 */
export function personServerHistory(missions = 2_000): History {
  return {
    description: `${missions} approved missions (proposal + approval), then status polls round-robin: SignatureUsed + MissionStatusRead per poll`,
    *batches(events: number): Iterable<HistoryBatch> {
      const batcher = new Batcher();
      const start = Date.now() - 3_600_000;
      const at = (offsetMs: number): string => new Date(start + offsetMs).toISOString();
      const validUntil = new Date(Date.now() + 600_000).toISOString();
      const open: Mission[] = [];
      let written = 0;
      const emit = function* (stream: string, list: EventData[]): Iterable<HistoryBatch> {
        written += list.length;
        const batch = batcher.add({ streamName: stream, events: list });
        if (batch) yield batch;
      };
      for (let index = 0; index < missions && written < events; index++) {
        const pendingId = pendingIdFromBytes(idBytes(index, 1));
        const agent = `aauth:bench-agent-${index % 64}@agents.bench.example`;
        const s256 = missionS256(idBytes(index, 2));
        const submitted: ProposalSubmittedData = { pending_id: pendingId, agent, agent_jkt: digest(`jkt-${agent}`), content_digest: digest(`content-${index}`), submitted_at: at(index) };
        const approved: ProposalApprovedData = { pending_id: pendingId, s256, approved_by: PERSON, tenant: TENANT, approved_at: at(index + 1) };
        yield* emit(proposalStreamName(pendingId), [{ type: 'ProposalSubmitted', data: asData(submitted) }, { type: 'ProposalApproved', data: asData(approved) }]);
        const mission: MissionApprovedData = {
          approver: APPROVER, mission_s256: s256, sequence: 1, occurred_at: at(index + 1), actor: { id: PERSON, role: 'person' },
          authorization: { decision: 'permit', policy: MISSION_POLICIES.person }, agent, approved_by: PERSON, tenant: TENANT, approved_at: at(index + 1),
          expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(), pending_id: pendingId,
        };
        yield* emit(missionStreamName(s256), [{ type: 'MissionApproved', data: asData(mission) }]);
        open.push({ s256, agent, sequence: 1 });
      }
      for (let poll = 0; written < events; poll++) {
        const mission = open[poll % open.length]!;
        mission.sequence++;
        const occurred = at(missions + poll);
        yield* emit(`${SIGNATURE_CLAIM_CATEGORY}-${digest(`signature-${poll}`)}`, [{ type: SIGNATURE_USED, data: { valid_until: validUntil }, metadata: { occurred_at: occurred } }]);
        const read: MissionStatusReadData = {
          approver: APPROVER, mission_s256: mission.s256, sequence: mission.sequence, occurred_at: occurred, actor: { id: mission.agent, role: 'agent' },
          authorization: { decision: 'permit', policy: MISSION_POLICIES.agent }, mission_status: 'active',
        };
        yield* emit(missionStreamName(mission.s256), [{ type: 'MissionStatusRead', data: asData(read), metadata: { occurred_at: occurred, actor: { id: mission.agent, role: 'agent' } } }]);
      }
      const rest = batcher.flush();
      if (rest) yield rest;
    },
  };
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
