import type { PendingProposal } from '@mission/mission-client';
import { byId, el, errorText, notice, when } from './dom.js';
import { client } from './session.js';

/** Inbox (ADR 0034 listing): each proposal as readable text, with Approve (optionally shorter expiry) and Decline. */
export async function refreshInbox(onDecided: () => void): Promise<void> {
  const list = byId('proposals');
  const proposals: PendingProposal[] = [];
  for await (const proposal of client().pendingProposals()) proposals.push(proposal);
  list.replaceChildren(...proposals.map((proposal) => card(proposal, onDecided)));
  byId('inbox-count').textContent = `(${proposals.length} waiting)`;
  if (proposals.length === 0) list.append(el('li', { class: 'empty' }, 'Nothing is waiting for your decision.'));
}

function card(proposal: PendingProposal, onDecided: () => void): HTMLElement {
  const id = proposal.pending_id;
  const expiryInput = el('input', { type: 'datetime-local', id: `expiry-${id}`, 'aria-describedby': `expiry-hint-${id}` });
  const approve = el('button', { type: 'button', 'data-action': 'approve' }, 'Approve');
  const decline = el('button', { type: 'button', class: 'secondary', 'data-action': 'decline' }, 'Decline');
  approve.addEventListener('click', () => void decide(proposal, 'approve', expiryInput.value, onDecided));
  decline.addEventListener('click', () => void decide(proposal, 'decline', '', onDecided));
  return el(
    'li',
    { class: 'proposal', 'data-pending-id': id },
    el('p', { class: 'description' }, proposal.description),
    el(
      'dl',
      {},
      el('dt', {}, 'Agent'),
      el('dd', { class: 'agent' }, proposal.agent),
      el('dt', {}, 'Tools'),
      el('dd', {}, list(proposal.tools)),
      el('dt', {}, 'Resources'),
      el('dd', {}, list(proposal.resources)),
      el('dt', {}, 'Requested expiry'),
      el('dd', {}, proposal.expires_at !== undefined ? when(proposal.expires_at) : 'none requested'),
      el('dt', {}, 'Submitted'),
      el('dd', {}, when(proposal.submitted_at)),
    ),
    el('label', { for: `expiry-${id}` }, 'Expire earlier (optional)'),
    expiryInput,
    el('p', { class: 'hint', id: `expiry-hint-${id}` }, 'Leave empty to keep the requested expiry; a later time than requested is refused.'),
    el('div', { class: 'actions' }, approve, decline),
  );
}

function list(values: readonly string[] | undefined): string {
  return values === undefined || values.length === 0 ? 'none' : values.join(', ');
}

async function decide(proposal: PendingProposal, decision: 'approve' | 'decline', localExpiry: string, onDecided: () => void): Promise<void> {
  try {
    if (decision === 'approve') {
      const expiresAt = localExpiry === '' ? undefined : new Date(localExpiry).toISOString().replace(/\.\d{3}Z$/, 'Z');
      await client().approve(proposal.pending_id, expiresAt !== undefined ? { expiresAt } : {});
      notice(`Approved the proposal of ${proposal.agent}.`);
    } else {
      await client().decline(proposal.pending_id);
      notice(`Declined the proposal of ${proposal.agent}.`);
    }
  } catch (error) {
    notice(`The Person Server refused: ${errorText(error)}`, 'error');
  }
  onDecided();
}
