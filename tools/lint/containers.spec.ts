/**
 * Issue 18 (ADR 0054): no Docker engine runs here, so the one Dockerfile is linted (dockerfile-utils, the validator
 * behind the VS Code Docker language server) and checked against the project's own rules, and docker-compose.yml is
 * checked for what would otherwise only fail on `docker compose up`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate } from 'dockerfile-utils';
import { parse } from 'yaml';
import { EVENT_STORE_CONNECTION_STRING } from '@mission/event-store';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dockerfile = readFileSync(resolve(root, 'Dockerfile'), 'utf8');
const lint = (content: string) => validate(content).map((diagnostic) => `${diagnostic.range.start.line + 1}: ${diagnostic.message}`);
const apps = readdirSync(resolve(root, 'apps')).filter((name) => existsSync(resolve(root, 'apps', name, 'src/main.ts')));

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  volumes?: string[];
  profiles?: string[];
}
const compose = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };

describe('Dockerfile (ADR 0054)', () => {
  it('lints clean (no error, no warning)', () => {
    expect(lint(dockerfile)).toEqual([]);
  });

  it('the linter bites: a broken Dockerfile is reported (so a clean result means something)', () => {
    expect(lint('FROM node:22\nCOPY onlyone\nHEALTHCHECK --interval=abc CMD true\nFROM alpine AS x\nFROM alpine AS x\n').length).toBeGreaterThanOrEqual(3);
  });

  it('is the only one: the per-app copies are gone', () => {
    for (const app of readdirSync(resolve(root, 'apps'))) expect([app, existsSync(resolve(root, 'apps', app, 'Dockerfile'))]).toEqual([app, false]);
  });

  it('builds on Node 22 LTS, takes ARG APP in every stage that uses it, and runs as a non-root user', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    const stages = dockerfile.split(/^FROM /m).slice(1);
    for (const stage of stages.filter((text) => text.includes('${APP}'))) expect(stage).toMatch(/^ARG APP$/m);
    const runtime = stages.at(-1)!;
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK /m);
  });
});

describe('docker-compose.yml (ADR 0054)', () => {
  const services = compose.services;
  const built = Object.entries(services).filter(([, service]) => service.build !== undefined);

  it('builds both services from the one Dockerfile with APP naming an app', () => {
    expect(built.map(([name]) => name).sort()).toEqual(['issuer', 'person-server']);
    for (const [name, service] of built) {
      expect(service.build).toMatchObject({ context: '.', dockerfile: 'Dockerfile', args: { APP: name } });
      expect(apps).toContain(service.build!.args!['APP']);
    }
  });

  it('runs KurrentDB (not EventStoreDB 24.10) and connects with kurrentdb:// strings the services accept', () => {
    expect(services['kurrentdb']?.image).toMatch(/^kurrentplatform\/kurrentdb:2[6-9]\./);
    for (const [, service] of built) expect(EVENT_STORE_CONNECTION_STRING.test(service.environment!['EVENTSTORE_CONNECTION_STRING']!)).toBe(true);
  });

  it('the observability profile: collector, Jaeger and Prometheus, scraping each service on its MANAGEMENT_PORT', () => {
    for (const name of ['otel-collector', 'jaeger', 'prometheus']) expect(services[name]?.profiles).toEqual(['observability']);
    const prometheus = parse(readFileSync(resolve(root, 'tools/compose/prometheus.yml'), 'utf8')) as { scrape_configs: { static_configs: { targets: string[] }[] }[] };
    const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((config) => config.targets)).sort();
    expect(targets).toEqual(built.map(([name, service]) => `${name}:${service.environment!['MANAGEMENT_PORT']}`).sort());
  });

  it('every file mounted into a container exists in the repository', () => {
    for (const service of Object.values(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./')) expect([source, existsSync(resolve(root, source))]).toEqual([source, true]);
      }
    }
  });
});
