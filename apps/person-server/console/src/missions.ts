import { byId, el, errorText, notice, when } from './dom.js';
import { client, endpoint } from './session.js';

/** One entry of `POST /missions/list` (ADR 0040). */
export interface MissionView {
  readonly mission_s256: string;
  readonly mission_status: 'active' | 'terminated';
  readonly agent: string;
  readonly caller_role: 'person' | 'admin';
  readonly description?: string;
  readonly body_deleted?: boolean;
  readonly approved_at: string;
  readonly expires_at?: string;
  readonly fresh_until: string;
  readonly terminated_at?: string;
  readonly termination_reason?: string;
  readonly token_residual: Residual;
}

export interface Residual {
  readonly tracked: number;
  readonly revocation_attempted: number;
  readonly revocation_confirmed: number;
  readonly residual_until?: string;
  readonly residual_unbounded?: boolean;
  readonly complete: boolean;
}

/** Every page of the caller's listing (or only `missionS256`). */
export async function listMissions(missionS256?: string): Promise<MissionView[]> {
  const missions: MissionView[] = [];
  let cursor: string | undefined;
  do {
    const body = { max_results: 200, ...(cursor !== undefined ? { cursor } : {}), ...(missionS256 !== undefined ? { mission_s256: missionS256 } : {}) };
    const page = (await client().call('POST', endpoint('missions_endpoint', '/missions/list'), body)).json as { missions: MissionView[]; complete: boolean; next_cursor?: string };
    missions.push(...page.missions);
    cursor = page.complete ? undefined : page.next_cursor;
  } while (cursor !== undefined);
  return missions;
}

export async function refreshMissions(open: (mission: MissionView) => void): Promise<MissionView[]> {
  const missions = await listMissions();
  const rows = byId('missions');
  rows.replaceChildren(...missions.map((mission) => row(mission, open)));
  if (missions.length === 0) rows.append(el('tr', {}, el('td', { colspan: '5' }, 'No missions yet.')));
  if (missions.some((mission) => mission.caller_role === 'admin')) byId('missions-hint').textContent = 'Every mission of your tenant, newest first (you are an administrator).';
  return missions;
}

function row(mission: MissionView, open: (mission: MissionView) => void): HTMLElement {
  const button = el('button', { type: 'button', class: 'secondary', 'aria-label': `Open the mission of ${mission.agent}` }, 'Open');
  button.addEventListener('click', () => open(mission));
  return el(
    'tr',
    { 'data-mission': mission.mission_s256 },
    el('td', {}, el('p', { class: 'description' }, describe(mission)), el('p', { class: 'agent' }, mission.agent), el('code', { title: 'mission_s256' }, mission.mission_s256)),
    el('td', {}, el('span', { class: `status-${mission.mission_status}` }, mission.mission_status), mission.termination_reason !== undefined ? el('p', {}, `reason: ${mission.termination_reason}`) : undefined),
    el(
      'td',
      {},
      el('p', {}, 'approved ', when(mission.approved_at)),
      mission.expires_at !== undefined ? el('p', {}, 'expires ', when(mission.expires_at)) : undefined,
      mission.terminated_at !== undefined ? el('p', {}, 'terminated ', when(mission.terminated_at)) : el('p', {}, 'fresh until ', when(mission.fresh_until)),
    ),
    el('td', { class: 'residual-cell' }, residualText(mission.token_residual)),
    el('td', {}, button),
  );
}

export function describe(mission: MissionView): string {
  if (mission.body_deleted === true) return '(body deleted)';
  return mission.description ?? '(no description)';
}

/** The residual in words: what is tracked, what is confirmed revoked, until when the rest may still be used. */
export function residualText(residual: Residual): string {
  const open = residual.tracked - residual.revocation_confirmed;
  const parts = [`${residual.tracked} tracked token${residual.tracked === 1 ? '' : 's'}`, `${residual.revocation_confirmed} confirmed revoked`];
  if (residual.residual_unbounded === true) parts.push('some may stay usable with no known end');
  else if (residual.residual_until !== undefined) parts.push(`${open} may stay usable until ${new Date(residual.residual_until).toLocaleString()}`);
  else parts.push('no tracked token is usable');
  if (!residual.complete) parts.push('(access the PS cannot track may exist)');
  return parts.join('; ');
}

/** An administrator deletes the body of a terminated mission (spec 3 rule 5); the digest stays as a tombstone. */
export async function deleteBody(mission: MissionView, purpose: string): Promise<void> {
  const requestId = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16)))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  try {
    await client().call('POST', `${location.origin}/mission/blob-deletions`, { mission_s256: mission.mission_s256, request_id: requestId, purpose });
    notice('The mission body was deleted.');
  } catch (error) {
    notice(`The Person Server refused: ${errorText(error)}`, 'error');
  }
}
