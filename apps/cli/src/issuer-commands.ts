import { IssuerClient } from '@mission/mission-client';
import { EXIT } from './exit-codes.js';
import { keyFile, positional, print, required, flag, type CliContext } from './cli-context.js';

async function issuerClient(context: CliContext): Promise<IssuerClient> {
  return IssuerClient.discover({ issuer: required(context, 'issuer-url', 'MISSION_ISSUER_URL'), clientId: required(context, 'client-id', 'MISSION_CLIENT_ID'), clientKey: keyFile(context) });
}

function lifecycle(operation: 'revoke' | 'suspend' | 'resume') {
  return {
    usage: `${operation} <mission_id> --reason <text> [--expected-version <n>]`,
    async run(context: CliContext): Promise<number> {
      const expected = flag(context, 'expected-version');
      const answer = await (await issuerClient(context)).lifecycle(positional(context, 0, '<mission_id>'), operation, {
        reason: required(context, 'reason'), ...(expected !== undefined ? { expectedVersion: Number(expected) } : {}),
      });
      print(context, answer, `${answer.mission_id}: ${answer.state} (version ${answer.version})`);
      return EXIT.ok;
    },
  };
}

/** `mission issuer <command>`: an operator client (`private_key_jwt`) at the Mission Issuer. */
export const ISSUER_COMMANDS: Record<string, { usage: string; run(context: CliContext): Promise<number> }> = {
  status: {
    usage: 'status <mission_id>              verified signed status; exit 0 active, 10 otherwise',
    async run(context) {
      const status = await (await issuerClient(context)).status(positional(context, 0, '<mission_id>'));
      const human = status.failure
        ? `unknown (${status.failure.code}): ${status.failure.message}`
        : `${status.state} (version ${status.version}), fresh until ${status.freshUntil?.toISOString()}${status.parent ? `; parent ${status.parent.id} ${status.parent.state ?? '?'} (${status.parent.cascade_mode})` : ''}`;
      print(context, status, human);
      return status.active ? EXIT.ok : EXIT.notActive;
    },
  },
  revoke: lifecycle('revoke'),
  suspend: lifecycle('suspend'),
  resume: lifecycle('resume'),
  tree: {
    usage: 'tree <mission_id>',
    async run(context) {
      const tree = await (await issuerClient(context)).tree(positional(context, 0, '<mission_id>'));
      print(context, tree, tree.nodes.map((node) => `${'  '.repeat(Number(node['depth'] ?? 0))}${String(node['mission_id'])} ${String(node['state'])} client ${String(node['client_id'])}`).join('\n'));
      return EXIT.ok;
    },
  },
  evidence: {
    usage: 'evidence <mission_id>',
    async run(context) {
      const records: Record<string, unknown>[] = [];
      for await (const record of (await issuerClient(context)).evidence(positional(context, 0, '<mission_id>'))) records.push(record);
      print(context, { evidence: records }, records.map((record) => `${String(record['created_at'])} ${String(record['decision'])}${record['denial_reason'] ? ` (${String(record['denial_reason'])})` : ''} child ${String((record['child'] as Record<string, unknown> | undefined)?.['id'] ?? '-')} actor ${String((record['child_actor'] as Record<string, unknown>)['sub'])}`).join('\n') || 'no evidence');
      return EXIT.ok;
    },
  },
  introspect: {
    usage: 'introspect <token>',
    async run(context) {
      const answer = await (await issuerClient(context)).introspect(positional(context, 0, '<token>'));
      print(context, answer, answer.active ? `active; mission ${JSON.stringify(answer['mission'])}` : 'not active');
      return answer.active ? EXIT.ok : EXIT.notActive;
    },
  },
};
