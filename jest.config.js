/** Tests are transpiled only (swc); `npm run typecheck` type-checks once for the whole tree. */
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // Tests use the client's sources, as tsc does (tsconfig.json `paths`); plain Node runs its build.
  moduleNameMapper: { '^@video-automation/client$': '<rootDir>/client/src/index.ts' },
};

/**
 * Integration files spend most of their time waiting on the local stack (renders, retries,
 * polls), so one worker more than the cores keeps the CPUs busy; a few more would only crowd the
 * one stack they share.
 */
const workers = Math.min(4, require('node:os').availableParallelism() + 1);

module.exports = {
  testTimeout: 60000,
  maxWorkers: workers,
  testSequencer: '<rootDir>/test/sequencer.js',
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/test/unit', '<rootDir>/test/local'],
      setupFiles: ['<rootDir>/test/unit/support/quiet-metrics.ts'],
    },
    { ...shared, displayName: 'infra', roots: ['<rootDir>/test/infra'] },
    {
      ...shared,
      displayName: 'integration',
      roots: ['<rootDir>/test/integration'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/integration/support/close-clients.ts'],
    },
  ],
};
