import { createHash } from 'node:crypto';
import type { EventData } from '@mission/event-store';
import {
  authorityHash, grantIdFromBytes, grantStreamName, missionDecider, missionIdFromBytes, missionStreamName, parseAuthorizationDetails, parStreamName, requestIdFromBytes,
  type AuthorizationCodeIssuedData, type AuthorizationCodeRedeemedData, type AuthorizationRequestApprovedData, type PushedAuthorizationRequestReceivedData,
  type RefreshTokenIssuedData, type RefreshTokenRotatedData,
} from '@mission/issuer-domain';
import { asData, Batcher, idBytes, type History, type HistoryBatch } from './history.js';

const CLIENT = 'demo-agent';
const REDIRECT_URI = 'http://127.0.0.1:9000/cb';
const DETAILS = parseAuthorizationDetails([{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 4 } } }]);

interface Grant {
  readonly id: string;
  readonly jkt: string;
  hash: string;
}

/**
 * The issuer's history of long-lived agents (issue 15 items 1, 3, 5): `missions` root missions, each from its PAR
 * (client assertion replay record, `par-…` received + approved), `MissionCreated` decided by the mission decider
 * itself, and its grant (code issued, redeemed with a client assertion and a DPoP proof, refresh token issued);
 * then refresh_token + DPoP requests round-robin over the grants: per refresh the two replay records
 * (`clientjti-…`, `dpopjti-…`) and `RefreshTokenRotated`. Replay records expire 10 minutes after the fill,
 * so the sweeper (ADR 0057) leaves the million events in place during the run.
 */
export function issuerHistory(issuer: string, missions = 3_000): History {
  return {
    description: `${missions} root missions (PAR, consent, code, token), then refresh_token + DPoP round-robin: 2 replay records + RefreshTokenRotated per refresh`,
    *batches(events: number): Iterable<HistoryBatch> {
      const batcher = new Batcher();
      const start = Date.now() - 3_600_000;
      const at = (offsetMs: number): Date => new Date(start + offsetMs);
      const expires = new Date(Date.now() + 600_000).toISOString();
      const grants: Grant[] = [];
      let written = 0;
      let jti = 0;
      const emit = function* (stream: string, list: EventData[]): Iterable<HistoryBatch> {
        written += list.length;
        const batch = batcher.add({ streamName: stream, events: list });
        if (batch) yield batch;
      };
      const replayRecord = (kind: 'client' | 'dpop', scope: string, occurred: Date): [string, EventData[]] => {
        const id = `jti-${++jti}`;
        const stream = `${kind === 'client' ? 'clientjti' : 'dpopjti'}-${digest(JSON.stringify([scope, id]))}`;
        const type = kind === 'client' ? 'ClientAssertionUsed' : 'DpopProofUsed';
        return [stream, [{ type, data: { scope, jti: id, expires_at: expires }, metadata: { occurred_at: occurred.toISOString(), actor: { id: scope, role: kind === 'client' ? 'client' : 'dpop_key' } } }]];
      };
      for (let index = 0; index < missions && written < events; index++) {
        const now = at(index * 10);
        const requestId = requestIdFromBytes(idBytes(index, 11));
        const missionId = missionIdFromBytes(idBytes(index, 12));
        const grantId = grantIdFromBytes(idBytes(index, 13));
        const jkt = digest(`dpop-key-${index}`);
        const intent = { goal: 'Reconcile invoices', resources: ['https://erp.example.com/invoices'], expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() };
        yield* emit(...replayRecord('client', CLIENT, now));
        const received: PushedAuthorizationRequestReceivedData = {
          request_id: requestId, client_id: CLIENT, redirect_uri: REDIRECT_URI, code_challenge: digest(`pkce-${index}`), code_challenge_method: 'S256',
          dpop_jkt: jkt, authority_set: DETAILS, intent, expires_at: new Date(now.getTime() + 60_000).toISOString(), occurred_at: now.toISOString(),
        };
        const approved: AuthorizationRequestApprovedData = { request_id: requestId, mission_id: missionId, grant_id: grantId, approved_by: { id: CLIENT, role: 'policy' }, occurred_at: now.toISOString() };
        yield* emit(parStreamName(requestId), [{ type: 'PushedAuthorizationRequestReceived', data: asData(received) }, { type: 'AuthorizationRequestApproved', data: asData(approved) }]);
        const created = missionDecider.decide({
          type: 'CreateMission', missionId, issuer, clientId: CLIENT, authoritySet: DETAILS, authorityHash: authorityHash(issuer, DETAILS),
          intent, expiresAt: new Date(intent.expires_at), approvedBy: { id: CLIENT, role: 'policy' }, now,
        }, missionDecider.initialState);
        yield* emit(missionStreamName(missionId), created.map((event) => ({ type: event.type, data: asData(event.data) })));
        const code: AuthorizationCodeIssuedData = {
          grant_id: grantId, mission_id: missionId, client_id: CLIENT, code_hash: digest(`code-${index}`), redirect_uri: REDIRECT_URI, code_challenge: received.code_challenge,
          code_challenge_method: 'S256', dpop_jkt: jkt, request_id: requestId, expires_at: new Date(now.getTime() + 60_000).toISOString(), occurred_at: now.toISOString(),
        };
        yield* emit(grantStreamName(grantId), [{ type: 'AuthorizationCodeIssued', data: asData(code) }]);
        yield* emit(...replayRecord('client', CLIENT, now));
        yield* emit(...replayRecord('dpop', jkt, now));
        const redeemed: AuthorizationCodeRedeemedData = { grant_id: grantId, client_id: CLIENT, jkt, occurred_at: now.toISOString() };
        const refresh: RefreshTokenIssuedData = { grant_id: grantId, refresh_token_hash: digest(`refresh-${index}-0`), jkt, occurred_at: now.toISOString() };
        yield* emit(grantStreamName(grantId), [{ type: 'AuthorizationCodeRedeemed', data: asData(redeemed) }, { type: 'RefreshTokenIssued', data: asData(refresh) }]);
        grants.push({ id: grantId, jkt, hash: refresh.refresh_token_hash });
      }
      for (let round = 0; written < events; round++) {
        const grant = grants[round % grants.length]!;
        const now = at(missions * 10 + round);
        yield* emit(...replayRecord('client', CLIENT, now));
        yield* emit(...replayRecord('dpop', grant.jkt, now));
        const rotated: RefreshTokenRotatedData = { grant_id: grant.id, previous_hash: grant.hash, refresh_token_hash: digest(`refresh-${grant.id}-${round}`), jkt: grant.jkt, occurred_at: now.toISOString() };
        grant.hash = rotated.refresh_token_hash;
        yield* emit(grantStreamName(grant.id), [{ type: 'RefreshTokenRotated', data: asData(rotated) }]);
      }
      const rest = batcher.flush();
      if (rest) yield rest;
    },
  };
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
