import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Controller, Get, NotFoundException, Param, Res } from '@nestjs/common';
import type { Response } from 'express';

/** `apps/person-server/console/`: two folders up from both `src/endpoints/` and `dist/endpoints/`. */
const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

/** The console's files: the page and its stylesheet as written, the script as `npm run build` bundles it (ADR 0040). */
const ASSETS: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  'console.css': { file: 'public/console.css', type: 'text/css; charset=utf-8' },
  'console.js': { file: 'build/console.js', type: 'text/javascript; charset=utf-8' },
};

/**
 * ADR 0040: nothing but this origin's own script and style may run or load; no inline script or style, no
 * framing, no form posts, no plugins. Agent-supplied text reaches the page only as `textContent`, and this
 * policy is the second wall should that ever slip.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * `GET /console` (ADR 0040): the person's console — static HTML, CSS and one bundled script, served by the PS
 * itself (no CDN). It is no API: it holds no session and signs nothing; the browser signs every call it makes
 * to the PS with the person's own key, exactly as an SDK client does (DESIGN 3.2, `hwk`).
 */
@Controller('console')
export class ConsoleController {
  @Get()
  async page(@Res() response: Response): Promise<void> {
    await send(response, 'public/index.html', 'text/html; charset=utf-8');
  }

  @Get(':asset')
  async asset(@Param('asset') name: string, @Res() response: Response): Promise<void> {
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (asset === undefined) throw new NotFoundException();
    await send(response, asset.file, asset.type);
  }
}

async function send(response: Response, file: string, type: string): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(`${CONSOLE_DIR}${file}`);
  } catch {
    // The bundle is made by `npm run build` (tools/scripts/build-console.mjs); a checkout without it has no console yet.
    throw new NotFoundException(`console asset ${file} is missing: run npm run build`);
  }
  response
    .status(200)
    .setHeader('Content-Type', type)
    .setHeader('Content-Security-Policy', CONSOLE_CSP)
    .setHeader('X-Content-Type-Options', 'nosniff')
    .setHeader('Referrer-Policy', 'no-referrer')
    .setHeader('Cross-Origin-Opener-Policy', 'same-origin')
    .setHeader('Cache-Control', 'no-cache')
    .end(body);
}
