import { byId, el, errorText, notice } from './dom.js';
import { drawEvidence, EVIDENCE_NODE_LIMIT } from './evidence.js';
import { createKey, forgetKey, importKey, loadKey, type OperatorKey } from './key-store.js';
import { nodeTable } from './lifecycle.js';
import { connect, disconnect, issuer, refusalText } from './session.js';
import { drawTree, type MissionTree } from './tree-picture.js';

/**
 * The issuer's operator view (ADR 0042). Without a key it offers to import the operator client's private JWK or to
 * create a key whose public JWK the administrator registers for that client; with a key it reads a mission's tree
 * and Child Evidence and offers revoke / suspend / resume, each a `private_key_jwt`-signed call to the JSON API.
 */
async function showKey(operator: OperatorKey | undefined): Promise<void> {
  byId('key-facts').hidden = operator === undefined;
  byId('key-new').hidden = operator !== undefined;
  byId('key-forget').hidden = operator === undefined;
  byId('mission-section').hidden = true;
  byId('tree-section').hidden = true;
  if (operator === undefined) {
    disconnect();
    byId('key-status').textContent = 'This browser holds no operator key. Import the private JWK of a client with the audit or admin permission, or create a key here and have it registered for that client.';
    return;
  }
  byId('key-client').textContent = operator.clientId;
  byId('key-jwk').textContent = JSON.stringify({ ...operator.key.publicJwk, ...(operator.key.kid !== undefined ? { kid: operator.key.kid } : {}), alg: operator.key.alg, use: 'sig' });
  byId('key-status').textContent = `This browser holds a non-extractable ${operator.key.alg} key for the client below.`;
  try {
    await connect(operator);
    byId('mission-section').hidden = false;
    const fromHash = new URLSearchParams(location.hash.slice(1)).get('mission');
    if (fromHash !== null) {
      byId<HTMLInputElement>('mission-id').value = fromHash;
      await showTree(fromHash);
    }
  } catch (error) {
    notice(`cannot reach the issuer: ${errorText(error)}`, 'error');
  }
}

/** `reloading`: after a change made on the page, whose notice ("revoked: …") must stay up. */
async function showTree(missionId: string, reloading = false): Promise<void> {
  const section = byId('tree-section');
  let tree: MissionTree;
  try {
    tree = (await issuer().tree(missionId)) as unknown as MissionTree;
  } catch (error) {
    section.hidden = true;
    notice(`The tree could not be read: ${refusalText(error)}`, 'error');
    return;
  }
  if (!reloading) notice('');
  section.hidden = false;
  byId('tree-heading').textContent = `Delegation tree of ${tree.mission_id}`;
  byId('tree-observed').textContent = `States as of ${tree.observed_at}${tree.truncated ? ' — truncated: the tree has more missions than one answer carries' : ''}.`;
  const reload = (): void => void showTree(missionId, true);
  byId('tree').replaceChildren(drawTree(tree));
  byId('nodes').replaceChildren(nodeTable(tree, reload));
  byId('evidence').replaceChildren(el('p', {}, 'Reading the Child Evidence…'));
  try {
    const { list, partial } = await drawEvidence(tree.nodes);
    byId('evidence').replaceChildren(list, partial ? el('p', { class: 'hint' }, `Evidence of the first ${EVIDENCE_NODE_LIMIT} missions only.`) : '');
  } catch (error) {
    byId('evidence').replaceChildren(el('p', { class: 'error' }, `The evidence could not be read: ${refusalText(error)}`));
  }
  byId('tree-section').setAttribute('data-loaded', tree.observed_at);
}

function report(error: unknown): void {
  notice(errorText(error), 'error');
}

function wire(): void {
  const clientId = (): string => byId<HTMLInputElement>('key-client-id').value;
  byId('key-import-button').addEventListener('click', () => {
    const box = byId<HTMLTextAreaElement>('key-import');
    const text = box.value;
    box.value = '';
    void importKey(clientId(), text).then(showKey).catch(report);
  });
  byId('key-create').addEventListener('click', () => void createKey(clientId()).then(showKey).catch(report));
  byId('key-forget').addEventListener('click', () => void forgetKey().then(() => showKey(undefined)).catch(report));
  byId<HTMLFormElement>('mission-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const missionId = byId<HTMLInputElement>('mission-id').value.trim();
    if (missionId === '') return notice('Enter a mission_id.', 'error');
    void showTree(missionId).catch(report);
  });
  void loadKey().then(showKey).catch(report);
}

wire();
