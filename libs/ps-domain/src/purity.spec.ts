import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The domain is pure (DESIGN 1: decide(command, state) → events): no IO, no framework, no clock, no
 * randomness — time and random values arrive in commands. Lint bans IO modules and `Date.now`; this
 * spec also catches `new Date()` without arguments, `Math.random`, `process` and unexpected imports.
 */
const root = fileURLToPath(new URL('.', import.meta.url));

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

// `immutable`: persistent data structures (pure values; a mission's late terminate request keys, ADR 0080).
const ALLOWED_IMPORTS = [/^\.{1,2}\//, /^node:crypto$/, /^canonicalize$/, /^immutable$/, /^@mission\/decider$/];
const FORBIDDEN: [RegExp, string][] = [
  [/\bDate\.now\b/, 'Date.now()'],
  [/new Date\(\s*\)/, 'new Date() without arguments'],
  [/\bMath\.random\b/, 'Math.random'],
  [/\bfetch\s*\(/, 'fetch'],
  [/\bprocess\./, 'process'],
  [/\brequire\s*\(/, 'require'],
  [/\bimport\s*\(/, 'dynamic import'],
];

describe('ps-domain purity (DESIGN 1: decisions are pure; time and randomness come in commands)', () => {
  const files = sources(root);

  it('has sources to check', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files.map((file) => [relative(root, file), file]))('%s imports only relative modules, node:crypto, canonicalize, immutable and @mission/decider', (_, file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((match) => match[1]!);
    for (const specifier of specifiers) expect([specifier, ALLOWED_IMPORTS.some((pattern) => pattern.test(specifier))]).toEqual([specifier, true]);
  });

  it.each(files.map((file) => [relative(root, file), file]))('%s reads no clock, no randomness, no process state', (_, file) => {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    const found = FORBIDDEN.filter(([pattern]) => pattern.test(text)).map(([, name]) => name);
    expect(found).toEqual([]);
  });
});
