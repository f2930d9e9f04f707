import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    // Two cores: running files in parallel past two only adds contention for terraform and opa.
    maxWorkers: 2,
  },
});
