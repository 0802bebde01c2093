import { fileURLToPath } from 'node:url';
import { Controller, Get, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply as Response } from 'fastify';
import { sendStaticFile, type StaticAsset } from '@mission/platform';

/** `apps/issuer/operator/`: two folders up from `src/endpoints/`, `dist/endpoints/` and the bundle's `dist/bundle/` (ADR 0078). */
const OPERATOR_DIR = fileURLToPath(new URL('../../operator/', import.meta.url));

/** The view's files: the page and stylesheet as written, the script as `npm run build` bundles it (ADR 0042). */
const ASSETS: Readonly<Record<string, StaticAsset>> = {
  'operator.css': { file: 'public/operator.css', type: 'text/css; charset=utf-8' },
  'operator.js': { file: 'build/operator.js', type: 'text/javascript; charset=utf-8' },
};

/**
 * `GET /operator` (ADR 0042): the operator view of a mission's delegation tree — static HTML, CSS and one bundled
 * script served by the issuer (no CDN) under a strict CSP. It is no API and grants nothing: the browser calls the
 * existing `/missions/tree`, `/missions/evidence` and `/missions/lifecycle` with `private_key_jwt` assertions it
 * signs with a registered client's key, so who may see or change what is decided exactly as for any API client.
 */
@Controller('operator')
export class OperatorController {
  @Get()
  async page(@Res() response: Response): Promise<void> {
    await sendStaticFile(response, `${OPERATOR_DIR}public/index.html`, 'text/html; charset=utf-8');
  }

  @Get(':asset')
  async asset(@Param('asset') name: string, @Res() response: Response): Promise<void> {
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (asset === undefined) throw new NotFoundException();
    await sendStaticFile(response, `${OPERATOR_DIR}${asset.file}`, asset.type);
  }
}
