import { readFile } from 'node:fs/promises';
import { NotFoundException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * The policy of the browser pages the services serve (the PS console, ADR 0040; the issuer's operator view,
 * ADR 0042): nothing but the origin's own script and style may run or load; no inline script or style, no framing,
 * no form posts, no plugins. Data reaches those pages only as `textContent`; this policy is the second wall.
 */
export const STATIC_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** One file a static page is made of, by the name it is served under. */
export interface StaticAsset {
  readonly file: string;
  readonly type: string;
}

/**
 * Sends one file of a static page with STATIC_PAGE_CSP and the hardening headers. A missing file (the bundle is
 * made by `npm run build`) is a 404 that says so, never a 5xx.
 */
export async function sendStaticFile(response: FastifyReply, path: string, type: string): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch {
    throw new NotFoundException(`page asset ${path.split('/').slice(-2).join('/')} is missing: run npm run build`);
  }
  response
    .status(200)
    .headers({
      'Content-Type': type,
      'Content-Security-Policy': STATIC_PAGE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cache-Control': 'no-cache',
    })
    .send(body);
}
