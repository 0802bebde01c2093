/**
 * What every service's OpenAPI document must hold (issue 18, ADR 0047), checked against the real app: the
 * document at /openapi.json is valid OpenAPI 3.1 (by an independent validator of the OpenAPI schemas), it
 * lists every route the app's Express router really has, and the docs page loads nothing from another origin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { RunningService } from '../bootstrap/bootstrap-service.js';
import { DOCS_PATH, OPENAPI_PATH } from '../openapi/openapi.js';
import { routesOf } from '../http/http-server-limits.js';

export interface OpenApiContractOptions {
  readonly serviceName: string;
  readonly start: (dataDir: string) => Promise<{ service: RunningService }>;
  /** Codes of the specs' error tables (and the service's own) that the document must name in some `enum`. */
  readonly errorCodes: readonly string[];
}

/** Every string of every `enum` in the document. */
function enumValues(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) enumValues(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      if (key === 'enum' && Array.isArray(member)) for (const item of member) if (typeof item === 'string') found.add(item);
      enumValues(member, found);
    }
  }
  return found;
}

interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

/** The docs page and its static assets are served beside the API, not part of it. */
const NOT_API = (path: string): boolean => path === OPENAPI_PATH || path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`);

/**
 * Every (method, path) the HTTP server of the running app answers, as OpenAPI spells paths (`:id` → `{id}`).
 * Read from the server's route registrations, so a route added by any means — a controller, a plugin — is seen.
 * HEAD routes are the ones Fastify adds for every GET; the not-found handler's catch-all is no route.
 */
export function routerRoutes(service: RunningService): { method: string; path: string }[] {
  return routesOf(service.app.getHttpAdapter().getInstance())
    .filter((route) => route.method !== 'head' && !route.url.includes('*'))
    .map((route) => ({ method: route.method, path: route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}') }));
}

export function describeOpenApiContract(options: OpenApiContractOptions): void {
  describe(`${options.serviceName} OpenAPI document (issue 18, ADR 0047)`, () => {
    let dataDir: string;
    let service: RunningService;
    let document: OpenApiDocument;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), `${options.serviceName}-openapi-`));
      ({ service } = await options.start(dataDir));
      const reply = await fetch(`${service.listenUrl}${OPENAPI_PATH}`);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toContain('application/json');
      document = (await reply.json()) as OpenApiDocument;
    });
    afterAll(async () => {
      await service?.stop('tests finished');
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('GET /openapi.json is a valid OpenAPI 3.1 document', async () => {
      expect(document.openapi).toMatch(/^3\.1\.\d+$/);
      const result = await new Validator().validate(document as never);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    });

    it('lists every route of the running app, with every method, and nothing the app does not serve', () => {
      const served = routerRoutes(service).filter((route) => !NOT_API(route.path));
      expect(served.length).toBeGreaterThan(3);
      const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).filter((key) => key !== 'parameters').map((method) => `${method.toUpperCase()} ${path}`));
      const missing = served.map((route) => `${route.method.toUpperCase()} ${route.path}`).filter((route) => !documented.includes(route));
      expect(missing).toEqual([]);
      const notServed = documented.filter((route) => !served.some((candidate) => `${candidate.method.toUpperCase()} ${candidate.path}` === route));
      expect(notServed).toEqual([]);
    });

    it('every operation declares a success answer, and every operation that takes a request body its 4xx error answers', () => {
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item) as [string, { responses?: Record<string, unknown>; requestBody?: unknown }][]) {
          const statuses = Object.keys(operation.responses ?? {});
          const declared = { success: statuses.some((status) => /^[23]/.test(status)), errors: operation.requestBody === undefined || statuses.some((status) => /^4/.test(status)) };
          expect({ operation: `${method} ${path}`, ...declared }).toEqual({ operation: `${method} ${path}`, success: true, errors: true });
        }
      }
    });

    it('names every error code of the spec tables', () => {
      const named = enumValues(document.paths);
      expect(options.errorCodes.filter((code) => !named.has(code))).toEqual([]);
    });

    it('the docs page is served from this origin only (no CDN)', async () => {
      const page = await fetch(`${service.listenUrl}${DOCS_PATH}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('swagger-ui');
      const external = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!).filter((url) => /^(https?:)?\/\//.test(url));
      expect(external).toEqual([]);
      const init = await fetch(`${service.listenUrl}${DOCS_PATH}/swagger-ui-init.js`);
      expect(init.status).toBe(200);
      expect(await init.text()).toContain('"validatorUrl": null');
      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css']) expect((await fetch(`${service.listenUrl}${DOCS_PATH}/${asset}`)).status).toBe(200);
    });
  });
}
