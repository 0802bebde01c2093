/**
 * Pattern scan for material that must never be in a log event (spec mission-management 2.8): a compact
 * JWS/JWT (a raw token), a PEM block or a private JWK member, or a blob (`blob` member). Hashes and
 * thumbprints are fine. Returns what was seen, by member path, never the secret itself.
 */
const COMPACT_JWS = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/;
const PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----|-----BEGIN CERTIFICATE-----/;
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

export function scanForSecrets(value: unknown, path = 'data'): string[] {
  if (typeof value === 'string') {
    if (COMPACT_JWS.test(value)) return [`a raw token at ${path}`];
    if (PEM.test(value)) return [`a PEM key or certificate at ${path}`];
    return [];
  }
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, index) => scanForSecrets(item, `${path}[${index}]`));
  const record = value as Record<string, unknown>;
  const hits: string[] = [];
  if (typeof record['kty'] === 'string' && PRIVATE_JWK_MEMBERS.some((member) => typeof record[member] === 'string')) hits.push(`a private JWK at ${path}`);
  if (typeof record['blob'] === 'string') hits.push(`a blob at ${path}.blob`);
  for (const [key, member] of Object.entries(record)) hits.push(...scanForSecrets(member, `${path}.${key}`));
  return hits;
}
