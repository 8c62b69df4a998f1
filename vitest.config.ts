// Test runner settings: every suite starts its own loopback servers, so files may run in parallel.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every run checks that the tests leave nothing behind in the temporary directory.
    globalSetup: ['test/global-temp-check.ts'],
  },
});
