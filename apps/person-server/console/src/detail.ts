import { byId, el, errorText, notice } from './dom.js';
import { deleteBody, describe, listMissions, residualText, type MissionView, type Residual } from './missions.js';
import { client } from './session.js';
import { drawTree } from './tree.js';

/** Spec 4.2 rule 1: the reasons each role may give (`superseded` needs a replacement mission, not offered here). */
const REASONS: Readonly<Record<MissionView['caller_role'], readonly string[]>> = {
  person: ['completed', 'revoked'],
  admin: ['administrative', 'revoked'],
};
const POLL_MS = 1000;
const POLL_LIMIT = 300;

let shown: MissionView | undefined;
let treeNodes = 0;
let polling = 0;

/** The mission panel: summary, tree picture, terminate (with confirmation) and, for administrators, body deletion. */
export async function openMission(mission: MissionView, onChanged: () => void): Promise<void> {
  shown = mission;
  polling++;
  const section = byId('detail-section');
  section.hidden = false;
  byId('detail-heading').textContent = `Mission of ${mission.agent}`;
  summarize(mission, mission.mission_status);
  byId('residual').textContent = residualText(mission.token_residual);
  byId('terminate-confirm').hidden = true;
  setUpTerminate(mission, onChanged);
  try {
    const { picture, nodes } = await drawTree(mission.mission_s256);
    treeNodes = nodes;
    byId('tree').replaceChildren(picture);
  } catch (error) {
    byId('tree').replaceChildren(el('p', {}, `The tree could not be read: ${errorText(error)}`));
  }
  section.scrollIntoView();
}

function summarize(mission: MissionView, status: MissionView['mission_status']): void {
  byId('detail-summary').replaceChildren(el('span', { class: 'description' }, describe(mission)), ' — ', el('span', { class: `status-${status}` }, status));
}

function setUpTerminate(mission: MissionView, onChanged: () => void): void {
  const box = byId('terminate-box');
  const form = byId<HTMLFormElement>('terminate-form');
  const reason = byId<HTMLSelectElement>('terminate-reason');
  const purpose = byId<HTMLInputElement>('terminate-purpose');
  const admin = mission.caller_role === 'admin';
  reason.replaceChildren(...REASONS[mission.caller_role].map((value) => el('option', { value }, value)));
  purpose.value = '';
  byId('terminate-purpose-label').hidden = !admin;
  purpose.hidden = !admin;
  box.replaceChildren(box.querySelector('h3')!, form, byId('terminate-confirm'));
  if (mission.mission_status === 'terminated') {
    form.hidden = true;
    if (admin && mission.body_deleted !== true) box.append(deleteForm(mission, onChanged));
    return;
  }
  form.hidden = false;
  form.onsubmit = (event) => {
    event.preventDefault();
    if (admin && purpose.value.trim() === '') return notice('An administrator must give the purpose of a termination.', 'error');
    byId('terminate-confirm-text').textContent =
      `Terminate the mission of ${mission.agent} (reason: ${reason.value})? The agent and every sub-agent in its tree (${treeNodes} node${treeNodes === 1 ? '' : 's'}) ` +
      `lose this mission for good; ${mission.token_residual.tracked} tracked token${mission.token_residual.tracked === 1 ? '' : 's'} will be revoked at their resources. This cannot be undone.`;
    byId('terminate-confirm').hidden = false;
    byId('terminate-yes').focus();
  };
  byId('terminate-no').onclick = () => {
    byId('terminate-confirm').hidden = true;
    byId('terminate-start').focus();
  };
  byId('terminate-yes').onclick = () => void terminate(mission, reason.value, admin ? purpose.value.trim() : undefined, onChanged);
}

async function terminate(mission: MissionView, reason: string, purpose: string | undefined, onChanged: () => void): Promise<void> {
  byId('terminate-confirm').hidden = true;
  try {
    const answer = await client().terminate(mission.mission_s256, { reason, ...(purpose !== undefined ? { purpose } : {}) });
    notice(`Terminated (${String(answer['termination_reason'])}). Revocations are confirmed below as resources answer.`);
    byId('terminate-form').hidden = true;
    summarize(mission, 'terminated');
    showResidual(answer['token_residual'] as unknown as Residual);
    onChanged();
    void pollResidual(mission.mission_s256, onChanged);
  } catch (error) {
    notice(`The Person Server refused: ${errorText(error)}`, 'error');
  }
}

/** The spec defines no push: the residual is read again every second until every tracked token is closed. */
async function pollResidual(missionS256: string, onChanged: () => void): Promise<void> {
  const run = ++polling;
  for (let round = 0; round < POLL_LIMIT && run === polling; round++) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const [mission] = await listMissions(missionS256).catch(() => [] as MissionView[]);
    if (mission === undefined || run !== polling) continue;
    showResidual(mission.token_residual);
    if (closed(mission.token_residual)) {
      onChanged();
      return;
    }
  }
}

function closed(residual: Residual): boolean {
  return residual.residual_until === undefined && residual.residual_unbounded !== true;
}

function showResidual(residual: Residual): void {
  const box = byId('residual');
  box.textContent = `Token residual: ${residualText(residual)}`;
  box.dataset['closed'] = String(closed(residual));
}

function deleteForm(mission: MissionView, onChanged: () => void): HTMLElement {
  const purpose = el('input', { id: 'delete-purpose', type: 'text' });
  const button = el('button', { type: 'button', class: 'danger', id: 'delete-body' }, 'Delete the mission body');
  button.addEventListener('click', () => {
    if (purpose.value.trim() === '') return notice('Give the purpose of the deletion.', 'error');
    void deleteBody(mission, purpose.value.trim()).then(onChanged);
  });
  return el('div', {}, el('h3', {}, 'Delete the body'), el('label', { for: 'delete-purpose' }, 'Purpose (required)'), purpose, button);
}

export function shownMission(): MissionView | undefined {
  return shown;
}
