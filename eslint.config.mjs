import nx from '@nx/eslint-plugin';
import { missionLintPlugin } from './tools/lint/app-layers.mjs';

/**
 * Architecture rules (enforced, not advisory):
 * - type:domain is pure: no framework, no IO, no adapters, no app code — only other domain/util code.
 * - type:application (es-kit, use cases) may use the store port but not Nest or the drivers directly.
 * - scope:<service> code never imports the other service's code; shared code imports no service code.
 */
const DOMAIN_BANNED_PACKAGES = [
  '@nestjs/*', 'express', 'better-sqlite3', '@eventstore/*', '@kurrent/*', '@grpc/*', 'pino', 'prom-client',
  'class-validator', 'class-transformer', 'rxjs', 'jose',
];
const IO_MODULES = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'dgram', 'child_process', 'cluster', 'worker_threads', 'tls', 'dns']
  .flatMap((name) => [name, `node:${name}`]);

/**
 * Folder layers inside each app, lowest first (tools/lint/app-layers.mjs, docs/architecture.md). Enabling the
 * rule for another app is one entry here. The Person Server is not listed yet: its restructuring (issue 13,
 * PS half) comes first, then `'apps/person-server/src': [...]`.
 */
const APP_LAYERS = {
  'apps/issuer/src': [
    ['config'],
    ['errors', 'http', 'clients', 'consent', 'metadata'],
    ['oauth'],
    ['lineage', 'evidence', 'read-models'],
    ['tokens', 'use-cases/shared'],
    ['use-cases/*', 'background'],
    ['endpoints'],
    ['metrics'],
    ['.'],
    ['testing'],
  ],
  // ADR 0032: the Person Server's folders, lowest first.
  'apps/person-server/src': [
    ['time'],
    ['identity'],
    ['config'],
    ['errors'],
    ['http'],
    ['abuse'],
    ['store'],
    ['tokens'],
    ['auth'],
    ['lifecycle'],
    ['revocation'],
    ['use-cases/shared'],
    ['use-cases/*'],
    ['endpoints', 'metadata'],
    ['metrics'],
    ['.'],
    ['testing'],
  ],
};

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/node_modules', 'data/**', 'coverage/**', '.nx/**', 'tmp/**', 'test-output/**', 'apps/person-server/console/build/**', 'apps/issuer/operator/build/**'],
  },
  {
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allowCircularSelfDependency: false,
          banTransitiveDependencies: false,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:platform', 'type:feature', 'type:application', 'type:data-access', 'type:domain', 'type:util'] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:application', 'type:data-access', 'type:domain', 'type:util'] },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:platform', 'type:application', 'type:data-access', 'type:domain', 'type:util'] },
            { sourceTag: 'type:application', onlyDependOnLibsWithTags: ['type:data-access', 'type:domain', 'type:util'] },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:domain', 'type:util'] },
            {
              sourceTag: 'type:domain',
              onlyDependOnLibsWithTags: ['type:domain', 'type:util'],
              bannedExternalImports: DOMAIN_BANNED_PACKAGES,
            },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['*'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:issuer', onlyDependOnLibsWithTags: ['scope:issuer', 'scope:shared'] },
            { sourceTag: 'scope:person-server', onlyDependOnLibsWithTags: ['scope:person-server', 'scope:shared'] },
            { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['*'] },
          ],
        },
      ],
    },
  },
  {
    // Domain code decides; it never performs IO, even through Node's own modules.
    files: ['libs/decider/src/**/*.ts', 'libs/*-domain/src/**/*.ts', 'libs/*/domain/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: IO_MODULES.map((name) => ({ name, message: 'domain code performs no IO' })), patterns: ['@nestjs/*'] }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'domain code performs no IO' }],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'time comes in the command' }],
    },
  },
  {
    // strict TypeScript already makes every `!` a visible, reviewed decision.
    files: ['**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Apps are layered inside like the libraries: imports point down, no folder circles.
    files: ['apps/*/src/**/*.ts'],
    plugins: { mission: missionLintPlugin },
    rules: { 'mission/app-layers': ['error', { apps: APP_LAYERS }] },
  },
];
