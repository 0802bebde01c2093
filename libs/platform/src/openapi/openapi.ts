import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { serveSwaggerUi } from './swagger-ui.js';

export type SecuritySchemeObject = Parameters<DocumentBuilder['addSecurity']>[1];

/** What a service says about its API beyond its controllers' decorators (ADR 0047). */
export interface OpenApiDefinition {
  readonly title: string;
  readonly description: string;
  /** By name; given the service's base URL, for schemes that carry absolute URLs (OAuth flows). */
  readonly securitySchemes: (baseUrl: string) => Readonly<Record<string, SecuritySchemeObject>>;
  readonly tags?: readonly { readonly name: string; readonly description: string }[];
  /** Schema classes referenced only through `getSchemaPath` (e.g. in a `oneOf`). */
  readonly extraModels?: readonly (abstract new (...args: never[]) => unknown)[];
}

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * Builds the OpenAPI 3.1 document from the controllers' decorators (`@nestjs/swagger`); `baseUrl` is the
 * service's public identifier, its only server.
 */
export function buildOpenApiDocument(app: INestApplication, definition: OpenApiDefinition, baseUrl: string, version: string): OpenAPIObject {
  const builder = new DocumentBuilder().setOpenAPIVersion('3.1.0').setTitle(definition.title).setDescription(definition.description).setVersion(version).addServer(baseUrl);
  for (const tag of definition.tags ?? []) builder.addTag(tag.name, tag.description);
  for (const [name, scheme] of Object.entries(definition.securitySchemes(baseUrl))) builder.addSecurity(name, scheme);
  return SwaggerModule.createDocument(app, builder.build(), {
    // Operation ids name the use: `ParController_par` tells a client generator nothing more than `par`.
    operationIdFactory: (controllerKey: string, methodKey: string) => `${controllerKey.replace(/Controller$/, '').replace(/^./, (first) => first.toLowerCase())}_${methodKey}`,
    extraModels: [...(definition.extraModels ?? [])] as never[],
  });
}

/**
 * Serves the document at /openapi.json and Swagger UI at /docs, its scripts and styles from the
 * swagger-ui-dist package in node_modules: the page loads nothing from another origin, and the UI's
 * online validator (which would send the document to a third party) is switched off, and so is "Try it
 * out": every request needs a client assertion, a DPoP proof or an RFC 9421 signature a browser page
 * cannot make.
 */
export function serveOpenApi(app: NestFastifyApplication, document: OpenAPIObject): void {
  SwaggerModule.setup(DOCS_PATH.slice(1), app, document, { ui: false, jsonDocumentUrl: OPENAPI_PATH.slice(1), raw: ['json'] });
  serveSwaggerUi(app.getHttpAdapter().getInstance(), DOCS_PATH, OPENAPI_PATH, document.info.title);
}
