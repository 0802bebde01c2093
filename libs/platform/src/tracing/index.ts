// `@mission/platform/tracing`: importable before the rest of the platform (and so before Nest, Express and
// `node:http` users are loaded), which the HTTP instrumentation needs to patch them (ADR 0050).
export { startTracing, type StartTracingOptions, type Tracing } from './start-tracing.js';
