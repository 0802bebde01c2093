import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the fake resource's revocation endpoint behaves. `refuse` closes the port (connection refused). */
export type FakeResourceMode = 'ok' | 'fail' | 'hang' | 'refuse';

export interface RevocationCall {
  readonly iss: string;
  readonly jti: string;
  readonly signed: boolean;
  readonly signatureKey?: string;
  /** The W3C `traceparent` the call carried (ADR 0050). */
  readonly traceparent?: string;
  readonly at: number;
}

/**
 * A resource's `revocation_endpoint` on 127.0.0.1 for tests and benchmarks: answers `200` (ok), `500`
 * (fail), never (hang), or refuses connections (refuse: the listening socket is closed and reopened on
 * the same port when the mode changes back). Every call that reached it is kept.
 */
export class FakeResource {
  readonly calls: RevocationCall[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private current: FakeResourceMode = 'ok';

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}/revoke`;
  }

  get mode(): FakeResourceMode {
    return this.current;
  }

  async start(mode: FakeResourceMode = 'ok'): Promise<void> {
    await this.listen();
    await this.setMode(mode);
  }

  async setMode(mode: FakeResourceMode): Promise<void> {
    this.current = mode;
    if (mode === 'refuse') await this.close();
    else if (this.server === undefined) await this.listen();
  }

  /** Calls per jti. */
  callsFor(jti: string): number {
    return this.calls.filter((call) => call.jti === jti).length;
  }

  async stop(): Promise<void> {
    await this.close();
  }

  private listen(): Promise<void> {
    const server = createServer((request, response) => void this.handle(request, response));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      // recorded with empty identity
    }
    const signatureKey = request.headers['signature-key'];
    this.calls.push({
      iss: String(body['iss'] ?? ''),
      jti: String(body['jti'] ?? ''),
      signed: typeof request.headers['signature'] === 'string' && typeof request.headers['signature-input'] === 'string',
      ...(typeof signatureKey === 'string' ? { signatureKey } : {}),
      ...(typeof request.headers['traceparent'] === 'string' ? { traceparent: request.headers['traceparent'] } : {}),
      at: Date.now(),
    });
    switch (this.current) {
      case 'ok':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      case 'fail':
        response.writeHead(500).end();
        return;
      default:
        // hang: never answer (the socket is destroyed on close)
        return;
    }
  }
}
