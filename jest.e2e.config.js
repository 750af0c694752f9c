import { readdirSync, readFileSync } from 'node:fs';

/**
 * End-to-end tests: each file starts real server processes (dist/) and talks HTTP and WebSocket.
 * The schema is migrated once per run into a template each file's database copies (globalSetup).
 * The embedded pass (E2E_MODE=embedded) leaves out the files marked `@e2e services-only`: they make
 * their own PostgreSQL + Redis backing whatever the mode, so the services pass already ran them.
 */
const SERVICES_ONLY = process.env.E2E_MODE === 'embedded'
  ? readdirSync('test/e2e').filter((f) => f.endsWith('.e2e-spec.ts') && readFileSync(`test/e2e/${f}`, 'utf8').includes('@e2e services-only'))
  : [];

export default {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/test/e2e'],
  testMatch: ['**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...SERVICES_ONLY.map((f) => `/test/e2e/${f.replace(/\./g, '\\.')}$`)],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.jest.json' }] },
  globalSetup: '<rootDir>/test/support/e2e-setup.mjs',
  globalTeardown: '<rootDir>/test/support/e2e-teardown.mjs',
  testTimeout: 60000,
  maxWorkers: 2,
};
