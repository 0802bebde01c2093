import 'reflect-metadata';
import { startTracing } from '@mission/platform/tracing';

// Tracing starts before the service's modules are loaded, so the HTTP instrumentation can patch `node:http` (ADR 0050).
const tracing = startTracing({ serviceName: 'person-server', env: process.env });
const { start } = await import('./start.js');
await start(tracing);
