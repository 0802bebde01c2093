import type { TokenIdentity, TreeRelationship } from './tracked-token.events.js';
import type { TrackedTokensState } from './tracked-token.state.js';

/** Spec 2.7 node. */
export interface DelegationTreeNode {
  readonly agent: string;
  readonly relationship: TreeRelationship;
  readonly parent_agent?: string;
  readonly tokens?: readonly TokenIdentity[];
}

/** Whose token identifiers a caller may see (spec 2.7): all (person, administrator) or only its own (agent). */
export type TreeTokenVisibility = { readonly kind: 'all' } | { readonly kind: 'own'; readonly agent: string };

/**
 * Spec 4.3 rule 4, 2.7: the tree from verified data only — the blob's `agent` as root, and one node
 * per (agent, relationship, parent) that a handed-out Auth Token placed in the tree (sub-agent tokens
 * verified at `POST /token`, call chains proven by an `upstream_token` of this mission). Nodes in
 * order of first appearance; token identifiers only where the caller may see them.
 */
export function delegationTreeNodes(rootAgent: string, state: TrackedTokensState, visibility: TreeTokenVisibility): DelegationTreeNode[] {
  const nodes = new Map<string, { agent: string; relationship: TreeRelationship; parent_agent?: string; tokens: TokenIdentity[] }>();
  const nodeKey = (agent: string, relationship: TreeRelationship, parent?: string) => JSON.stringify([agent, relationship, parent ?? null]);
  nodes.set(nodeKey(rootAgent, 'root'), { agent: rootAgent, relationship: 'root', tokens: [] });
  for (const token of state.tokens.values()) {
    if (!token.released) continue;
    const key = nodeKey(token.agent, token.relationship, token.parentAgent);
    let node = nodes.get(key);
    if (node === undefined) {
      node = { agent: token.agent, relationship: token.relationship, ...(token.parentAgent !== undefined ? { parent_agent: token.parentAgent } : {}), tokens: [] };
      nodes.set(key, node);
    }
    node.tokens.push({ iss: token.iss, jti: token.jti });
  }
  return [...nodes.values()].map(({ tokens, ...node }) => {
    const visible = visibility.kind === 'all' || visibility.agent === node.agent;
    return visible ? { ...node, tokens } : node;
  });
}
