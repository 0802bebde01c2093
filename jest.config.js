/**
 * One Jest run for the whole workspace, in ESM mode: Nest 12 is ESM-only and Jest's CommonJS mode
 * cannot load it on Node 20 (../shared/notes/toolchain.md). Run through `npm run test:unit`, which sets
 * --experimental-vm-modules. Workspace libraries are mapped to their sources so tests never need a build.
 * Two projects: `unit` (every *.spec.ts) and `browser` (*.browser.spec.ts, real headless Chromium, ADR 0041),
 * whose global setup installs Chromium when missing and bundles the console; it runs only when a browser spec does.
 */
const shared = {
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^@mission/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^@mission/([a-z-]+)/testing$': '<rootDir>/libs/$1/src/testing/index.ts',
    '^@mission/event-store/eventstoredb$': '<rootDir>/libs/event-store/src/eventstoredb/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
};

export default {
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.cjs'],
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/tools'],
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns, '\\.browser\\.spec\\.ts$'],
    },
    {
      ...shared,
      displayName: 'browser',
      roots: ['<rootDir>/apps'],
      testMatch: ['**/*.browser.spec.ts'],
      globalSetup: '<rootDir>/tools/jest/browser-global-setup.mjs',
    },
  ],
};
