/**
 * Fault tests: real server and worker processes on PostgreSQL + Redis, with faults injected (a
 * worker killed, Redis or PostgreSQL stopped, SIGTERM under load, a read-only media directory).
 * One file at a time: they stop and start services and load the machine on purpose.
 */
export default {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.fault-spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.jest.json' }] },
  testTimeout: 180000,
  maxWorkers: 1,
};
