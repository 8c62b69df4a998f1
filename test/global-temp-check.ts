// Vitest global setup: the whole run gets a temporary directory of its own, and must leave it empty.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let runDir: string | undefined;

export function setup(): void {
  runDir = mkdtempSync(join(tmpdir(), 'forgeops-test-run-'));
  // Test workers and the CLIs they spawn inherit this, so everything they put in "the" temp directory lands here.
  process.env.TMPDIR = runDir;
}

/**
 * A sandbox's per-process caches (`forgeops-seed-<pid>-…`, `forgeops-sandbox-<pid>-…`) go with their process's exit,
 * and the next sandbox removes those of processes that died without one, as test workers do; the demo repositories'
 * cache (`forgeops-<uid>/sandbox-seed`, src/sandbox/core/seed-cache.ts) is the run's to share between its sandboxes.
 * The run directory is removed below in any case. Anything else left behind is a test or a module that does not clean up.
 */
function expected(name: string): boolean {
  return /^forgeops-(?:seed|sandbox)-\d+-/.test(name) || name === `forgeops-${process.getuid?.()}`;
}

export function teardown(): void {
  if (!runDir) return;
  const left = readdirSync(runDir).filter((name) => !expected(name));
  rmSync(runDir, { recursive: true, force: true });
  if (left.length > 0) {
    // vitest reports an error thrown here but exits 0 all the same: the exit status says it too.
    process.exitCode = 1;
    throw new Error(`the tests left ${left.length} entries in the temporary directory: ${left.join(', ')}`);
  }
}
