// Every benchmark under tools/bench runs in its smoke mode (--smoke: tiny counts, the same code path), so none can rot.
// Only the exit status, the result lines and that nothing is left running are checked: never a time.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const benchDir = `${root}tools/bench/`;

/** Files in tools/bench that are not benchmarks themselves: each is named with a bench that uses it. */
const HELPERS: Record<string, string> = {
  'one-tool-server.mjs': 'mcp.mjs', // its start-up baseline
  'one-tool-http-server.mjs': 'mcp.mjs', // its first-call baseline (the tool makes the request with undici)
  'args.mjs': 'mcp.mjs', // every bench's command line (--smoke and the numbers)
  'hostile-logs.mjs': 'job-log.mjs', // the crafted logs (also read by the parser's tests)
  'serve-harness.mjs': 'serve-cpu.mjs', // serve started, loaded and measured (sessions.mjs uses it too)
};

/**
 * The lines each bench must print. A bench not listed here still runs below (a new one cannot be forgotten), held
 * only to exiting 0 with some output; list it here to check its result lines too.
 */
const EXPECTED: Record<string, RegExp[]> = {
  'app-view.mjs': [
    /^view dist\/apps\/triage\.html: \d+ bytes/m,
    // Clients without MCP Apps see the tool list as it was without the extension.
    /^ {2}client without MCP Apps: +\d+ tools \d+ bytes \(\+0\)$/m,
    /^ {2}client with MCP Apps: +\d+ tools \d+ bytes \(\+\d+\)$/m,
    /^ {2}baseline \(App alone writes the verdict\): [\d.]+ ms \(1\.00x\)$/m,
    /^ {2}triage view: +[\d.]+ ms \([\d.]+x\)$/m,
  ],
  'client.mjs': [
    /^calls: \d+ sequential list_pipelines/m,
    /^baseline fetch: .*\(1\.00x\)$/m,
    /^forgeops executor: .*ms\/call \([\d.]+x\)$/m,
  ],
  'job-log.mjs': [
    /^baseline \(an ordinary log\): [\d.]+ ms \(1\.00x\)$/m,
    // Every crafted log is read, at its size and at twice its size.
    ...[
      'markers on one line',
      'unclosed starts',
      'ends without starts',
      'unclosed starts, then stray ends',
      'alternating start and end',
      'very long lines',
      'carriage returns',
    ].map(
      (name) => new RegExp(`^${name}: [\\d.]+ ms \\([\\d.]+x\\), twice the size [\\d.]+x, \\d+ sections named$`, 'm'),
    ),
    /^worst hostile log: [\d.]+x the baseline$/m,
  ],
  'mcp.mjs': [
    /^ {2}one-tool McpServer .*1\.00×/m,
    /^ {2}forgeops mcp \( *\d+ tools\)/m,
    // Every preset answers tools/list (the smoke run fails on a preset that does not).
    ...['\\(unset\\)', 'default', 'all', 'meta'].map(
      (preset) => new RegExp(`^ {2}${preset} +\\d+ tools +\\d+ bytes +\\d+ tokens$`, 'm'),
    ),
    /^ {2}tools\/call through forgeops mcp .*overhead/m,
    /^ {2}first tools\/call right after tools\/list/m,
    /^ {2}one-tool McpServer \+ undici +[\d.]+ ms +1\.00× +its call/m,
    /^ {2}forgeops mcp +[\d.]+ ms +[\d.]+× +its call/m,
    /^ {2}spawn → first tools\/call ≤ 0\.6× the one-tool server's: [\d.]+×/m,
    /^ {2}tools\/call overhead ≤ /m,
  ],
  'serve-cpu.mjs': [
    /^serve-cpu bench: \d+ sessions × \d+ list_pipelines calls on one replica/m,
    /^baseline \(.*\): serve CPU [\d.]+ ms\/call \(1\.00x; rounds [\d., ]+\)$/m,
    /^this build: serve CPU [\d.]+ ms\/call \([\d.]+x; rounds [\d., ]+\)$/m,
    /^target ≤ 0\.8x the baseline: [\d.]+x, (met|MISSED)$/m,
  ],
  'sessions.mjs': [
    /^sessions bench: \d+ sessions × \d+ list_pipelines calls/m,
    /^baseline \(undici straight to the sandbox\): \d+ calls,/m,
    ...[
      '1 replica, direct',
      '1 replica behind haproxy',
      '2 replicas behind haproxy',
      '2 replicas, plain round robin, 2026-07-28 clients',
    ].map((topology) => new RegExp(`^${topology}: \\d+ calls, `, 'm')),
    /^\d+ live sessions: RSS \d+ MiB/m,
    /^targets: /m,
  ],
  'sign-in.mjs': [
    /^sign-in bench: \d+ people signed in, a session each × \d+ list_pipelines calls/m,
    ...['baseline \\(token mode\\)', 'oauth mode'].map(
      (mode) =>
        new RegExp(
          `^${mode}: code-host requests per sign-in [\\d.]+, per session beyond its calls -?[\\d.]+; serve CPU [\\d.]+ ms\\/call, p50 [\\d.]+ ms$`,
          'm',
        ),
    ),
    /^targets: sign-in adds -?[\d.]+ code-host requests per session, a sign-in each \(≤ 1: (met|MISSED)\), -?[\d.]+ once signed in; -?[\d.]+ ms serve CPU per call/m,
  ],
  'slack-ack.mjs': [
    /^forgeops slack \(embedded sandbox\) listening after \d+ ms/m,
    /^ {2}\/forge pipeline list acme\/web, reply +p50/m,
    /^ {2}\/forge help \(no service call\), reply +p50/m,
    /^Slack Web API calls the bot made: /m,
    /^target ack p99 ≤ \d+ ms, round 1: /m,
  ],
  'state.mjs': [
    /^one approval issued and redeemed, \d+ rounds, \d+ other keys/m,
    /^ {2}memory store +p50 [\d.]+ ms +p99 [\d.]+ ms/m,
    /^ {2}Redis store +p50 [\d.]+ ms +p99 [\d.]+ ms/m,
  ],
  'watch.mjs': [
    /^watch bench: \d+ projects on 2 replicas sharing one Redis, interval \d+ ms/m,
    /^baseline \(0 projects\): [\d.]+ service requests\/min, CPU \d+ ms\/min, RSS [\d.]+ MiB, heap [\d.]+ MiB \(both replicas\) \(1\.00x\)$/m,
    /^service requests: \d+\/min for \d+ projects = [\d.]+ per project per minute; ceiling .* \([\d.]+x the ceiling\)$/m,
    /^requests per project per interval: [\d.]+ over \d+ intervals \(ideal 1\.00; (at most|MORE than) one\)$/m,
    /^CPU: \d+ ms\/min \([\d.]+x the baseline\), -?[\d.]+ ms\/min per watched project$/m,
    /^RSS: [\d.]+ MiB \([\d.]+x the baseline\), -?[\d.]+ KiB per watched project$/m,
    /^heap used: [\d.]+ MiB \([\d.]+x the baseline\), -?[\d.]+ KiB per watched project$/m,
    /^ {2}baseline \(list_pipelines \+ triage_project made directly\): median [\d.]+ ms \(1\.00x\)$/m,
    /^ {2}polling every \d+ ms: median \d+ ms, max \d+ ms \([\d.]+x; max [\d.]+x the interval\)$/m,
    /^ {2}nudged \(hub\.nudge, as a webhook\): median \d+ ms, max \d+ ms \([\d.]+x\)$/m,
  ],
  'triage.mjs': [
    // The seeded history is green, then red for its last commits: triage must find where it turned.
    /^verdict red; red since #\d+; 1 failed job read/m,
    // The same test failed in every red pipeline read: broken, counted within the history's bound.
    /^failure: broken \(test failed on \d+ of \d+ runs since [0-9a-f]{8}( \(older runs not read\))?\)$/m,
    /^sandbox:\n {2}list_pipelines \(100 items\): 1 request,.*\n {2}triage_project: +\d+ requests/m,
    /^sandbox \+ \d+ ms per request:\n {2}list_pipelines \(100 items\): 1 request,.*\n {2}triage_project: +\d+ requests/m,
  ],
};

