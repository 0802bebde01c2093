/**
 * RFC 9421 signing (DESIGN 3.2) and plain HTTP/1.1 keep-alive sending, kept apart so a bench can sign
 * first and start its clock only when the bytes go out. Every signature carries a random `nonce`
 * parameter: Ed25519 is deterministic, and the Person Server's replay cache accepts each signature
 * value once, so two requests with equal content in the same second would otherwise collide.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { contentDigest, signRequest } from '@mission/http-signatures';
import { hwkSignatureKey, jwtSignatureKey, type BenchAgent, type BenchKey } from './fixture.js';

/** A request ready to send: exactly the headers and bytes that were signed. */
export interface SignedRequest {
  readonly method: string;
  /** Origin-form target, e.g. `/mission`. */
  readonly path: string;
  /** Lower-case names, without `host` (node sets it from the URL, which is the signed authority). */
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

export interface SignOptions {
  readonly method?: string;
  readonly path?: string;
  /** JSON text, sent with `Content-Type: application/json` and its `Content-Digest`. */
  readonly body?: string;
  /** Seconds; default now. */
  readonly created?: number;
}

/** The DESIGN 3.2 covered components (plus the body components with a body), label `sig`, `created` and a `nonce`. */
export function signWith(baseUrl: string, key: BenchKey, signatureKey: string, options: SignOptions = {}): SignedRequest {
  const method = options.method ?? (options.body !== undefined ? 'POST' : 'GET');
  const path = options.path ?? '/mission';
  const headers: Record<string, string> = { 'signature-key': signatureKey };
  let body: Buffer | undefined;
  if (options.body !== undefined) {
    body = Buffer.from(options.body, 'utf8');
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.byteLength);
    headers['content-digest'] = contentDigest(body);
  }
  const components = ['@method', '@authority', '@path', 'signature-key', ...(body !== undefined ? ['content-type', 'content-digest'] : [])];
  const signed = signRequest(
    { method, url: `${baseUrl}${path}`, headers },
    {
      label: 'sig',
      components,
      params: { created: options.created ?? Math.floor(Date.now() / 1000), nonce: randomBytes(12).toString('base64url') },
      alg: key.alg,
      privateKey: key.privateKey,
    },
  );
  headers['signature-input'] = signed['signature-input'];
  headers['signature'] = signed.signature;
  return { method, path, headers, ...(body !== undefined ? { body } : {}) };
}

export const signAsAgent = (baseUrl: string, agent: BenchAgent, options: SignOptions = {}): SignedRequest => signWith(baseUrl, agent.key, jwtSignatureKey(agent), options);

export const signAsPrincipal = (baseUrl: string, key: BenchKey, options: SignOptions = {}): SignedRequest => signWith(baseUrl, key, hwkSignatureKey(key), options);

/** The `status` body of spec 4.1. */
export const statusBody = (missionS256: string): string => JSON.stringify({ operation: 'status', mission_s256: missionS256 });

/** Sends signed requests over keep-alive connections (at most `maxSockets` at a time). */
export class HttpSender {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    maxSockets: number,
  ) {
    // `timeout` closes an idle socket after 4 s, before the server's 5 s keep-alive timeout: otherwise a request
    // sent on a socket the server is closing at that moment fails with ECONNRESET (seen under open-loop load,
    // where some sockets idle). Node's agent only lowers this to the server's `Keep-Alive: timeout` hint.
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 4000 });
  }

  send(request: SignedRequest): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(`${this.baseUrl}${request.path}`, { method: request.method, headers: request.headers, agent: this.agent }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }));
        incoming.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The JSON object of a reply, or a readable error naming the status and body. */
export function jsonOf(reply: Reply, expectedStatus: number, what: string): Record<string, unknown> {
  if (reply.status !== expectedStatus) throw new Error(`${what} answered ${reply.status} (expected ${expectedStatus}): ${reply.body.toString('utf8').slice(0, 300)}`);
  return JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
}
