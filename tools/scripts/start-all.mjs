#!/usr/bin/env node
/**
 * `npm start`: runs the issuer and the Person Server side by side on their defaults (DESIGN 5).
 *
 * - Output of each service is forwarded line by line, prefixed with `[issuer]` / `[person-server]`.
 * - SIGINT / SIGTERM are forwarded to both; a second signal kills them.
 * - If one service exits on its own, the other is stopped and this script exits non-zero.
 *
 * Variables that must differ between the two (PORT, BASE_URL, DATA_DIR, CONFIG_FILE, SIGNING_KEY_FILE)
 * are given per service with a prefix, e.g. `ISSUER_PORT=5000 PERSON_SERVER_PORT=5001 npm start`;
 * everything else (LOG_LEVEL, EVENTSTORE_CONNECTION_STRING, …) is passed to both.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PER_SERVICE = ['PORT', 'BASE_URL', 'DATA_DIR', 'CONFIG_FILE', 'SIGNING_KEY_FILE'];
const SERVICES = [
  { name: 'issuer', prefix: 'ISSUER_', main: 'apps/issuer/dist/bundle/main.mjs' },
  { name: 'person-server', prefix: 'PERSON_SERVER_', main: 'apps/person-server/dist/bundle/main.mjs' },
];

function log(message) {
  process.stderr.write(`[start-all] ${message}\n`);
}

const missing = SERVICES.filter((service) => !existsSync(join(root, service.main)));
if (missing.length > 0) {
  log(`not built: ${missing.map((service) => service.main).join(', ')}; run \`npm run build\` first (or use \`npm start\`)`);
  process.exit(1);
}
const shared = PER_SERVICE.filter((name) => process.env[name] !== undefined);
if (shared.length > 0) {
  log(`ignoring ${shared.join(', ')}: both services would get the same value; set ISSUER_<NAME> / PERSON_SERVER_<NAME> instead`);
}

function environmentFor(service) {
  const env = { ...process.env };
  for (const name of PER_SERVICE) {
    delete env[name];
    const specific = process.env[`${service.prefix}${name}`];
    if (specific !== undefined) env[name] = specific;
  }
  return env;
}

function forwardLines(stream, target, prefix) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => target.write(`${prefix} ${line}\n`));
}

let shuttingDown = false;
let exitCode = 0;
const running = new Map();

for (const service of SERVICES) {
  // detached: a terminal Ctrl-C reaches this script only; the services hear it once, from stopAll.
  const child = spawn(process.execPath, [service.main], { cwd: root, env: environmentFor(service), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.set(service.name, child);
  forwardLines(child.stdout, process.stdout, `[${service.name}]`);
  forwardLines(child.stderr, process.stderr, `[${service.name}]`);
  child.on('error', (error) => {
    log(`${service.name} could not be started: ${error.message}`);
    exitCode = 1;
    stopAll('SIGTERM');
  });
  child.on('exit', (code, signal) => {
    running.delete(service.name);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!shuttingDown) {
      log(`${service.name} exited unexpectedly (${how}); stopping the others`);
      exitCode = 1;
      stopAll('SIGTERM');
    } else if (code !== 0) {
      log(`${service.name} exited with ${how} during shutdown`);
      exitCode = 1;
    }
    if (running.size === 0) process.exit(exitCode);
  });
}

function stopAll(signal) {
  shuttingDown = true;
  for (const child of running.values()) child.kill(signal);
}

/** `npm start` forwards the terminal's Ctrl-C that this script also received directly: ignore that echo. */
const DUPLICATE_SIGNAL_WINDOW_MS = 1000;
let firstSignalAt;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (firstSignalAt !== undefined && Date.now() - firstSignalAt < DUPLICATE_SIGNAL_WINDOW_MS) return;
    firstSignalAt ??= Date.now();
    if (shuttingDown) {
      log(`second ${signal}: killing the services`);
      exitCode = 1;
      stopAll('SIGKILL');
      return;
    }
    log(`${signal}: stopping the services`);
    stopAll(signal);
  });
}
