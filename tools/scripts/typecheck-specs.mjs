// Type-checks test code: ts-jest runs with isolatedModules (no type checking), and the production build
// excludes specs, so without this a type error in a spec would go unnoticed.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
const projects = ['libs', 'apps']
  .flatMap((folder) => readdirSync(folder).map((name) => join(folder, name, 'tsconfig.spec.json')))
  .concat(join('tools', 'tsconfig.spec.json'))
  // Browser specs (ADR 0041): their page.evaluate callbacks run in the browser, so they alone get the DOM library;
  // every other spec is checked without it (tsconfig.spec.json excludes them), so `document` there is an error.
  .concat(readdirSync('apps').map((name) => join('apps', name, 'tsconfig.browser-spec.json')))
  // Browser code (ADR 0040, 0042): type-checked with the DOM library, bundled by tools/scripts/build-console.mjs.
  .concat(join('apps', 'person-server', 'console', 'tsconfig.json'), join('apps', 'issuer', 'operator', 'tsconfig.json'))
  .filter((path) => existsSync(path));

let failed = 0;
for (const project of projects) {
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  } catch {
    failed++;
    console.error(`type errors in ${project}`);
  }
}
console.log(`typecheck: ${projects.length - failed} of ${projects.length} test projects clean`);
process.exit(failed === 0 ? 0 : 1);
