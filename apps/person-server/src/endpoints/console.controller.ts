import { fileURLToPath } from 'node:url';
import { Controller, Get, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply as Response } from 'fastify';
import { sendStaticFile, type StaticAsset } from '@mission/platform';

/** `apps/person-server/console/`: two folders up from `src/endpoints/`, `dist/endpoints/` and the bundle's `dist/bundle/` (ADR 0078). */
const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

/** The console's files: the page and its stylesheet as written, the script as `npm run build` bundles it (ADR 0040). */
const ASSETS: Readonly<Record<string, StaticAsset>> = {
  'console.css': { file: 'public/console.css', type: 'text/css; charset=utf-8' },
  'console.js': { file: 'build/console.js', type: 'text/javascript; charset=utf-8' },
};

/**
 * `GET /console` (ADR 0040): the person's console — static HTML, CSS and one bundled script, served by the PS
 * itself (no CDN) under a strict CSP (`STATIC_PAGE_CSP`). It is no API: it holds no session and signs nothing; the
 * browser signs every call it makes to the PS with the person's own key, exactly as an SDK client does (DESIGN
 * 3.2, `hwk`).
 */
@Controller('console')
export class ConsoleController {
  @Get()
  async page(@Res() response: Response): Promise<void> {
    await sendStaticFile(response, `${CONSOLE_DIR}public/index.html`, 'text/html; charset=utf-8');
  }

  @Get(':asset')
  async asset(@Param('asset') name: string, @Res() response: Response): Promise<void> {
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (asset === undefined) throw new NotFoundException();
    await sendStaticFile(response, `${CONSOLE_DIR}${asset.file}`, asset.type);
  }
}
