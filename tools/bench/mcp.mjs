// Benchmark of `forgeops mcp` (stdio) in one run, printed as ratios against baselines measured alongside it:
// spawn → tools/list against a one-tool McpServer on the same SDK (and what each adds to a bare Node start), tools/list
// size per toolset preset, peak RSS, one tools/call against the sandbox against the same request made directly with
// undici, and the RSS of that session after its first call, halfway through its calls and after them all.
// spawn → initialize → tools/list → first tools/call against a one-tool server whose tool makes the same request with undici.
// Run by hand after `npm run build`: node tools/bench/mcp.mjs [start-up runs, ≥ 7] [calls]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { numbers, smoke } from './args.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cliPath = process.env.FORGEOPS_BENCH_CLI ?? `${root}dist/cli.js`;
const oneToolPath = fileURLToPath(new URL('one-tool-server.mjs', import.meta.url));
const oneToolHttpPath = fileURLToPath(new URL('one-tool-http-server.mjs', import.meta.url));
// Medians want several samples; the smoke run takes one of each, to see every path work.
const runs = smoke ? 1 : Math.max(7, numbers[0] ?? 9);
const calls = smoke ? 3 : Math.max(20, numbers[1] ?? 200);
const WARM_UP_CALLS = smoke ? 2 : 20;
const FIRST_CALL_SERVERS = smoke ? 1 : 3;
const THINK_MS = smoke ? 100 : 1000;
const PRESETS = ['default', 'all', 'meta'];
const REPLY_TIMEOUT_MS = 30_000;
const OVERALL_TIMEOUT_MS = smoke ? 60_000 : 300_000;
// startAdded: what forgeops adds to bare Node's start, as a share of what the one-tool server adds to it. Every message
// is answered by the SDK's own server once the configuration is checked (a front answering initialize and tools/list
// before it loaded got to the list in about half the time, but answered what the SDK refuses and moved the loading to
// the first call, which then came later): the start is held to the one-tool server's, 168 tools against one.
// sessionRssMiB: peak RSS after all the calls; sessionGrowthMiB: how much higher that peak may be than the peak
// halfway (flat). Peaks, since RSS saws up and down by a few MiB between collections.
const TARGETS = {
  startRatio: 0.9,
  startAdded: 0.8,
  peakRssMiB: 60,
  callOverheadMs: 1,
  firstCallRatio: 0.6,
  sessionRssMiB: 80,
  sessionGrowthMiB: 2,
};

// ---- cleanup first, so every exit path leaves no child behind ----
const children = new Set();
async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin?.end();
  child.kill('SIGTERM');
  const gone = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 3_000))]);
  if (!gone) child.kill('SIGKILL');
}
async function cleanup() {
  await Promise.all([...children].map(stopChild));
}
const overall = setTimeout(() => {
  console.error(`mcp bench: gave up after ${OVERALL_TIMEOUT_MS / 1000} s`);
  void cleanup().finally(() => process.exit(1));
}, OVERALL_TIMEOUT_MS);
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

// ---- a raw JSON-RPC client over a child's stdio, so that no client library's cost is measured ----
const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };

