/**
 * When a terminal transition took effect (decision 0020), from its event data: an expiry at the mission's
 * `expires_at`, a cascade when its parent's terminal state did (`effective_at`), any other transition
 * when it was recorded (`occurred_at`). Recording can lag (a process manager), taking effect cannot, and
 * "what happened first" between a child's own expiry and its parent's end is judged on these times.
 * Events recorded before decision 0020 carry no `effective_at`: `occurred_at` stands in for it.
 */
export function terminalEffectiveAt(type: string, data: { readonly [key: string]: unknown }): Date | undefined {
  const field = type === 'MissionExpired' ? 'expires_at' : type === 'MissionCascaded' && typeof data['effective_at'] === 'string' ? 'effective_at' : 'occurred_at';
  const value = data[field];
  if (typeof value !== 'string') return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
