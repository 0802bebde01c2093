import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The conformance matrices, the architecture notes and the READMEs cite code and tests by path. A row that
 * names a file that no longer exists is no longer evidence (an honest matrix names what really runs), so a
 * move or rename that forgets the documents fails here, naming the document and the stale path.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CITED_PATH = /`((?:apps|libs|tools|config|docs)\/[A-Za-z0-9_./-]+)`/g;

function documents(): string[] {
  const conformance = readdirSync(join(ROOT, 'docs/conformance')).filter((name) => name.endsWith('.md')).map((name) => `docs/conformance/${name}`);
  const appReadmes = ['apps/issuer/src', 'apps/person-server/src'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, dir, entry.name, 'README.md')))
      .map((entry) => `${dir}/${entry.name}/README.md`),
  );
  return ['README.md', 'docs/child-missions.md', ...(existsSync(join(ROOT, 'docs/architecture.md')) ? ['docs/architecture.md'] : []), ...conformance, ...appReadmes];
}

describe('documents cite files that exist', () => {
  it.each(documents())('%s', (document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    const missing = [...text.matchAll(CITED_PATH)].map((match) => match[1]!.replace(/\/$/, '')).filter((path) => !existsSync(join(ROOT, path)));
    expect([...new Set(missing)]).toEqual([]);
  });
});
