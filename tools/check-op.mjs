// `npm run check:op <name>`: runs exactly the tests one operation touches — its area's contract suite (and its own,
// for a composed one), its rows of the registry, safety-decision, readable-answers and schema snapshot tests, the
// interop suites when it is beyond the spec, the derived area lists and the architecture test — printing each command.
// `--dry-run` prints them only. The registry is read from src/ (bundled on the fly), so no build is needed first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The registry as src/ has it now: bundled by esbuild into a temporary module (node cannot import .ts itself). */
async function currentOperations() {
  const { build } = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'check-op-'));
  try {
    const outfile = join(dir, 'registry.mjs');
    await build({
      entryPoints: [join(root, 'src/operations/index.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'error',
    });
    return (await import(pathToFileURL(outfile).href)).operations;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How far apart two names are (edits of one character). */
function distance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** The names closest to a mistyped one: sharing a word with it or a few edits away, nearest first. */
export function nearNames(name, names, max = 6) {
  const words = new Set(name.split('_'));
  return names
    .map((candidate) => ({
      candidate,
      score: distance(name, candidate) - 2 * candidate.split('_').filter((word) => words.has(word)).length,
    }))
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, max)
    .map(({ candidate }) => candidate);
}

/** The vitest runs that cover one operation, each as the arguments after `npx vitest run`. */
export function planFor(op, exists = (path) => existsSync(join(root, path))) {
  const contract = [
    `test/contract/${op.area.replace(/_/g, '-')}.test.ts`,
    `test/contract/${op.name.replace(/_/g, '-')}.test.ts`,
  ];
  const rows = [
    'test/unit/operations/registry.test.ts',
    'test/unit/operations/schemas.test.ts',
    op.effect === 'read' ? 'test/contract/readable-answers.test.ts' : 'test/safety/change-decisions.test.ts',
  ];
  const interop =
    op.outsideSpec === undefined ? [] : ['test/interop/python-gitlab.test.ts', 'test/interop/gitbeaker.test.ts'];
  return [
    contract.filter(exists),
    // Its own rows only: the name as a whole word of the test's name (get_tag, not get_tags).
    [...rows, '-t', `(^|[^a-z_])${op.name}([^a-z_]|$)`],
    // The whole interop runs: whether a client reached the operation is known only at their end.
    interop,
    ['test/unit/operations/areas.test.ts', 'test/unit/architecture.test.ts'],
  ].filter((args) => args.length > 0);
}

async function main() {
  const args = process.argv.slice(2);
  const dryRun = args.includes('--dry-run');
  const name = args.find((arg) => !arg.startsWith('--'));
  const operations = await currentOperations();
  const op = operations.find((candidate) => candidate.name === name);
  if (!op) {
    const near = name
      ? nearNames(
          name,
          operations.map((candidate) => candidate.name),
        )
      : [];
    console.error(
      name
        ? `check:op: no operation named "${name}". Near: ${near.join(', ')}`
        : 'usage: npm run check:op <operation name> [-- --dry-run]',
    );
    process.exit(2);
  }
  let failed = 0;
  for (const runArgs of planFor(op)) {
    console.log(`> npx vitest run ${runArgs.map((arg) => (/[^\w./-]/.test(arg) ? `'${arg}'` : arg)).join(' ')}`);
    if (dryRun) continue;
    const run = spawnSync('npx', ['vitest', 'run', ...runArgs], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) failed++;
  }
  if (failed > 0) {
    console.error(`check:op ${name}: ${failed} run(s) failed`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
