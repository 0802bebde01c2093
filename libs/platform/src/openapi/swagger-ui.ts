import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/** swagger-ui-dist's folder: the page's scripts and styles come from this origin, never a CDN. */
const SWAGGER_UI_DIR = (createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string)();

/** The files of swagger-ui-dist the page loads, by the name they are served under. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/**
 * Swagger UI at `docsPath` for the document at `documentPath`: an HTML page, its init script and swagger-ui-dist's
 * files, served from this origin. (Nest's SwaggerModule serves the UI through @fastify/static, whose
 * content-disposition dependency is ESM-only and cannot be loaded by the test runner; four routes do the same.)
 * The online validator (which would send the document to a third party) is off, and so is "Try it out".
 */
export function serveSwaggerUi(fastify: FastifyInstance, docsPath: string, documentPath: string, title: string): void {
  const page = swaggerPage(docsPath, title);
  const init = `window.onload = function () {\n  window.ui = SwaggerUIBundle(${JSON.stringify(
    { url: documentPath, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, supportedSubmitMethods: [], layout: 'StandaloneLayout' },
    null,
    2,
  ).replace(/\n}$/, ',\n  "presets": [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset]\n}')});\n};\n`;
  fastify.get(docsPath, (_request, reply) => void reply.header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(page));
  fastify.get(`${docsPath}/swagger-ui-init.js`, (_request, reply) => void reply.header('Content-Type', 'text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(init));
  fastify.get<{ Params: { asset: string } }>(`${docsPath}/:asset`, async (request, reply) => {
    const type = Object.hasOwn(ASSETS, request.params.asset) ? ASSETS[request.params.asset] : undefined;
    if (type === undefined) return reply.callNotFound();
    return reply.header('Content-Type', type).header('Cache-Control', 'public, max-age=3600').send(await readFile(join(SWAGGER_UI_DIR, request.params.asset)));
  });
}

function swaggerPage(docsPath: string, title: string): string {
  const escaped = title.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escaped}</title>
  <link rel="stylesheet" href="${docsPath}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${docsPath}/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${docsPath}/swagger-ui-bundle.js"></script>
  <script src="${docsPath}/swagger-ui-standalone-preset.js"></script>
  <script src="${docsPath}/swagger-ui-init.js"></script>
</body>
</html>
`;
}
