/**
 * Mission references, `jti`s and digests are base64url, so one in 64 starts with `-`. `util.parseArgs` reads such a
 * value as an option (`ps status -Xy…` fails as an unknown option `-X`, `--jti -Xy…` as an ambiguous argument), so a
 * command would fail for one mission in 64. This rewrites the command line before parsing: the token after a string
 * flag is that flag's value whatever it starts with (`--jti=-Xy…`), and a token that is neither a known flag nor
 * `--` goes after a final `--`, which makes it a positional (in its order among the positionals). A mission reference
 * (43 base64url characters) is a positional even when it starts with `--`; any other unknown `--word` stays a flag, so
 * that a mistyped flag is still refused by name.
 */
const MISSION_REFERENCE = /^[A-Za-z0-9_-]{43}$/;

export function withDashValues(argv: readonly string[], stringFlags: ReadonlySet<string>, knownFlags: ReadonlySet<string>): string[] {
  const flags: string[] = [];
  const positionals: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]!;
    if (token === '--') {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (MISSION_REFERENCE.test(token)) {
      positionals.push(token);
      continue;
    }
    const name = token.startsWith('--') ? token.slice(2).split('=')[0]! : undefined;
    if (name !== undefined && stringFlags.has(name) && !token.includes('=') && index + 1 < argv.length) {
      flags.push(`--${name}=${argv[index + 1]!}`);
      index += 1;
    } else if (token.startsWith('--') || knownFlags.has(token) || !token.startsWith('-') || token === '-') {
      // A known or unknown `--flag` stays a flag (parseArgs names an unknown one); a plain word is a positional.
      (token.startsWith('-') && token !== '-' ? flags : positionals).push(token);
    } else {
      positionals.push(token); // `-Xy…`: not a short flag of ours, so a value such as a mission reference
    }
  }
  return positionals.length > 0 ? [...flags, '--', ...positionals] : flags;
}
