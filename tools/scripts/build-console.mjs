// Bundles the browser pages the services serve, each with the SDK code it uses (`@mission/mission-client`, mapped
// to its sources) into one ES module: the Person Server console (ADR 0040, apps/person-server/console/build/
// console.js, served at /console/console.js) and the issuer's operator view (ADR 0042, apps/issuer/operator/build/
// operator.js, served at /operator/operator.js). One script file per page, so its CSP can be `script-src 'self'`
// with no inline script and no import map. Run by `npm run build` and by the browser tests' global setup.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Each page: its folder (src/main.ts in, build/<name>.js out). */
export const BROWSER_PAGES = [
  { dir: join(root, 'apps', 'person-server', 'console'), name: 'console' },
  { dir: join(root, 'apps', 'issuer', 'operator'), name: 'operator' },
];

export async function buildConsole() {
  for (const page of BROWSER_PAGES) {
    await build({
      entryPoints: [join(page.dir, 'src', 'main.ts')],
      outfile: join(page.dir, 'build', `${page.name}.js`),
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
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildConsole().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
