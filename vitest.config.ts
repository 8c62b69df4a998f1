// Test runner settings: every suite starts its own loopback servers, so files may run in parallel.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run in this many forks at once. Vitest's default (cores - 1) ran the files one at a time on a 2-core
 * machine: 824 s. Most of an e2e file's time is spent waiting on child processes, sockets and timers rather than on the
 * CPU, so more forks than cores pays: 3 forks took that machine to 386 s with every file passing. Twice the cores
 * (4 on 2 cores) keeps both cores busy while half the files wait; past cores + 4 a big machine gains little but
 * memory (each fork holds its own registry and sandbox). Override with --maxWorkers=N.
 */
const cores = availableParallelism();
const WORKERS = Math.max(2, Math.min(cores * 2, cores + 4));

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
