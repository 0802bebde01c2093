import type { Server } from 'node:http';

const IDLE_SWEEP_MS = 100;

/**
 * Stops accepting connections and waits for requests in flight to finish, closing keep-alive
 * connections as soon as they fall idle. After `timeoutMs` whatever is still open is cut.
 * Resolves with whether connections had to be cut that way.
 */
export function drainHttpServer(server: Server, timeoutMs: number): Promise<{ forced: boolean }> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve({ forced: false });
      return;
    }
    let forced = false;
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      forced = true;
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve({ forced });
    });
    server.closeIdleConnections();
  });
}
