import { byId, el, notice, when } from './dom.js';
import { issuer, refusalText } from './session.js';
import { fanOutText, type MissionTree, type TreeNode } from './tree-picture.js';

type Operation = 'revoke' | 'suspend' | 'resume';

/** DESIGN 2.1 transitions an operator may ask for from each state (`complete` is the mission client's own word). */
const OPERATIONS: Readonly<Record<string, readonly Operation[]>> = {
  active: ['suspend', 'revoke'],
  suspended: ['resume', 'revoke'],
};

const PAST: Readonly<Record<Operation, string>> = { revoke: 'revoked', suspend: 'suspended', resume: 'resumed' };

/**
 * The missions of the tree as a table (the picture's accessible twin) with revoke / suspend / resume per mission
 * (ADR 0042). The issuer decides who may: `/missions/lifecycle` needs `lifecycle` or `admin` and the lineage rule,
 * and refuses anyone else with 404 — shown here as a refusal, the tree unchanged. A confirmation in the page (no
 * `window.confirm`) says what will stop.
 */
export function nodeTable(tree: MissionTree, onChanged: () => void): HTMLElement {
  const descendants = descendantCounts(tree.nodes);
  const rows = tree.nodes.map((node) =>
    el(
      'tr',
      { 'data-mission': node.mission_id },
      el('td', {}, el('code', {}, node.mission_id), node.parent_id === undefined ? ' (root)' : ''),
      el('td', { class: 'client' }, node.client_id),
      el('td', {}, el('span', { class: `state state-${node.state}` }, node.state)),
      el('td', {}, fanOutText(node)),
      el('td', {}, when(node.expires_at)),
      el('td', {}, ...(OPERATIONS[node.state] ?? []).map((operation) => actionButton(node, operation, descendants.get(node.mission_id) ?? 0, onChanged))),
    ),
  );
  return el(
    'table',
    { id: 'nodes-table' },
    el('caption', { class: 'visually-hidden' }, 'Missions of the tree'),
    el('thead', {}, el('tr', {}, ...['Mission', 'Client', 'State', 'Fan-out', 'Expires', 'Actions'].map((title) => el('th', { scope: 'col' }, title)))),
    el('tbody', {}, ...rows),
  );
}

function actionButton(node: TreeNode, operation: Operation, descendants: number, onChanged: () => void): HTMLElement {
  const button = el('button', { type: 'button', class: operation === 'resume' ? 'secondary' : 'danger', 'data-operation': operation }, `${operation[0]!.toUpperCase()}${operation.slice(1)}`);
  button.addEventListener('click', () => confirm(node, operation, descendants, onChanged));
  return button;
}

function confirm(node: TreeNode, operation: Operation, descendants: number, onChanged: () => void): void {
  const reason = byId<HTMLInputElement>('action-reason').value.trim();
  if (reason === '') {
    notice('Give a reason first: the issuer records it with the transition.', 'error');
    byId('action-reason').focus();
    return;
  }
  const below = descendants === 0 ? '' : ` Its ${descendants} descendant mission${descendants === 1 ? '' : 's'} ${operation === 'revoke' ? 'will be cascaded and stop for good' : operation === 'suspend' ? 'will be suspended with it' : 'will resume with it unless ended on their own'}.`;
  byId('confirm-text').textContent = `${operation[0]!.toUpperCase()}${operation.slice(1)} the mission ${node.mission_id} of ${node.client_id}?${below} Reason: “${reason}”.`;
  const box = byId('confirm');
  box.hidden = false;
  const yes = byId<HTMLButtonElement>('confirm-yes');
  yes.onclick = () => {
    box.hidden = true;
    void issuer()
      .lifecycle(node.mission_id, operation, { reason })
      .then((answer) => {
        notice(`${PAST[operation]}: ${answer.mission_id} is now ${answer.state} (version ${answer.version})`);
        onChanged();
      })
      .catch((error: unknown) => notice(`${operation} ${refusalText(error)}`, 'error'));
  };
  byId<HTMLButtonElement>('confirm-no').onclick = () => {
    box.hidden = true;
    notice('Nothing was changed.');
  };
  yes.focus();
}

/** How many missions of the shown tree sit below each one. */
function descendantCounts(nodes: readonly TreeNode[]): Map<string, number> {
  const counts = new Map<string, number>();
  const parentOf = new Map(nodes.map((node) => [node.mission_id, node.parent_id]));
  for (const node of nodes) {
    for (let parent = node.parent_id; parent !== undefined; parent = parentOf.get(parent)) counts.set(parent, (counts.get(parent) ?? 0) + 1);
  }
  return counts;
}

