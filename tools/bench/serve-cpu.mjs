// Benchmark: serve's CPU per tools/call against last round's build, both measured in the same run on the same sandbox:
// one replica, N concurrent sessions × M list_pipelines calls, rounds alternating between the two builds (medians).
// The baseline is an older build named by FORGEOPS_BENCH_BASE_CLI; last round's is commit f5375b7 (issue 25):
//   git worktree add --detach /tmp/forgeops-base f5375b7 && ln -s "$PWD/node_modules" /tmp/forgeops-base/
//   (cd /tmp/forgeops-base && npm run build)
//   FORGEOPS_BENCH_BASE_CLI=/tmp/forgeops-base/dist/cli.js node tools/bench/serve-cpu.mjs [sessions=100] [calls=50] [rounds=3]
// Without it, this build is measured against itself (a ratio near 1 shows the run's noise). Run after `npm run build`.
// --stateless: the calls come from SDK v2 clients on the stateless 2026-07-28 revision (a server made per request)
// instead of 2025-11-25 sessions; the ratio's target is the sessions' (the load is the same list_pipelines call).
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { numbers, smoke } from './args.mjs';
import {
  cleanup,
  runBench,
  dropConnections,
  loadOnServe,
  sessionClient,
  startChild,
  statelessClient,
  startServe,
  stop,
  thisCli,
  waitFor,
} from './serve-harness.mjs';

const SESSIONS = smoke ? 3 : Math.max(1, numbers[0] ?? 100);
const CALLS = smoke ? 3 : Math.max(1, numbers[1] ?? 50);
const ROUNDS = smoke ? 1 : Math.max(1, numbers[2] ?? 3);
const TARGET_RATIO = 0.8;
const OVERALL_TIMEOUT_MS = smoke ? 60_000 : 900_000;
const baseCli = process.env.FORGEOPS_BENCH_BASE_CLI;
const stateless = process.argv.includes('--stateless');

const overall = setTimeout(() => {
  console.error(`serve-cpu bench: gave up after ${OVERALL_TIMEOUT_MS / 1000} s`);
  void cleanup().finally(() => process.exit(1));
}, OVERALL_TIMEOUT_MS);
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One build's serve, started fresh, under the load: its CPU ms per call. */
async function cpuPerCall(cli, sandboxUrl) {
  const serve = await startServe(sandboxUrl, {}, cli);
  try {
    const client = (stateless ? statelessClient : sessionClient)(serve.url);
    const run = await loadOnServe(serve.url, [serve.child.pid], { sessions: SESSIONS, calls: CALLS, client });
    return run.cpuMsPerCall;
  } finally {
    await stop(serve);
    await dropConnections();
  }
}

async function main() {
  console.log(
    `serve-cpu bench: ${SESSIONS} ${stateless ? 'stateless 2026-07-28 clients' : 'sessions'} × ${CALLS} list_pipelines calls on one replica, ${ROUNDS} rounds${smoke ? ' (smoke mode: nothing here is a measurement)' : ''}`,
  );
  const sandbox = startChild(process.execPath, [thisCli, 'sandbox', '--port', '0']);
  const sandboxUrl = (await waitFor(sandbox, /running at (http:\/\/127\.0\.0\.1:\d+)/, 'the sandbox'))[1];
  const samples = { base: [], current: [] };
  for (let round = 0; round < ROUNDS; round++) {
    samples.base.push(await cpuPerCall(baseCli ?? thisCli, sandboxUrl));
    samples.current.push(await cpuPerCall(thisCli, sandboxUrl));
  }
  await stop(sandbox);
  const base = median(samples.base);
  const current = median(samples.current);
  const each = (values) => values.map((v) => v.toFixed(3)).join(', ');
  console.log(
    `baseline (${baseCli ? `last round's build, ${baseCli}` : 'no FORGEOPS_BENCH_BASE_CLI: this build again'}): serve CPU ${base.toFixed(3)} ms/call (1.00x; rounds ${each(samples.base)})`,
  );
  console.log(
    `this build: serve CPU ${current.toFixed(3)} ms/call (${(current / base).toFixed(2)}x; rounds ${each(samples.current)})`,
  );
  console.log(
    `target ≤ ${TARGET_RATIO}x the baseline: ${(current / base).toFixed(2)}x, ${current / base <= TARGET_RATIO ? 'met' : 'MISSED'}`,
  );
}

runBench('serve-cpu', main, overall);
