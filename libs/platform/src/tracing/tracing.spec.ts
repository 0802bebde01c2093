import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Body, Controller, Inject, Module, Post, Req } from '@nestjs/common';
import { handleCommand } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { bootstrapService, type RunningService } from '../bootstrap/bootstrap-service.js';
import type { ServiceDefinition } from '../bootstrap/service-definition.js';
import { object, string } from '../config/schema.js';
import { traceLogFields } from '../logging/create-logger.js';
import { EVENT_STORE, LOGGER } from '../tokens.js';
import { startTracing } from './start-tracing.js';
import { requestTraceOf } from './trace-requests.js';

/**
 * ADR 0050 at the platform: the W3C `traceparent` and the request id reach the metadata of the events a request
 * appends and the log lines written for it — with tracing OFF (no SDK: the caller's trace id is passed on),
 * which is every test in this file until the last, which turns the SDK on against an in-test OTLP/HTTP receiver.
 * The controller hands the trace down the way the services' controllers do (ADR 0082): `requestTraceOf(request)`
 * into the command's context, `traceLogFields` into its log lines.
 */
const noteDecider = {
  initialState: null,
  decide: (command: { text: string }) => [{ type: 'NoteTaken', data: { text: command.text } }],
  evolve: (state: null) => state,
};

@Controller('notes')
class NotesController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore, @Inject(LOGGER) private readonly logger: Logger) {}

  @Post()
  async take(@Body() body: { id: string; text: string }, @Req() request: FastifyRequest): Promise<unknown> {
    const trace = requestTraceOf(request);
    const logger = this.logger.child(traceLogFields(trace));
    logger.info({ note: body.id }, 'taking a note');
    // A tick later: each request keeps its own trace across awaits while others run.
    await new Promise((resolve) => setImmediate(resolve));
    await handleCommand(this.store, `note-${body.id}`, noteDecider, { text: body.text }, { correlationId: 'c', causationId: `note:${body.id}`, actor: { id: 'tester', role: 'client' }, now: new Date(), trace });
    logger.info({ note: body.id }, 'note taken');
    return { ok: true };
  }
}

@Module({ controllers: [NotesController] })
class NotesModule {}

const definition: ServiceDefinition<{ greeting: string }> = {
  name: 'trace-test',
  module: NotesModule,
  defaults: { port: 4998, dataDir: './data/trace-test', configFile: 'config/trace-test.json' },
  configSchema: object({ greeting: string() }, { unknownKeys: 'warn' }),
};

type LogLine = Record<string, unknown> & { msg: string };
let workDir: string;
let service: RunningService;
const lines: LogLine[] = [];

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'trace-test-'));
  const configFile = join(workDir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ greeting: 'hi' }));
  service = await bootstrapService(definition, {
    env: { PORT: '0', BASE_URL: 'http://trace.example', DATA_DIR: join(workDir, 'data'), CONFIG_FILE: configFile },
    logDestination: { write: (chunk: string) => void lines.push(JSON.parse(chunk) as LogLine) },
  });
});

afterAll(async () => {
  await service.stop('tests finished');
  rmSync(workDir, { recursive: true, force: true });
});

async function post(id: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${service.listenUrl}/notes`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ id, text: 'x' }) });
}

async function metadataOf(id: string): Promise<Record<string, unknown>> {
  const store = service.app.get<EventStore>(EVENT_STORE);
  for await (const event of store.readStream(`note-${id}`)) return event.metadata;
  throw new Error('no event');
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('ADR 0050: request trace in event metadata and log lines', () => {
  it('tracing off: the caller\'s traceparent and X-Request-Id land in the event metadata and in the log lines of the request', async () => {
    const response = await post('a', { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, 'x-request-id': 'req-a' });
    expect(response.status).toBe(201);
    expect(await metadataOf('a')).toMatchObject({ request_id: 'req-a', trace_id: TRACE_ID, span_id: PARENT_ID, trace_flags: 1, correlation_id: 'c', causation_id: 'note:a' });
    const ofRequest = lines.filter((line) => line['note'] === 'a' || line['request_id'] === 'req-a');
    expect(ofRequest.map((line) => line.msg)).toEqual(['taking a note', 'note taken', 'request']);
    for (const line of ofRequest) expect(line).toMatchObject({ request_id: 'req-a' });
    for (const line of ofRequest) expect(line).toMatchObject({ trace_id: TRACE_ID, span_id: PARENT_ID });
  });

  it('a malformed traceparent is ignored (W3C: start a new trace), a generated request id is used and answered', async () => {
    const response = await post('b', { traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01` });
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const metadata = await metadataOf('b');
    expect(metadata['request_id']).toBe(requestId);
    expect(metadata).not.toHaveProperty('trace_id');
  });

  it('two requests at once keep their own traces (no cross-talk through the shared store or logger)', async () => {
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    await Promise.all([post('c', { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` }), post('d', { traceparent: `00-${other}-${PARENT_ID}-01` })]);
    expect((await metadataOf('c'))['trace_id']).toBe(TRACE_ID);
    expect((await metadataOf('d'))['trace_id']).toBe(other);
  });

  it('tracing on: spans reach an OTLP/HTTP receiver as POST /v1/traces, the server span a child of the caller\'s span', async () => {
    const received: { path: string | undefined; contentType: string | undefined; body: Buffer }[] = [];
    const receiver: Server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ path: request.url, contentType: request.headers['content-type'], body: Buffer.concat(chunks) });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const tracing = startTracing({ serviceName: 'trace-test', env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
    expect(tracing).toBeDefined();
    try {
      const response = await post('e', { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
      expect(response.status).toBe(201);
      const metadata = await metadataOf('e');
      expect(metadata['trace_id']).toBe(TRACE_ID);
      // Our own span now: a child of the caller's.
      expect(metadata['span_id']).not.toBe(PARENT_ID);
    } finally {
      await tracing!.shutdown(); // flushes the batch
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
    const traces = received.filter((entry) => entry.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const text = traces.map((entry) => entry.body.toString('utf8')).join('\n');
    // OTLP/JSON carries ids as hex strings.
    expect(text).toContain(TRACE_ID);
    expect(text).toContain(PARENT_ID);
    expect(text).toContain('POST /notes');
  });

  it('tracing stays off without an endpoint, and OTEL_SDK_DISABLED wins over one', () => {
    expect(startTracing({ serviceName: 'x', env: {} })).toBeUndefined();
    expect(startTracing({ serviceName: 'x', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_SDK_DISABLED: 'true' } })).toBeUndefined();
  });
});
