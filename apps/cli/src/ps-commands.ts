import { PersonServerClient, randomBase64url } from '@mission/mission-client';
import { EXIT } from './exit-codes.js';
import { keyFile, positional, print, required, flag, UsageError, type CliContext } from './cli-context.js';

async function principal(context: CliContext): Promise<PersonServerClient> {
  return PersonServerClient.discover({ url: required(context, 'ps-url', 'MISSION_PS_URL'), identity: { kind: 'principal', key: keyFile(context) } });
}

/** `mission ps <command>`: a person or administrator at the Person Server, signing with an `hwk` key. */
export const PS_COMMANDS: Record<string, { usage: string; run(context: CliContext): Promise<number> }> = {
  pending: {
    usage: 'pending                         how a person finds pending proposals',
    async run() {
      throw new UsageError('the Person Server has no listing of pending proposals; the agent hands the person its pending id (the last segment of its pending URL): `mission ps approve <pending-id>`');
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
    usage: 'revoke-token --iss <iss> --jti <jti>     (when the PS advertises a revocation_endpoint)',
    async run(context) {
      await (await principal(context)).revokeToken({ iss: required(context, 'iss'), jti: required(context, 'jti') });
      print(context, { revoked: true }, 'revoked');
      return EXIT.ok;
    },
  },
};
