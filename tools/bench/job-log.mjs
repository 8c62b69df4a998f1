// Benchmark: reading job logs crafted against the parser (hostile-logs.mjs: section markers by the hundred thousand,
// very long lines, carriage-return storms) against an ordinary log of the same size read in the same run, and each
// log at twice the size against itself: a linear parser stays near 1× the baseline and near 2× at twice the size.
// Run by hand after `npm run build`: node tools/bench/job-log.mjs [KiB per log] [runs]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { fileURLToPath } from 'node:url';
import { numbers, smoke } from './args.mjs';
import { HOSTILE_LOGS, ordinaryLog } from './hostile-logs.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { readJobLog, viewJobLog, failingExcerpt } = await import(`${root}dist/operations/areas/shared/job-log.js`);

const kib = smoke ? 32 : (numbers[0] ?? 2048);
const runs = smoke ? 1 : (numbers[1] ?? 5);

/** What get_job_log does with a log: read it, view its tail and all of it, find the failing part. */
function readAsTheToolDoes(raw) {
  const log = readJobLog(raw);
  viewJobLog(log, { lines: 200 });
  viewJobLog(log, { all: true });
  failingExcerpt(log);
  return log;
}

/** Median milliseconds of `runs` reads of the log (after one read to warm up). */
function median(raw) {
  readAsTheToolDoes(raw);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    readAsTheToolDoes(raw);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const bytes = kib * 1024;
const baseline = median(ordinaryLog(bytes));
console.log(`job log bench: logs of ${kib} KiB, median of ${runs} run${runs === 1 ? '' : 's'} each`);
console.log(`baseline (an ordinary log): ${baseline.toFixed(1)} ms (1.00x)`);
let worst = 0;
for (const [name, make] of Object.entries(HOSTILE_LOGS)) {
  const once = median(make(bytes));
  const twice = median(make(2 * bytes));
  const sections = readJobLog(make(bytes)).sections.length;
  worst = Math.max(worst, once / baseline);
  console.log(
    `${name}: ${once.toFixed(1)} ms (${(once / baseline).toFixed(2)}x), twice the size ${(twice / once).toFixed(2)}x, ${sections} sections named`,
  );
}
console.log(`worst hostile log: ${worst.toFixed(2)}x the baseline`);
