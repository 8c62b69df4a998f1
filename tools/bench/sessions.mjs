// Benchmark of `forgeops serve` over Streamable HTTP under a team's load, printed against a baseline measured in the
// same run (the same request made straight to the sandbox with undici, at the same concurrency):
// N concurrent sessions × M list_pipelines calls on one replica, on one replica behind haproxy and on two replicas
// behind haproxy (deploy/haproxy.cfg), and SDK v2 clients on the stateless 2026-07-28 revision on two replicas behind
// plain round robin: calls/s, p50/p99, serve CPU ms per call (all replicas), peak RSS; then how much RSS 1,000 live
// sessions hold. The load runs on the same cores, so read the ratios, not the absolute numbers.
// Run by hand after `npm run build`: node tools/bench/sessions.mjs [sessions, default 200] [calls each, default 50]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { listensOn, reservePort } from '../ports.mjs';
import { numbers, smoke } from './args.mjs';
import {
  cleanup,
  runBench,
  directCall,
  dispatcher,
  load,
  loadOnServe as loadOn,
  openSession,
  processStats,
  sessionClient,
  startChild,
  startServe as startServeOf,
  statelessClient,
  stop,
  toolCall,
  waitFor,
} from './serve-harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cliPath = `${root}dist/cli.js`;
const SESSIONS = smoke ? 4 : Math.max(1, numbers[0] ?? 200);
const CALLS = smoke ? 3 : Math.max(1, numbers[1] ?? 50);
const LIVE_SESSIONS = smoke ? 20 : 1000;
const OVERALL_TIMEOUT_MS = smoke ? 60_000 : 900_000;
const TARGETS = { cpuMsPerCall: 1.5, cpuGrowthWithReplicas: 1.1, liveSessionsRssMiB: 250 };

const overall = setTimeout(() => {
  console.error(`sessions bench: gave up after ${OVERALL_TIMEOUT_MS / 1000} s`);
  void cleanup().finally(() => process.exit(1));
}, OVERALL_TIMEOUT_MS);
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

const startServe = (sandboxUrl, env = {}) =>
  startServeOf(sandboxUrl, { FORGEOPS_MAX_SESSIONS: String(Math.max(1200, SESSIONS + 10)), ...env });
const loadOnServe = (url, pids, client = sessionClient) =>
  loadOn(url, pids, { sessions: SESSIONS, calls: CALLS, client: client(url) });

/**
 * The documented config on `at` (a port, or one reserved with reservePort, freed just before haproxy starts); `plain`
 * drops its routing by session prefix (plain round robin, enough for 2026-07-28).
 */
