#!/usr/bin/env node
// `mission`: the operator CLI (apps/cli). Built by `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('mission: not built yet; run `npm run build` in the repository first\n');
  process.exit(3);
}
const { run } = await import(main);
process.exitCode = await run(process.argv.slice(2), process.env, process.stdout, process.stderr);
