import { escapeHtml } from './escape-html.js';

/**
 * Issue 17: the requested Authority Set as a table a person can read — one row per entry with its resource,
 * actions, constraints, delegation and children limits — instead of pretty-printed JSON. Every value a client
 * supplied is escaped; nested values (matchers, constraint sets) are shown as compact JSON text.
 */
export function renderAuthorityTable(authoritySet: unknown): string {
  if (!Array.isArray(authoritySet) || authoritySet.length === 0) return '<p>No authority requested.</p>';
  const rows = authoritySet.map((entry) => row(isObject(entry) ? entry : {})).join('\n');
  return `<table>
<caption>Authority requested (${authoritySet.length} entr${authoritySet.length === 1 ? 'y' : 'ies'})</caption>
<thead><tr><th scope="col">Resource</th><th scope="col">Actions</th><th scope="col">Constraints</th><th scope="col">Delegation</th><th scope="col">Children</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

function row(entry: Record<string, unknown>): string {
  const delegation = isObject(entry['delegation']) ? entry['delegation'] : undefined;
  const { children, ...delegationRest } = delegation ?? {};
  const cells = [
    `<code>${escapeHtml(text(entry['resource']))}</code>`,
    Array.isArray(entry['actions']) ? entry['actions'].map((action) => escapeHtml(text(action))).join(', ') : '—',
    members(entry['constraints'], 'none'),
    delegation === undefined ? 'may not delegate' : members(delegationRest, 'no limits stated'),
    delegation === undefined ? 'none' : members(children, 'no child missions'),
  ];
  return `<tr>${cells.map((cell, index) => (index === 0 ? `<th scope="row">${cell}</th>` : `<td>${cell}</td>`)).join('')}</tr>`;
}

/** `name: value` lines of an object's members, escaped; `empty` when there are none. */
function members(value: unknown, empty: string): string {
  if (!isObject(value) || Object.keys(value).length === 0) return escapeHtml(empty);
  return `<ul>${Object.entries(value)
    .map(([name, member]) => `<li>${escapeHtml(name.replace(/_/g, ' '))}: ${escapeHtml(text(member))}</li>`)
    .join('')}</ul>`;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
