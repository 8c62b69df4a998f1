// Test runner settings: every suite starts its own loopback servers, so files may run in parallel.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run in this many forks at once: one more than the cores. Vitest's default (cores - 1) ran the files one
 * at a time on a 2-core machine: 824 s. Most of an e2e file's time is spent waiting on child processes, sockets and
 * timers rather than on the CPU, so a fork more than the cores pays: 3 forks took that machine to 386 s with every
 * file passing. 4 to 6 forks could not be compared fairly on that machine (it ran at load 16-20 from other work), and
 * the imports alone (0.8 s of CPU per file) keep two cores busy, so more forks would mostly add contention and the
 * risk of timeouts. Override with --maxWorkers=N.
 */
const WORKERS = Math.max(2, availableParallelism() + 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: WORKERS,
    // The order of the suites that ask for shuffling (describe.shuffle: the contract suites), the same on every run so
    // that a test leaning on another fails every time, not by luck. This seed puts every test of a list of up to 40 out
    // of its written place. Try others with --sequence.seed=N.
    sequence: { seed: 878 },
    // Every run checks that the tests leave nothing behind in the temporary directory.
    globalSetup: ['test/global-temp-check.ts'],
  },
});
