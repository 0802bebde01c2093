import { el, when } from './dom.js';
import { issuer } from './session.js';
import { shortId, type TreeNode } from './tree-picture.js';

/** The spec 2.6 members the timeline shows. */
interface EvidenceRecord {
  readonly evidence_id: string;
  readonly parent: { readonly id: string };
  readonly child?: { readonly id: string };
  readonly child_actor: { readonly sub?: string; readonly sub_profile?: string };
  readonly requested_by: string;
  readonly attenuation: { readonly result?: string; readonly refused_by?: string; readonly detail?: string };
  readonly fanout?: readonly { readonly parent_entry: number; readonly active_children: number }[];
  readonly cascade_mode: string;
  readonly decision: 'created' | 'denied';
  readonly denial_reason?: string;
  readonly approval_basis?: string;
  readonly created_at: string;
}

/** The most missions whose evidence one view reads (one `/missions/evidence` walk each). */
export const EVIDENCE_NODE_LIMIT = 50;

/**
 * The Child Evidence timeline of the tree (ADR 0042): `/missions/evidence` is per parent, so the view reads it for
 * each mission of the tree (at most EVIDENCE_NODE_LIMIT) and merges every record, created and denied, by
 * `created_at`. Every value is text content.
 */
export async function drawEvidence(nodes: readonly TreeNode[]): Promise<{ list: HTMLElement; records: number; partial: boolean }> {
  const parents = nodes.slice(0, EVIDENCE_NODE_LIMIT);
  const records: EvidenceRecord[] = [];
  for (const node of parents) {
    for await (const record of issuer().evidence(node.mission_id)) records.push(record as unknown as EvidenceRecord);
  }
  records.sort((a, b) => a.created_at.localeCompare(b.created_at));
  const list = el('ol', { class: 'timeline', id: 'evidence-list' }, ...records.map(item));
  if (records.length === 0) list.append(el('li', { class: 'empty' }, 'No Child Mission was requested under these missions.'));
  return { list, records: records.length, partial: nodes.length > parents.length };
}

function item(record: EvidenceRecord): HTMLElement {
  const actor = [record.child_actor.sub, record.child_actor.sub_profile].filter((part) => part !== undefined).join(' / ');
  const outcome =
    record.decision === 'created'
      ? `created ${record.child ? shortId(record.child.id) : ''} (${record.attenuation.result ?? 'strict_subset'}, ${record.approval_basis ?? 'no basis recorded'})`
      : `denied: ${record.denial_reason ?? 'no reason'}${record.attenuation.refused_by ? ` at ${record.attenuation.refused_by}` : ''}${record.attenuation.detail ? ` — ${record.attenuation.detail}` : ''}`;
  const fanout = (record.fanout ?? []).map((counter) => `entry ${counter.parent_entry}: ${counter.active_children}`).join(', ');
  return el(
    'li',
    { class: `evidence evidence-${record.decision}`, 'data-evidence': record.evidence_id },
    when(record.created_at),
    ' ',
    el('strong', {}, record.decision),
    ` under ${shortId(record.parent.id)} — child actor ${actor || '(none)'}, requested by ${record.requested_by}, cascade ${record.cascade_mode}`,
    el('br'),
    el('span', { class: 'outcome' }, outcome),
    fanout !== '' && el('span', { class: 'fanout' }, ` · fan-out ${fanout}`),
  );
}
