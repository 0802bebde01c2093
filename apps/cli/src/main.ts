import { parseArgs } from 'node:util';
import { generateSigningKey, MissionClientError, ProtocolError, UnreachableError } from '@mission/mission-client';
import { withDashValues } from './dash-values.js';
import { EXIT } from './exit-codes.js';
import { UsageError, type CliContext, type Output } from './cli-context.js';
import { ISSUER_COMMANDS } from './issuer-commands.js';
import { PS_COMMANDS } from './ps-commands.js';

const GROUPS = { ps: PS_COMMANDS, issuer: ISSUER_COMMANDS };

const STRING_FLAGS = ['key', 'ps-url', 'issuer-url', 'client-id', 'reason', 'purpose', 'replacement', 'request-id', 'expires-at', 'page-size', 'iss', 'jti', 'expected-version', 'alg', 'agent-token', 'resource', 'auth-token'];
const OPTIONS = {
  json: { type: 'boolean' as const },
  help: { type: 'boolean' as const, short: 'h' },
  ...Object.fromEntries(STRING_FLAGS.map((name) => [name, { type: 'string' as const }])),
};
/** Short flags, as they are written. */
const SHORT_FLAGS = new Set(['-h']);

function help(): string {
  const lines = ['Usage: mission <group> <command> [arguments] [--json]', ''];
  lines.push('mission keygen [--alg ES256|EdDSA]        a new private key (JWK) and the thumbprint to register', '');
  lines.push('mission ps <command>     a person or administrator at the Person Server (--ps-url / MISSION_PS_URL, --key / MISSION_KEY_FILE)');
  for (const command of Object.values(PS_COMMANDS)) lines.push(`  ${command.usage}`);
  lines.push('', 'mission issuer <command> an operator client at the Mission Issuer (--issuer-url / MISSION_ISSUER_URL, --client-id / MISSION_CLIENT_ID, --key / MISSION_KEY_FILE)');
  for (const command of Object.values(ISSUER_COMMANDS)) lines.push(`  ${command.usage}`);
  lines.push('', 'Exit codes: 0 ok, 1 refused by the service, 2 usage, 3 bad key/URL, 4 unreachable, 10 not active.');
  return lines.join('\n');
}

/** The command line as parseArgs reads it, values starting with `-` included (see dash-values.ts). */
export function parseCommandLine(argv: readonly string[]) {
  return parseArgs({ args: withDashValues(argv, new Set(STRING_FLAGS), SHORT_FLAGS), allowPositionals: true, strict: true, options: OPTIONS });
}

/** Runs one command line; answers the exit code. Errors are one line on `err`, never a stack trace. */
export async function run(argv: readonly string[], env: Record<string, string | undefined>, out: Output, err: Output): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    err.write(`mission: ${(error as Error).message.split('\n')[0]} (see mission --help)\n`);
    return EXIT.usage;
  }
  const [group, command, ...positionals] = parsed.positionals;
  const context: CliContext = { positionals, flags: parsed.values as Record<string, string | boolean | undefined>, env, out, json: parsed.values['json'] === true };
  if (parsed.values['help'] === true || group === undefined || group === 'help') {
    out.write(`${help()}\n`);
    return group === undefined && parsed.values['help'] !== true ? EXIT.usage : EXIT.ok;
  }
  try {
    if (group === 'keygen') return await keygen({ ...context, positionals: parsed.positionals.slice(1) });
    const commands = (GROUPS as Record<string, Record<string, { run(context: CliContext): Promise<number> }>>)[group];
    const selected = commands?.[command ?? ''];
    if (selected === undefined) throw new UsageError(`unknown command: ${[group, command].filter(Boolean).join(' ')} (see mission --help)`);
    return await selected.run(context);
  } catch (error) {
    return report(error, err);
  }
}

async function keygen(context: CliContext): Promise<number> {
  const alg = context.flags['alg'] === 'EdDSA' ? 'EdDSA' : context.flags['alg'] === undefined || context.flags['alg'] === 'ES256' ? 'ES256' : undefined;
  if (alg === undefined) throw new UsageError('--alg must be ES256 or EdDSA');
  const key = await generateSigningKey(alg, { exportPrivate: true });
  const value = { private_jwk: key.privateJwk, public_jwk: key.publicJwk, jkt: key.jkt };
  context.out.write(context.json ? `${JSON.stringify(value, null, 2)}\n` : `${JSON.stringify(key.privateJwk)}\n# thumbprint to register (jkt): ${key.jkt}\n# public JWK: ${JSON.stringify(key.publicJwk)}\n`);
  return EXIT.ok;
}

function report(error: unknown, err: Output): number {
  if (error instanceof UsageError) {
    err.write(`mission: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof UnreachableError) {
    err.write(`mission: ${error.message}\n`);
    return EXIT.unreachable;
  }
  if (error instanceof ProtocolError) {
    err.write(`mission: refused: ${error.message}${error.denialReason ? ` [${error.denialReason}]` : ''}\n`);
    return EXIT.refused;
  }
  if (error instanceof MissionClientError) {
    err.write(`mission: ${error.message}\n`);
    return ['bad_key', 'bad_url', 'invalid_request'].includes(error.code) ? EXIT.config : EXIT.refused;
  }
  err.write(`mission: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.refused;
}