/** Spawns `node args…` as an MCP stdio server; `request` resolves with the raw answer line and its parsed message. */
function spawnServer(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? signal);
    }),
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const waiting = new Map();
  let buffer = '';
  let nextId = 1;
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const message = JSON.parse(line);
      waiting.get(message.id)?.({ line, message });
      waiting.delete(message.id);
    }
  });
  exited.then((code) => {
    for (const settle of waiting.values()) settle({ exited: code });
    waiting.clear();
  });
  return {
    child,
    stderr: () => stderr,
    notify(method) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
    request(method, params) {
      const id = nextId++;
      const answer = new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${args.join(' ')}: no answer to ${method} within ${REPLY_TIMEOUT_MS / 1000} s`)),
          REPLY_TIMEOUT_MS,
        );
        waiting.set(id, (reply) => {
          clearTimeout(timer);
          if (reply.exited !== undefined)
            reject(
              new Error(
                `exited (${reply.exited}) before answering ${method}: ${stderr.trim().split('\n').at(-1) ?? ''}`,
              ),
            );
          else if (reply.message.error) reject(new Error(`${method}: ${reply.message.error.message}`));
          else resolve(reply);
        });
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
      return answer;
    },
    /** Waits for the process to be gone, so that its shutdown does not compete with the next measurement. */
    async close() {
      await stopChild(child);
      await exited;
    },
  };
}

/** The process's peak resident set so far (Linux: VmHWM), in MiB; undefined where /proc is not there. */
function peakRssMiB(pid) {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The process's resident set now (Linux: VmRSS), in MiB; undefined where /proc is not there. */
function rssMiB(pid) {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The handshake a client makes, then its tools/list: the list's answer. */
async function initializeAndList(server) {
  await server.request('initialize', INITIALIZE);
  server.notify('notifications/initialized');
  return server.request('tools/list');
}

/** spawn → initialize → tools/list answered: the ms, the answer, and the peak RSS right after it. */
async function startAndList(args, env) {
  const started = process.hrtime.bigint();
  const server = spawnServer(args, env);
  try {
    const list = await initializeAndList(server);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return { ms, rssMiB: peakRssMiB(server.child.pid), line: list.line, tools: list.message.result.tools };
  } finally {
    await server.close();
  }
}

function timeBare() {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// ---- the service: the sandbox in a process of its own, so neither side of a comparison shares its event loop ----
async function startSandbox() {
  const child = spawn(process.execPath, [cliPath, 'sandbox', '--port', '0', '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpdir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.stderr.resume();
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`forgeops sandbox exited (${code}) before it was ready`)));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const url = /running at (http:\/\/\S+)/.exec(stdout)?.[1];
      const token = columnOf(stdout, 'maintainer', 'token');
      if (url && token && stdout.includes('Ctrl+C')) resolve({ url, token });
    });
  });
}

/** What forgeops mcp is started with against the bench's service: only PATH, HOME and TMPDIR of this environment. */
function forgeopsEnvFor(service) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: tmpdir(),
    CODEHOST_URL: service.url,
    CODEHOST_TOKEN: service.token,
    FORGEOPS_LOG_LEVEL: 'warn',
  };
}

/** The call every first-call measure makes: list_pipelines of acme/web, which must succeed. */
async function callListPipelines(server) {
  const { message } = await server.request('tools/call', {
    name: 'list_pipelines',
    arguments: { id: 'acme/web', per_page: 20 },
  });
  if (message.result.isError) throw new Error(`list_pipelines failed: ${message.result.content[0]?.text}`);
}

/** One cell of the sandbox's accounts table: the row starting with `role`, under the header `column`. */
function columnOf(table, role, column) {
  const lines = table.split('\n');
  const header = lines.find((line) => line.startsWith('role '));
  const row = lines.find((line) => line.startsWith(`${role} `));
  const at = header?.search(new RegExp(`\\b${column}\\b`));
  if (!row || at === undefined || at < 0) return undefined;
  return row.slice(at).split(/\s+/)[0] || undefined;
}

// ---- the measurements ----
async function measureStartup(service) {
  const forgeopsEnv = forgeopsEnvFor(service);
  const baselineEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpdir() };
  const samples = { bare: [], baseline: [], forgeops: [], baselineRss: [], forgeopsRss: [] };
  let toolCount = 0;
  // One unmeasured round warms the file cache for all three.
  await timeBare();
  await startAndList([oneToolPath], baselineEnv);
  await startAndList([cliPath, 'mcp'], forgeopsEnv);
  for (let i = 0; i < runs; i++) {
    samples.bare.push(await timeBare());
    const baseline = await startAndList([oneToolPath], baselineEnv);
    samples.baseline.push(baseline.ms);
    samples.baselineRss.push(baseline.rssMiB);
    const forgeops = await startAndList([cliPath, 'mcp'], forgeopsEnv);
    samples.forgeops.push(forgeops.ms);
    samples.forgeopsRss.push(forgeops.rssMiB);
    toolCount = forgeops.tools.length;
  }
  return { samples, toolCount };
}

/** The whole tools/list answer line, as a client receives it, per preset; undefined is FORGEOPS_TOOLSETS left unset. */
async function measureListSizes(service) {
  const rows = [];
  for (const preset of [undefined, ...PRESETS]) {
    const env = { ...forgeopsEnvFor(service), ...(preset ? { FORGEOPS_TOOLSETS: preset } : {}) };
    const label = preset ?? '(unset)';
    try {
      const { line, tools } = await startAndList([cliPath, 'mcp'], env);
      const bytes = Buffer.byteLength(line);
      rows.push({ label, tools: tools.length, bytes, tokens: Math.round(bytes / 4) });
    } catch (error) {
      // A preset this build does not know yet is reported, not fatal: the other numbers still stand. The smoke run
      // knows the presets of this build, so there it is a failure.
      if (smoke) throw error;
      const reason = error.message.split('\n')[0];
      rows.push({ label, error: reason.length > 140 ? `${reason.slice(0, 140)}…` : reason });
    }
  }
  return rows;
}

/**
 * The first tools/call of a fresh `forgeops mcp`, made as a client makes it: after tools/list, at once or after
 * `thinkMs` (a model choosing the tool). The registry loads in the background once tools/list is answered.
 */
async function measureFirstCall(service, thinkMs) {
  const env = forgeopsEnvFor(service);
  const server = spawnServer([cliPath, 'mcp'], env);
  try {
    await initializeAndList(server);
    if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs));
    const started = process.hrtime.bigint();
    await callListPipelines(server);
    return Number(process.hrtime.bigint() - started) / 1e6;
  } finally {
    await server.close();
  }
}

/** The same list_pipelines request, through forgeops mcp and directly with undici, interleaved so both see the same machine. */
async function measureCallOverhead(service) {
  const env = forgeopsEnvFor(service);
  const server = spawnServer([cliPath, 'mcp'], env);
  const pool = new Pool(service.url, { connections: 1 });
  const args = { id: 'acme/web', per_page: 20 };
  const path = `/api/v4/projects/${encodeURIComponent(args.id)}/pipelines?per_page=${args.per_page}`;
  try {
    await server.request('initialize', INITIALIZE);
    server.notify('notifications/initialized');
    const viaMcp = async () => {
      const started = process.hrtime.bigint();
      const { message } = await server.request('tools/call', { name: 'list_pipelines', arguments: args });
      if (message.result.isError) throw new Error(`list_pipelines failed: ${message.result.content[0]?.text}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const direct = async () => {
      const started = process.hrtime.bigint();
      const response = await pool.request({ method: 'GET', path, headers: { 'PRIVATE-TOKEN': service.token } });
      const data = await response.body.json();
      if (response.statusCode !== 200 || !Array.isArray(data))
        throw new Error(`direct request answered ${response.statusCode}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    // The first call loads the registry and the HTTP client (see src/mcp/catalog.ts): reported on its own.
    const first = await viaMcp();
    const firstRssMiB = peakRssMiB(server.child.pid);
    const rssAfterFirst = rssMiB(server.child.pid);
    for (let i = 0; i < WARM_UP_CALLS; i++) {
      await viaMcp();
      await direct();
    }
    const mcp = [];
    const plain = [];
    let rssAtHalf;
    let peakAtHalf;
    for (let i = 0; i < calls; i++) {
      if (i === Math.floor(calls / 2)) {
        rssAtHalf = rssMiB(server.child.pid);
        peakAtHalf = peakRssMiB(server.child.pid);
      }
      mcp.push(await viaMcp());
      plain.push(await direct());
    }
    return {
      first,
      firstRssMiB,
      mcp: median(mcp),
      direct: median(plain),
      rssMiB: peakRssMiB(server.child.pid),
      session: {
        afterFirst: rssAfterFirst,
        atHalf: rssAtHalf,
        atEnd: rssMiB(server.child.pid),
        peakAtHalf,
        peakAtEnd: peakRssMiB(server.child.pid),
      },
    };
  } finally {
    await pool.close();
    await server.close();
  }
}

/**
 * spawn → initialize → tools/list → the first tools/call answered, as a client that calls at once: the ms to the call's
 * answer and the ms the call itself took. The same list_pipelines for both servers, against the sandbox started above.
 */
async function startListAndCall(args, env) {
  const started = process.hrtime.bigint();
  const server = spawnServer(args, env);
  try {
    await initializeAndList(server);
    const calling = process.hrtime.bigint();
    await callListPipelines(server);
    const done = process.hrtime.bigint();
    return { ms: Number(done - started) / 1e6, callMs: Number(done - calling) / 1e6 };
  } finally {
    await server.close();
  }
}

/** startListAndCall for forgeops mcp and for the one-tool server whose tool makes the request with undici, interleaved. */
async function measureSpawnToFirstCall(service) {
  const forgeopsEnv = forgeopsEnvFor(service);
  const baselineEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: tmpdir(),
    BENCH_SERVICE_URL: service.url,
    BENCH_SERVICE_TOKEN: service.token,
  };
  const samples = { baseline: [], baselineCall: [], forgeops: [], forgeopsCall: [] };
  // One unmeasured round warms the file cache for both.
  await startListAndCall([oneToolHttpPath], baselineEnv);
  await startListAndCall([cliPath, 'mcp'], forgeopsEnv);
  for (let i = 0; i < runs; i++) {
    const baseline = await startListAndCall([oneToolHttpPath], baselineEnv);
    samples.baseline.push(baseline.ms);
    samples.baselineCall.push(baseline.callMs);
    const forgeops = await startListAndCall([cliPath, 'mcp'], forgeopsEnv);
    samples.forgeops.push(forgeops.ms);
    samples.forgeopsCall.push(forgeops.callMs);
  }
  return Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)]));
}

// ---- the report ----
const fmtMs = (v) => `${v.toFixed(1).padStart(6)} ms`;
const fmtMiB = (v) => (v === undefined ? '   n/a' : `${v.toFixed(1).padStart(5)} MiB`);
const verdict = (ok) => (ok ? 'met' : 'MISSED');

let failed = false;
try {
  const service = await startSandbox();
  console.log(`forgeops mcp benchmark: ${runs} start-up runs (medians), ${calls} calls; node ${process.version}`);
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  const { samples, toolCount } = await measureStartup(service);
  const base = median(samples.baseline);
  const bare = median(samples.bare);
  const ratio = (v) => `${(v / base).toFixed(2)}×`;
  // What each adds to a bare Node start: the share that is the server's own doing, the machine's part taken out.
  const added = (v) => `${((v - bare) / (base - bare)).toFixed(2)}× of its addition`;
  console.log('\nspawn → initialize → tools/list answered (baseline: one-tool McpServer, plain ESM, same SDK):');
  console.log(`  node -e ''                         ${fmtMs(median(samples.bare))}  ${ratio(median(samples.bare))}`);
  console.log(
    `  one-tool McpServer                 ${fmtMs(base)}  1.00×   peak RSS ${fmtMiB(median(samples.baselineRss))}   adds ${fmtMs(base - bare)} to bare`,
  );
  console.log(
    `  forgeops mcp (${String(toolCount).padStart(3)} tools)           ${fmtMs(median(samples.forgeops))}  ${ratio(median(samples.forgeops))}   peak RSS ${fmtMiB(median(samples.forgeopsRss))}   adds ${fmtMs(median(samples.forgeops) - bare)} to bare, ${added(median(samples.forgeops))}`,
  );

  const sizes = await measureListSizes(service);
  console.log('\ntools/list answer per FORGEOPS_TOOLSETS preset (tokens ≈ bytes / 4):');
  for (const row of sizes) {
    if (row.error) console.log(`  ${row.label.padEnd(8)} not available: ${row.error}`);
    else
      console.log(
        `  ${row.label.padEnd(8)} ${String(row.tools).padStart(4)} tools  ${String(row.bytes).padStart(7)} bytes  ${String(row.tokens).padStart(6)} tokens`,
      );
  }

  const call = await measureCallOverhead(service);
  const overhead = call.mcp - call.direct;
  console.log('\none list_pipelines (20 pipelines) against the sandbox, median:');
  console.log(`  undici request, directly           ${fmtMs(call.direct)}  1.00×`);
  console.log(
    `  tools/call through forgeops mcp    ${fmtMs(call.mcp)}  ${(call.mcp / call.direct).toFixed(2)}×   overhead ${overhead.toFixed(2)} ms`,
  );
  console.log(
    `  its first tools/call (loads its area and undici) ${fmtMs(call.first)}   peak RSS after it ${fmtMiB(call.firstRssMiB)}, after all ${fmtMiB(call.rssMiB)}`,
  );
  const { afterFirst, atHalf, atEnd, peakAtHalf, peakAtEnd } = call.session;
  console.log(
    `  RSS of that session: after its first call ${fmtMiB(afterFirst)}, after ${Math.floor(calls / 2)} calls ${fmtMiB(atHalf)} (peak ${fmtMiB(peakAtHalf)}), after ${calls} ${fmtMiB(atEnd)} (peak ${fmtMiB(peakAtEnd)})`,
  );
  const firstAtOnce = [];
  const firstAfterThinking = [];
  for (let i = 0; i < FIRST_CALL_SERVERS; i++) {
    firstAtOnce.push(await measureFirstCall(service, 0));
    firstAfterThinking.push(await measureFirstCall(service, THINK_MS));
  }
  console.log(
    `  first tools/call right after tools/list      ${fmtMs(median(firstAtOnce))}   (median of ${FIRST_CALL_SERVERS} fresh servers)`,
  );
  console.log(
    `  first tools/call ${THINK_MS / 1000} s after tools/list        ${fmtMs(median(firstAfterThinking))}   (the offered areas loaded meanwhile)`,
  );

  const firstCall = await measureSpawnToFirstCall(service);
  console.log(
    '\nspawn → initialize → tools/list → first tools/call (list_pipelines) answered, median (baseline: one-tool McpServer whose tool makes the request with undici):',
  );
  console.log(
    `  one-tool McpServer + undici        ${fmtMs(firstCall.baseline)}  1.00×   its call ${fmtMs(firstCall.baselineCall)}`,
  );
  console.log(
    `  forgeops mcp                       ${fmtMs(firstCall.forgeops)}  ${(firstCall.forgeops / firstCall.baseline).toFixed(2)}×   its call ${fmtMs(firstCall.forgeopsCall)}`,
  );

  const startRatio = median(samples.forgeops) / base;
  const startAdded = (median(samples.forgeops) - bare) / (base - bare);
  const rss = median(samples.forgeopsRss);
  console.log('\ntargets:');
  console.log(
    `  start ≤ ${TARGETS.startRatio}× the one-tool server: ${startRatio.toFixed(2)}×, ${verdict(startRatio <= TARGETS.startRatio)}`,
  );
  console.log(
    `  start adds ≤ ${TARGETS.startAdded}× what the one-tool server adds to bare Node: ${startAdded.toFixed(2)}×, ${verdict(startAdded <= TARGETS.startAdded)}`,
  );
  const firstCallRatio = firstCall.forgeops / firstCall.baseline;
  console.log(
    `  spawn → first tools/call ≤ ${TARGETS.firstCallRatio}× the one-tool server's: ${firstCallRatio.toFixed(2)}×, ${verdict(firstCallRatio <= TARGETS.firstCallRatio)}`,
  );
  if (rss !== undefined)
    console.log(`  peak RSS ≤ ${TARGETS.peakRssMiB} MiB: ${rss.toFixed(1)} MiB, ${verdict(rss <= TARGETS.peakRssMiB)}`);
  console.log(
    `  tools/call overhead ≤ ${TARGETS.callOverheadMs} ms: ${overhead.toFixed(2)} ms, ${verdict(overhead <= TARGETS.callOverheadMs)}`,
  );
  if (peakAtEnd !== undefined && peakAtHalf !== undefined) {
    console.log(
      `  peak RSS after ${calls} calls ≤ ${TARGETS.sessionRssMiB} MiB: ${peakAtEnd.toFixed(1)} MiB, ${verdict(peakAtEnd <= TARGETS.sessionRssMiB)}`,
    );
    const growth = peakAtEnd - peakAtHalf;
    console.log(
      `  RSS flat over the second half (peak ≤ ${TARGETS.sessionGrowthMiB} MiB higher): +${growth.toFixed(1)} MiB, ${verdict(growth <= TARGETS.sessionGrowthMiB)}`,
    );
  }
} catch (error) {
  failed = true;
  console.error(`mcp bench: ${error.stack ?? error}`);
} finally {
  clearTimeout(overall);
  await cleanup();
}
process.exitCode = failed ? 1 : 0;
