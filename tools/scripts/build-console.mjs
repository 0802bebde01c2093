// Bundles the Person Server console (ADR 0040): apps/person-server/console/src/main.ts and the SDK code it uses
// (`@mission/mission-client`, mapped to its sources) into one ES module, console/build/console.js, which the PS
// serves at /console/console.js. One script file, so the page's CSP can be `script-src 'self'` with no inline
// script and no import map. Run by `npm run build` and by the browser tests' global setup.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const consoleDir = join(root, 'apps', 'person-server', 'console');

export async function buildConsole() {
  await build({
    entryPoints: [join(consoleDir, 'src', 'main.ts')],
    outfile: join(consoleDir, 'build', 'console.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    alias: { '@mission/mission-client': join(root, 'libs', 'mission-client', 'src', 'index.ts') },
    sourcemap: true,
    minify: false,
    legalComments: 'inline',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildConsole().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
