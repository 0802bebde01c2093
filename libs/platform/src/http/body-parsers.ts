import { PassThrough, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { InvalidRequestError, ProtocolError } from '@mission/protocol-errors';

/** What a service does with a request body sent with a `Content-Encoding` (other than `identity`). */
export type ContentCodingPolicy = 'inflate' | 'refuse';

/** Form bodies: OAuth parameters are flat strings, and a few dozen at most. */
const MAX_FORM_PARAMETERS = 200;
const AMPERSAND = 0x26;
const JSON_TYPES = /^application\/(?:[^;\s]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;
const DECODERS: Readonly<Record<string, () => NodeJS.ReadWriteStream>> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };

/** A request as these parsers leave it: the exact bytes received on `rawBody` (absent without a body). */
export type RawBodyRequest = FastifyRequest & { rawBody?: Buffer };

/**
 * Request bodies, size-capped, with the exact received bytes kept on `req.rawBody`: content digests, strict JSON
 * and the OAuth form parser read the bytes, never a re-serialisation. JSON bodies (`application/json`,
 * `application/*+json`) must parse. Form bodies are checked (charset, number of parameters) but not parsed here:
 * the one reader of forms, the issuer's OAuth form parser, must see repeated parameters (RFC 6749 §3.1), which a
 * parsed record hides, so a parse here was work for nobody (issue 15: ≈ 2.5 % of an introspection's CPU). Any
 * other type is kept as bytes for the endpoint to refuse with its own error (an OAuth endpoint says which type it
 * needs).
 *
 * With `contentCodings: 'refuse'` a coded body (gzip, deflate, br, …) is answered 415 before any decoding: a digest
 * checked against decoded bytes would be over the inflated content, not the bytes received (RFC 9530 §2; ADR 0014).
 * With `'inflate'` gzip, deflate and br are decoded (the size cap applies to the decoded bytes too).
 */
export function installBodyParsers(app: NestFastifyApplication, limitBytes: number, contentCodings: ContentCodingPolicy = 'inflate'): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeAllContentTypeParsers();
  // A callback hook, not an async one: an async hook costs every request a promise and a microtask turn for
  // what is, without a Content-Encoding, a synchronous return of the payload.
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    let decoded: Readable;
    try {
      decoded = decodedPayload(request, payload, contentCodings);
    } catch (error) {
      return done(error as Error);
    }
    done(null, decoded);
  });
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limitBytes }, (request, body, done) => {
    const raw = body as Buffer;
    (request as RawBodyRequest).rawBody = raw;
    let parsed: unknown;
    try {
      parsed = parsedBody(request.headers['content-type'] ?? '', raw);
    } catch (error) {
      return done(error as Error, undefined);
    }
    // Outside the try: `done` goes on into the route, whose own errors must not be taken for a parse error.
    done(null, parsed);
  });
}

function decodedPayload(request: FastifyRequest, payload: Readable, policy: ContentCodingPolicy): Readable {
  const coding = request.headers['content-encoding']?.trim().toLowerCase();
  if (coding === undefined || coding === '' || coding === 'identity') return payload;
  const decoder = DECODERS[coding];
  if (policy === 'refuse' || decoder === undefined) {
    throw new ProtocolError(415, 'invalid_request', 'the request body content-encoding is not supported (send the body without Content-Encoding)');
  }
  const inflating = payload.pipe(decoder());
  const decoded = new PassThrough() as PassThrough & { receivedEncodedLength?: number };
  // Fastify compares Content-Length with the coded bytes received (this property) and caps both them and the decoded bytes.
  decoded.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => (decoded.receivedEncodedLength! += chunk.length));
  payload.on('error', (error) => decoded.destroy(error));
  // Bytes that are not what the Content-Encoding says are the client's error (400), not the server's.
  inflating.on('error', (error) => decoded.destroy(new InvalidRequestError(`the request body is not valid ${coding} data`, { cause: error })));
  return inflating.pipe(decoded);
}

function parsedBody(contentType: string, raw: Buffer): unknown {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase();
  const isJson = JSON_TYPES.test(contentType);
  const isForm = !isJson && FORM_TYPE.test(contentType);
  if (!isJson && !isForm) return undefined;
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ProtocolError(415, 'invalid_request', 'the request body charset is not supported (use utf-8)');
  }
  if (isForm) return checkFormBody(raw);
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new InvalidRequestError('the request body is not valid JSON', { cause: error });
  }
}

/** A form body's bounds; its parameters are read from `rawBody` by the endpoint (`body` stays undefined). */
function checkFormBody(raw: Buffer): undefined {
  let parameters = raw.length === 0 ? 0 : 1;
  for (let index = raw.indexOf(AMPERSAND); index !== -1; index = raw.indexOf(AMPERSAND, index + 1)) parameters += 1;
  if (parameters > MAX_FORM_PARAMETERS) throw new ProtocolError(413, 'invalid_request', 'the form body has too many parameters');
  return undefined;
}
