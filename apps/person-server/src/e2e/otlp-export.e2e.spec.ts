import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtMain, runBuiltPersonServer } from '../testing/run-person-server.js';

/**
 * ADR 0050, as operators run it: the built entry point with OTEL_EXPORTER_OTLP_ENDPOINT exports the request's span
 * over OTLP/HTTP — made by the HTTP instrumentation, which main.ts lets patch `node:http` by starting tracing before
 * the service's modules load — as a child of the caller's `traceparent`, and flushes it on SIGTERM.
 * Needs `npm run build` first (the bundle, ADR 0078: the OpenTelemetry SDK is loaded with `createRequire` at run time) (`npm test` builds before testing).
 */
const built = existsSync(builtMain);
if (!built) console.warn(`skipping OTLP export test: ${builtMain} is missing`);
const describeBuilt = built ? describe : describe.skip;

const TRACE_ID = '5af92f3577b34da6a3ce929d0e0e4737';
const PARENT_ID = '10f067aa0ba902b8';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createTcpServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let receiver: Server;
let endpoint: string;
const received: { path: string | undefined; body: string }[] = [];
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'ps-otlp-'));
  receiver = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(workDir, { recursive: true, force: true });
});

describeBuilt('ADR 0050: OTLP export from the built Person Server', () => {
  it('a request with traceparent becomes an exported server span of that trace, flushed at SIGTERM', async () => {
    const port = await freePort();
    let answered: Promise<number> = Promise.resolve(0);
    const result = await runBuiltPersonServer(
      { PORT: String(port), BASE_URL: `http://localhost:${port}`, DATA_DIR: join(workDir, 'data'), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
      (pid) => {
        answered = fetch(`http://127.0.0.1:${port}/.well-known/aauth-person.json`, { headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } })
          .then((response) => response.status)
          .finally(() => process.kill(pid, 'SIGTERM'));
      },
      90_000,
    );
    expect(await answered).toBe(200);
    expect(result.code).toBe(0);
    const traces = received.filter((entry) => entry.path === '/v1/traces').map((entry) => entry.body).join('\n');
    expect(traces).toContain(TRACE_ID);
    expect(traces).toContain(PARENT_ID);
    expect(traces).toContain('@opentelemetry/instrumentation-http');
    // The request's log line names the same trace.
    const line = result.stdout.split('\n').find((entry) => entry.includes('"msg":"request"') && entry.includes('aauth-person.json'));
    expect(line).toContain(`"trace_id":"${TRACE_ID}"`);
  }, 120_000);
});