async function startHaproxy(at, replicaPorts, { plain = false } = {}) {
  const port = typeof at === 'number' ? at : at.port;
  const dir = mkdtempSync(join(tmpdir(), 'forgeops-bench-'));
  const documented = readFileSync(`${root}deploy/haproxy.cfg`, 'utf8');
  const config = (plain ? documented.replace(/^\s*use_backend .*$/gm, '') : documented)
    .replace(/127\.0\.0\.1:8750/g, `127.0.0.1:${port}`)
    .replace(/127\.0\.0\.1:8751/g, `127.0.0.1:${replicaPorts[0]}`)
    .replace(/127\.0\.0\.1:8752/g, `127.0.0.1:${replicaPorts[1] ?? replicaPorts[0]}`);
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  if (typeof at !== 'number') await at.release();
  const haproxy = startChild('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')]);
  // Up means its own socket listens on the port (chosen beforehand, it may have gone to another program since) and
  // it forwards: /healthz answered through it.
  for (let i = 0; ; i++) {
    if (haproxy.child.exitCode !== null || i === 200) throw new Error(`haproxy did not start:\n${haproxy.output()}`);
    if (!listensOn(haproxy.child.pid, port)) {
      await new Promise((r) => setTimeout(r, 25));
      continue;
    }
    const answered = await request(`http://127.0.0.1:${port}/healthz`, { dispatcher }).then(
      async (r) => {
        await r.body.text();
        return r.statusCode === 200;
      },
      () => false,
    );
    if (answered) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    ...haproxy,
    stopAndClean: async () => {
      await stop(haproxy);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const f = (n, digits = 1) => n.toFixed(digits);
function line(label, r, baseline) {
  const perSecond = r.calls / (r.wallMs / 1000);
  const cpu =
    r.cpuMsPerCall === undefined
      ? ''
      : `, serve CPU ${f(r.cpuMsPerCall, 2)} ms/call, peak RSS ${f(r.peakRssMiB, 0)} MiB`;
  const ratio = baseline
    ? ` (p50 ${f(r.p50 / baseline.p50, 1)}x, p99 ${f(r.p99 / baseline.p99, 1)}x the baseline's)`
    : '';
  console.log(
    `${label}: ${r.calls} calls, ${f(perSecond, 0)} calls/s, p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms${cpu}${ratio}`,
  );
}

async function main() {
  if (spawnSync('haproxy', ['-v']).status !== 0) throw new Error('haproxy is not installed (bash .ci/run installs it)');
  console.log(
    `sessions bench: ${SESSIONS} sessions × ${CALLS} list_pipelines calls${smoke ? ' (smoke mode: nothing here is a measurement)' : ''}`,
  );
  const sandbox = startChild(process.execPath, [cliPath, 'sandbox', '--port', '0']);
  const sandboxUrl = (await waitFor(sandbox, /running at (http:\/\/127\.0\.0\.1:\d+)/, 'the sandbox'))[1];

  const baseline = await load(SESSIONS, CALLS, { open: async () => () => directCall(sandboxUrl) });
  line('baseline (undici straight to the sandbox)', baseline);

  // On loopback a replica accepts only its own Host, and the balancer's address (FORGEOPS_ALLOWED_HOSTS). The
  // balancer's port is held until it starts: left free for the seconds before, it may be given to another program.
  const reserved = await reservePort();
  const { port } = reserved;
  const one = await startServe(sandboxUrl, { FORGEOPS_ALLOWED_HOSTS: `127.0.0.1:${port}` });
  const direct = await loadOnServe(one.url, [one.child.pid]);
  line('1 replica, direct', direct, baseline);
  const proxied = await startHaproxy(reserved, [one.port]);
  const behind = await loadOnServe(`http://127.0.0.1:${port}/mcp`, [one.child.pid]);
  line('1 replica behind haproxy', behind, baseline);
  await proxied.stopAndClean();
  await stop(one);

  const reserved2 = await reservePort();
  const port2 = reserved2.port;
  const pair = [];
  for (const id of ['r1', 'r2'])
    pair.push(await startServe(sandboxUrl, { FORGEOPS_REPLICA_ID: id, FORGEOPS_ALLOWED_HOSTS: `127.0.0.1:${port2}` }));
  const balancer = await startHaproxy(
    reserved2,
    pair.map((r) => r.port),
  );
  const two = await loadOnServe(
    `http://127.0.0.1:${port2}/mcp`,
    pair.map((r) => r.child.pid),
  );
  line('2 replicas behind haproxy', two, baseline);
  await balancer.stopAndClean();
  // The stateless revision needs no routing: plain round robin over the same two replicas, on the same address.
  const roundRobin = await startHaproxy(
    port2,
    pair.map((r) => r.port),
    { plain: true },
  );
  const stateless = await loadOnServe(
    `http://127.0.0.1:${port2}/mcp`,
    pair.map((r) => r.child.pid),
    statelessClient,
  );
  line('2 replicas, plain round robin, 2026-07-28 clients', stateless, baseline);
  await roundRobin.stopAndClean();
  for (const r of pair) await stop(r);

  // Live sessions: each opened and used once, then held.
  const held = await startServe(sandboxUrl);
  const startRss = processStats(held.child.pid).rssMiB;
  for (let i = 0; i < LIVE_SESSIONS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, LIVE_SESSIONS - i) }, async () =>
        toolCall(held.url, await openSession(held.url), 1),
      ),
    );
  }
  const heldStats = processStats(held.child.pid);
  console.log(
    `${LIVE_SESSIONS} live sessions: RSS ${f(heldStats.rssMiB, 0)} MiB (${f(startRss, 0)} MiB at start), peak ${f(heldStats.peakRssMiB, 0)} MiB; ` +
      `about ${f(((heldStats.rssMiB - startRss) * 1024) / LIVE_SESSIONS, 0)} KiB a session`,
  );
  await stop(held);
  await stop(sandbox);

  const growth = two.cpuMsPerCall / behind.cpuMsPerCall;
  console.log(
    `targets: serve CPU per call ${f(behind.cpuMsPerCall, 2)} ms (target ≤ ${TARGETS.cpuMsPerCall}); with 2 replicas ${f(growth, 2)}x ` +
      `(target ≤ ${TARGETS.cpuGrowthWithReplicas}x); ${LIVE_SESSIONS} sessions in ${f(heldStats.peakRssMiB, 0)} MiB (target ≤ ${TARGETS.liveSessionsRssMiB} for 1,000)`,
  );
}

runBench('sessions', main, overall);
