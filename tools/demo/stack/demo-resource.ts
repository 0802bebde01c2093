/**
 * The demo resource `https://files.example` of config/person-server.json, played locally: its
 * `revocation_endpoint` (spec 4.4 of mission-management) records every `{iss, jti}` the Person Server
 * sends, and answers 200. Listens on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';

export interface Revocation {
  readonly iss: string;
  readonly jti: string;
  readonly signed: boolean;
}

export class DemoResource {
  readonly revocations: Revocation[] = [];
  private server: Server | undefined;

  constructor(readonly port: number) {}

  get revocationEndpoint(): string {
    return `http://127.0.0.1:${this.port}/revoke`;
  }

  start(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { iss?: unknown; jti?: unknown };
          this.revocations.push({ iss: String(body.iss), jti: String(body.jti), signed: typeof request.headers['signature'] === 'string' });
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch {
          response.writeHead(400).end();
        }
      });
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