const BENCH_TIMEOUT_MS = 90_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  leftovers: boolean;
}

/** Whether any process of this process group is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `node tools/bench/<file> --smoke` from the repository root in a process group of its own, with a bare
 * environment (no CODEHOST_URL, proxy or env file from the developer's shell: a bench talks only to what it starts).
 * Whatever of that group outlives the bench (a sandbox, redis-server, haproxy it did not stop) is reported, then ended.
 */
function runBench(file: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${benchDir}${file}`, '--smoke'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TMPDIR: tmpdir() },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-8000);
    });
    const pgid = child.pid;
    const timer = setTimeout(() => {
      stderr += `\n(smoke test: no exit within ${BENCH_TIMEOUT_MS / 1000} s, its process group was stopped)`;
      if (pgid !== undefined && groupAlive(pgid)) process.kill(-pgid, 'SIGTERM');
    }, BENCH_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', async (code, signal) => {
      clearTimeout(timer);
      let leftovers = false;
      if (pgid !== undefined) {
        // A child the bench stopped may take a moment to be reaped; 2 s is plenty for one that was told to go.
        for (let i = 0; i < 40 && groupAlive(pgid); i++) await new Promise((r) => setTimeout(r, 50));
        if (groupAlive(pgid)) {
          leftovers = true;
          process.kill(-pgid, 'SIGKILL');
        }
      }
      resolve({ code, signal, stdout, stderr, leftovers });
    });
  });
}

const benches = readdirSync(benchDir)
  .filter((name) => name.endsWith('.mjs') && !(name in HELPERS))
  .sort();

describe('tools/bench in smoke mode', () => {
  it('finds the benches and their helpers where this test expects them', () => {
    // A bench listed above but removed or renamed must not pass by being skipped.
    for (const name of Object.keys(EXPECTED)) expect(benches, `${name} is listed in EXPECTED`).toContain(name);
    for (const [helper, user] of Object.entries(HELPERS)) {
      expect(existsSync(`${benchDir}${helper}`), `${helper} is listed in HELPERS`).toBe(true);
      expect(readFileSync(`${benchDir}${user}`, 'utf8'), `${user} starts ${helper}`).toContain(helper);
    }
  });

  // Each bench starts its own servers on free loopback ports in a process group of its own, and most of its time is
  // spent waiting on them: they run side by side, so the file takes about as long as its slowest bench.
  it.concurrent.for(benches)(
    '%s --smoke exits 0 with its result lines, leaving nothing running',
    { timeout: BENCH_TIMEOUT_MS + 15_000 },
    async (file, { expect }) => {
      expect(existsSync(`${root}dist/cli.js`), 'dist/ is built (npm run build; npm test does it)').toBe(true);
      // Without a smoke mode a bench would run its full measurement here: say so instead of timing out.
      const header = readFileSync(`${benchDir}${file}`, 'utf8').split('\nimport ')[0];
      expect(header, `${file} documents --smoke in its header comment`).toMatch(/Smoke mode .*--smoke/);

      const run = await runBench(file);
      const shown = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
      expect(run.code, `${file} --smoke exit status; ${shown}`).toBe(0);
      expect(run.leftovers, `${file} left processes running after it exited`).toBe(false);
      expect(run.stdout.trim(), `${file} printed its results`).not.toBe('');
      for (const line of EXPECTED[file] ?? []) expect(run.stdout, shown).toMatch(line);
    },
  );
});
