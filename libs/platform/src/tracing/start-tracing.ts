import { createRequire } from 'node:module';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * The SDK, its OTLP exporter and the HTTP instrumentation (≈ 280 files) are loaded only when tracing is on: with
 * it off (the default) a start loaded them for nothing (≈ 0.25 s of a service's start, issue 15 item 6). These
 * packages have no `exports` map, so an ESM `import` of them loads their CommonJS `main` too: `require` gives
 * the very same module instances (one `@opentelemetry/api` global either way).
 */
const require = createRequire(import.meta.url);
function loadTracingSdk() {
  return {
    ...(require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node')),
    ...(require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')),
    ...(require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http')),
    ...(require('@opentelemetry/resources') as typeof import('@opentelemetry/resources')),
    ...(require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base')),
  };
}

export interface Tracing {
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  readonly serviceName: string;
  readonly env: NodeJS.ProcessEnv;
  /** Tests: spans go here (synchronously, no batching) instead of to OTLP. */
  readonly exporter?: SpanExporter;
}

/**
 * ADR 0050: tracing is OFF unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set,
 * or a test hands in an exporter. On, the official Node SDK exports spans over OTLP/HTTP with JSON bodies to
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces` (the OTLP exporter spec);
 * the exporter reads the other standard `OTEL_EXPORTER_OTLP_*` variables itself (headers, timeout).
 * `OTEL_SDK_DISABLED=true` wins.
 *
 * The HTTP instrumentation patches what it can reach (the services are ESM, so without the
 * `--import @opentelemetry/instrumentation/hook.mjs` loader only `node:http`'s server prototype); the server span
 * of every request is guaranteed by the platform's own hook (`traceRequests`), which reuses the instrumentation's
 * span when there is one.
 */
export function startTracing(options: StartTracingOptions): Tracing | undefined {
  const { env } = options;
  if (env['OTEL_SDK_DISABLED'] === 'true') return undefined;
  const url = tracesUrl(env);
  if (options.exporter === undefined && url === undefined) return undefined;
  const { BatchSpanProcessor, HttpInstrumentation, NodeSDK, OTLPTraceExporter, resourceFromAttributes, SimpleSpanProcessor } = loadTracingSdk();
  // The URL is resolved here from `env` (not left to the exporter's own read of process.env), so what is checked is what is used.
  const exporter = options.exporter ?? new OTLPTraceExporter({ url });
  const instrumentations = options.exporter !== undefined ? [] : [new HttpInstrumentation()];
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': env['OTEL_SERVICE_NAME'] ?? options.serviceName }),
    spanProcessors: [options.exporter !== undefined ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations,
    // Traces only: metrics stay on prom-client's /metrics, logs stay JSON on stdout.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return {
    shutdown: async () => {
      await sdk.shutdown();
      // Nothing stays patched once tracing is stopped (tests start and stop it inside one worker process).
      for (const instrumentation of instrumentations) instrumentation.disable();
    },
  };
}

function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
  if (traces !== undefined && traces !== '') return traces;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (base === undefined || base === '') return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}
