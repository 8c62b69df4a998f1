// Test runner settings: every suite starts its own loopback servers, so files may run in parallel.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run in this many forks at once: two more than the cores. Vitest's default (cores - 1) ran the files one
 * at a time on a 2-core machine: 824 s. Most of an e2e file's time is spent waiting on child processes, sockets and
 * timers rather than on the CPU, so forks beyond the cores pay: on that machine, with the files sharing their fork's
 * modules (below), 3 forks took 239-240 s and 4 forks 221-228 s, every file passing. Override with --maxWorkers=N.
 */
const WORKERS = Math.max(2, availableParallelism() + 2);

const TEST_FILES = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts'))
  .map((path) => `test/${path.replaceAll('\\', '/')}`);

/**
 * The files that replace a module with vi.mock: the replacement must not leak into another file, so each runs in a
 * module cache of its own. Every other file shares its fork's cache with the files that ran there before it: the
 * registry, zod, the SDK and the sandbox are loaded once per fork instead of once per file (about 0.8 s of CPU each,
 * 328 files), which took vitest on a 2-core machine from 400 s to about 240 s. A file that changes a module's state
 * must put it back (afterEach/afterAll), as it must for the next test of its own file anyway.
 */
const MOCKING_FILES = TEST_FILES.filter((path) => /\bvi\.(mock|doMock)\(/.test(readFileSync(path, 'utf8')));

/** What every file gets, shared or isolated. */
const COMMON = {
  testTimeout: 20_000,
  hookTimeout: 30_000,
  pool: 'forks',
  // The order of the suites that ask for shuffling (describe.shuffle: the contract suites), the same on every run so
  // that a test leaning on another fails every time, not by luck. This seed puts every test of a list of up to 40 out
  // of its written place. Try others with --sequence.seed=N.
  sequence: { seed: 878 },
} as const;

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    // Every run checks that the tests leave nothing behind in the temporary directory: set up once for the whole run,
    // so the projects below do not extend this configuration (they would each run it again).
    globalSetup: ['test/global-temp-check.ts'],
    projects: [
      { test: { ...COMMON, name: 'shared', include: TEST_FILES, exclude: MOCKING_FILES, isolate: false } },
      { test: { ...COMMON, name: 'isolated', include: MOCKING_FILES, isolate: true } },
    ],
  },
});
