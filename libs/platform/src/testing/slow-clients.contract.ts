/**
 * Issue 15 item 7 (ADR 0056): a client that sends half a request, drip-feeds a body, idles on a keep-alive
 * connection, or opens connection after connection is cut by the service — checked with real sockets against
 * the real app, with small limits so that no test waits for the defaults.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningService } from '../bootstrap/bootstrap-service.js';
import type { LogLine } from './service-harness.js';

export interface SlowClientContractOptions {
  readonly serviceName: string;
  readonly start: (dataDir: string, env: Record<string, string>) => Promise<{ service: RunningService; logs: LogLine[] }>;
  /** A path that answers a GET (the health probe). */
  readonly getPath?: string;
}

/** Small limits, so each cut comes within about a second; the defaults would hold these sockets for 10 s and more. */
const LIMITS = { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600', HTTP_KEEP_ALIVE_TIMEOUT_MS: '300', HTTP_MAX_CONNECTIONS_PER_SOURCE: '4' };

interface OpenSocket {
  readonly socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  readonly closed: Promise<string>;
}

function open(port: number): Promise<OpenSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** True when the server has not closed the socket after a round trip on the same connection. */
async function stillOpen(connection: OpenSocket, port: number): Promise<boolean> {
  // A second, unrelated round trip: by then the server has handled whatever it would do with the first socket's connect.
  const probe = await open(port);
  probe.socket.end('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await probe.closed;
  return !connection.socket.destroyed && connection.socket.readyState === 'open';
}

export function describeSlowClientContract(options: SlowClientContractOptions): void {
  const getPath = options.getPath ?? '/healthz';

  describe(`${options.serviceName}: slow clients are cut (issue 15 item 7, ADR 0056)`, () => {
    let dataDir: string;
    let service: RunningService;
    const sockets: Socket[] = [];
    const track = async (port: number): Promise<OpenSocket> => {
      const connection = await open(port);
      sockets.push(connection.socket);
      return connection;
    };

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), `${options.serviceName}-slow-`));
      ({ service } = await options.start(dataDir, LIMITS));
    }, 60_000);
    afterEach(() => sockets.splice(0).forEach((socket) => socket.destroy()));
    afterAll(async () => {
      await service?.stop('tests finished');
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers 408 and closes a connection that sent only half of the request head', async () => {
      const connection = await track(service.port);
      connection.socket.write(`GET ${getPath} HTTP/1.1\r\nHost: x\r\n`);
      expect(await connection.closed).toMatch(/^HTTP\/1\.1 408 /);
    }, 20_000);

    it('answers 408 and closes a connection whose body never completes', async () => {
      const connection = await track(service.port);
      connection.socket.write('POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":');
      expect(await connection.closed).toMatch(/^HTTP\/1\.1 408 /);
    }, 20_000);

    it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
      const connection = await track(service.port);
      connection.socket.write(`GET ${getPath} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const received = await connection.closed;
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      // Node announces whole seconds: 0 for the 300 ms configured here (its default would say 5).
      expect(received).toMatch(/\r\nkeep-alive: timeout=0\r\n/i);
    }, 20_000);

    describe('the per-source cap', () => {
      // A service of its own with long timeouts: under the 300 ms head timeout above, a loaded machine (a CI run) could
      // let the held connections time out before the test looked at them. Here only the cap may close anything.
      let capped: RunningService;
      let cappedDir: string;
      beforeAll(async () => {
        cappedDir = mkdtempSync(join(tmpdir(), `${options.serviceName}-capped-`));
        ({ service: capped } = await options.start(cappedDir, { ...LIMITS, HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '60000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000' }));
      }, 60_000);
      afterAll(async () => {
        await capped?.stop('tests finished');
        rmSync(cappedDir, { recursive: true, force: true });
      });

      it('refuses connections beyond the per-source cap and accepts again once one closed', async () => {
        const held = [await track(capped.port), await track(capped.port), await track(capped.port), await track(capped.port)];
        for (const connection of held) connection.socket.write('G');
        const extra = await track(capped.port);
        expect(await extra.closed).toBe('');
        expect(await stillOpen(held[0]!, capped.port)).toBe(true);
        held[3]!.socket.destroy();
        await held[3]!.closed;
        const again = await track(capped.port);
        again.socket.write(`GET ${getPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        expect(await again.closed).toMatch(/^HTTP\/1\.1 200 /);
      }, 20_000);
    });
  });
}
