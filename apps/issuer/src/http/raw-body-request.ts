import type { FastifyRequest } from 'fastify';

/** A request as the platform's body parsers leave it: the exact bytes received on `rawBody` (absent without a body). */
export type RawBodyRequest = FastifyRequest & { rawBody?: Buffer };
