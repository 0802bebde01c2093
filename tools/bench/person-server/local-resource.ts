/**
 * A resource's revocation endpoint on 127.0.0.1 that answers `200` at once (the "local resource that
 * answers at once" of the revocation section). It records when each `(iss, jti)` was first called.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class LocalRevocationEndpoint {
  /** jti → monotonic ms of the first call. */
  readonly firstCallAt = new Map<string, number>();
  calls = 0;
  private server: Server | undefined;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/revoke`;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.calls++;
        try {
          const { jti } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { jti?: unknown };
          if (typeof jti === 'string' && !this.firstCallAt.has(jti)) this.firstCallAt.set(jti, performance.now());
        } catch {
          // counted, not recorded
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    server.keepAliveTimeout = 30_000;
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
