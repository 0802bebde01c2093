import { existsSync, readFileSync } from 'node:fs';
import { PersonServerClient, randomBase64url, type PsIdentity } from '@mission/mission-client';
import { EXIT } from './exit-codes.js';
import { keyFile, positional, print, required, flag, UsageError, type CliContext } from './cli-context.js';

async function principal(context: CliContext): Promise<PersonServerClient> {
  return PersonServerClient.discover({ url: required(context, 'ps-url', 'MISSION_PS_URL'), identity: { kind: 'principal', key: keyFile(context) } });
}

/**
 * ADR 0016: only an Auth Token's holder (the agent, `--agent-token` + its key) or audience (the resource,
 * `--resource` + its configured key with `kid`) may revoke it; a person's or administrator's request would
 * be answered 200 and revoke nothing, so the CLI does not offer it.
 */
function revoker(context: CliContext): PsIdentity {
  const agentToken = flag(context, 'agent-token');
  const resource = flag(context, 'resource');
  if ((agentToken === undefined) === (resource === undefined)) throw new UsageError('revoke-token signs as the token\'s holder (--agent-token <jwt|file>) or its audience (--resource <id>): give exactly one');
  const key = keyFile(context);
  return agentToken !== undefined ? { kind: 'agent', key, agentToken: jwtOrFile(agentToken) } : { kind: 'resource', key, resource: resource! };
}

/** A compact JWT given inline or as the path of a file holding one. */
function jwtOrFile(value: string): string {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(value) || !existsSync(value) ? value : readFileSync(value, 'utf8').trim();
}

/** `mission ps <command>`: a person or administrator at the Person Server, signing with an `hwk` key. */
export const PS_COMMANDS: Record<string, { usage: string; run(context: CliContext): Promise<number> }> = {
  pending: {
    usage: 'pending [--page-size <n>]        the proposals waiting for your decision (a person: its agents\'; an administrator: its tenant\'s)',
    async run(context) {
      const pageSize = flag(context, 'page-size');
      const proposals = [];
      for await (const proposal of (await principal(context)).pendingProposals(pageSize !== undefined ? { pageSize: Number(pageSize) } : {})) proposals.push(proposal);
      print(context, { proposals }, proposals.length === 0 ? 'no pending proposals' : proposals.map((proposal) =>
        `${proposal.pending_id}  ${proposal.agent}  ${proposal.submitted_at}\n    ${proposal.description}${proposal.tools ? `\n    tools: ${proposal.tools.join(', ')}` : ''}${proposal.expires_at ? `\n    expires_at: ${proposal.expires_at}` : ''}`).join('\n'));
      return EXIT.ok;
    },
  },
  approve: {
    usage: 'approve <pending-id> [--expires-at <RFC 3339>]',
    async run(context) {
      const expiresAt = flag(context, 'expires-at');
      const answer = await (await principal(context)).approve(positional(context, 0, '<pending-id>'), expiresAt !== undefined ? { expiresAt } : {});
      print(context, answer, `approved: mission_s256 ${answer.s256}`);
      return EXIT.ok;
    },
  },
  decline: {
    usage: 'decline <pending-id>',
    async run(context) {
      await (await principal(context)).decline(positional(context, 0, '<pending-id>'));
      print(context, { status: 'declined' }, 'declined');
      return EXIT.ok;
    },
  },
  status: {
    usage: 'status <mission_s256>            exit 0 active, 10 terminated or unknown',
    async run(context) {
      const status = await (await principal(context)).status(positional(context, 0, '<mission_s256>'));
      const human = status.failure
        ? `unknown (${status.failure.code}): ${status.failure.message}`
        : `${status.status}${status.terminationReason ? ` (${status.terminationReason} at ${status.terminatedAt})` : ''}, fresh until ${status.freshUntil?.toISOString()}`;
      print(context, status, human);
      return status.active ? EXIT.ok : EXIT.notActive;
    },
  },
  terminate: {
    usage: 'terminate <mission_s256> --reason <reason> [--purpose <text>] [--replacement <s256>] [--request-id <id>]',
    async run(context) {
      const requestId = flag(context, 'request-id') ?? randomBase64url(16);
      const purpose = flag(context, 'purpose');
      const replacement = flag(context, 'replacement');
      const answer = await (await principal(context)).terminate(positional(context, 0, '<mission_s256>'), {
        reason: required(context, 'reason'), requestId, ...(purpose !== undefined ? { purpose } : {}), ...(replacement !== undefined ? { replacementS256: replacement } : {}),
      });
      const residual = answer['token_residual'] as Record<string, unknown> | undefined;
      print(context, { ...answer, request_id: requestId }, `terminated (${String(answer['termination_reason'])}) at ${String(answer['terminated_at'])}; request_id ${requestId}` +
        (residual ? `\ntoken residual: tracked ${String(residual['tracked'])}, revocation attempted ${String(residual['revocation_attempted'])}, confirmed ${String(residual['revocation_confirmed'])}, complete ${String(residual['complete'])}${residual['residual_until'] ? `, until ${String(residual['residual_until'])}` : ''}` : ''));
      return EXIT.ok;
    },
  },
  tree: {
    usage: 'tree <mission_s256> [--page-size <n>]',
    async run(context) {
      const client = await principal(context);
      const pageSize = flag(context, 'page-size');
      const nodes: Record<string, unknown>[] = [];
      for await (const node of client.delegationTree(positional(context, 0, '<mission_s256>'), pageSize !== undefined ? { pageSize: Number(pageSize) } : {})) nodes.push(node);
      print(context, { nodes }, nodes.map((node) => `${node['relationship'] === 'root' ? '' : '  '}${String(node['agent'])} (${String(node['relationship'])}${node['parent_agent'] ? ` of ${String(node['parent_agent'])}` : ''}) tokens ${Array.isArray(node['tokens']) ? node['tokens'].length : 0}`).join('\n'));
      return EXIT.ok;
    },
  },
  'revoke-token': {
    usage: 'revoke-token (--iss <iss> --jti <jti> | --auth-token <jwt|file>) (--agent-token <jwt|file> | --resource <id>)   as the holder or the audience',
    async run(context) {
      const token = flag(context, 'auth-token');
      const identity = revoker(context);
      const client = await PersonServerClient.discover({ url: required(context, 'ps-url', 'MISSION_PS_URL'), identity });
      await client.revokeToken(token !== undefined ? { token: jwtOrFile(token) } : { iss: required(context, 'iss'), jti: required(context, 'jti') });
      // ADR 0016: the PS answers every well-formed request alike; only the holder's or the audience's request revokes.
      print(context, { sent: true, as: identity.kind }, `revocation sent as the token's ${identity.kind === 'agent' ? 'holder' : 'audience'} (the PS answers every request alike)`);
      return EXIT.ok;
    },
  },
};
