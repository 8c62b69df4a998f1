// Test runner settings: every suite starts its own loopback servers, so files may run in parallel.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The order of the suites that ask for shuffling (describe.shuffle: the contract suites), the same on every run so
    // that a test leaning on another fails every time, not by luck. This seed puts every test of a list of up to 40 out
    // of its written place. Try others with --sequence.seed=N.
    sequence: { seed: 878 },
    // Every run checks that the tests leave nothing behind in the temporary directory.
    globalSetup: ['test/global-temp-check.ts'],
  },
});
