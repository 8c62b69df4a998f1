// What the benches of `forgeops serve` share (sessions.mjs, serve-cpu.mjs, sign-in.mjs): children stopped on every exit
// path, serve of a given build started against a code host, a raw MCP client over HTTP (no client
// library's cost in the load), a load of concurrent sessions, and a process's CPU time and RSS from /proc.
import { tmpdir } from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The build under test; FORGEOPS_BENCH_BASE_CLI names an older one to compare with (see serve-cpu.mjs). */
export const thisCli = `${root}dist/cli.js`;
export const TOKEN = 'fo-maintainer-sandbox-token';
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

// ---- children: every one is stopped on every exit path ----
export const children = new Set();
export function startChild(command, args, env = {}) {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const collect = (chunk) => {
    output = (output + chunk).slice(-8000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  // Once closed: exited, and all it wrote read (why it stopped may come after the exit itself).
  const exited = new Promise((resolve) =>
    child.once('close', () => {
      children.delete(child);
      resolve();
    }),
  );
  return { child, exited, output: () => output };
}
export async function stop(started) {
  if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGTERM');
  // Unref'd: a child that exits at once must not leave a timer holding the bench open for the rest of the wait.
  const gone = await Promise.race([
    started.exited.then(() => true),
    new Promise((r) => setTimeout(() => r(false), 30_000).unref()),
  ]);
  if (!gone) started.child.kill('SIGKILL');
}
export async function cleanup() {
  await Promise.all([...children].map((child) => stop({ child, exited: new Promise((r) => child.once('close', r)) })));
}

/** Waits until `text` shows in the child's output (bounded: 200 tries of 50 ms). */
export async function waitFor(started, pattern, what) {
  for (let i = 0; i < 200; i++) {
    const found = started.output().match(pattern);
    if (found) return found;
    if (started.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not start:\n${started.output()}`);
}

/** CPU ms (user + system) a process has used so far, and its peak RSS in MiB. */
export function processStats(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    cpuMs,
    peakRssMiB: Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024,
    rssMiB: Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024,
  };
}

/**
 * `forgeops serve` of the build `cli` against `sandboxUrl`, with the maintainer's token unless `env` says otherwise,
 * on the port it prints: one the system gives it as it binds (a port chosen here and bound later might be given to
 * another program meanwhile), or env.FORGEOPS_PORT when the code host must know it beforehand (an OAuth redirect URI:
 * start it with onFreePort, which tries a new port when another program was given that one first).
 */
export async function startServe(sandboxUrl, env = {}, cli = thisCli) {
  const serve = startChild(process.execPath, [cli, 'serve'], {
    CODEHOST_URL: sandboxUrl,
    CODEHOST_TOKEN: TOKEN,
    FORGEOPS_PORT: '0',
    FORGEOPS_MAX_SESSIONS: '1200',
    FORGEOPS_LOG_LEVEL: 'warn',
    ...env,
  });
  const printed = await waitFor(serve, /http:\/\/127\.0\.0\.1:(\d+)\/mcp/, 'forgeops serve').catch(async () => {
    // Stopped, and its output read to the end, before it is said: a caller starting serve again on another port
    // (onFreePort, after 'port … is in use') must leave nothing running.
    await stop(serve);
    throw new Error(`forgeops serve did not start:\n${serve.output()}`);
  });
  const port = Number(printed[1]);
  return { ...serve, port, url: `http://127.0.0.1:${port}/mcp` };
}

// ---- a raw MCP client: no client library's cost in the load ----
export const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const newAgent = () => new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
export let dispatcher = newAgent();

/**
 * Drops every kept-alive connection, for after a serve stopped: the next one may be given the same port, and a kept
 * connection to the stopped one would be reset on its first request.
 */
export async function dropConnections() {
  const old = dispatcher;
  dispatcher = newAgent();
  await old.destroy();
}

export async function post(url, body, headers = {}) {
  const answer = await request(url, {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify(body),
    dispatcher,
  });
  const text = await answer.body.text();
  return { status: answer.statusCode, sessionId: answer.headers['mcp-session-id'], text };
}

/** Opens a 2025-11-25 session; `auth` is added to every request of it (an Authorization header, in OAuth mode). */
export async function openSession(url, auth = {}) {
  const opened = await post(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
    auth,
  );
  if (!opened.sessionId) throw new Error(`initialize answered ${opened.status}: ${opened.text.slice(0, 200)}`);
  const headers = { ...auth, 'mcp-session-id': opened.sessionId, 'mcp-protocol-version': '2025-11-25' };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

export const CALL = { name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 20 } };

export async function toolCall(url, headers, id) {
  const started = performance.now();
  const answer = await post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: CALL }, headers);
  if (answer.status !== 200 || !answer.text.includes('"result"') || answer.text.includes('"isError":true')) {
    throw new Error(`tools/call answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  return performance.now() - started;
}

/** The same request as the tool makes, straight to the sandbox. */
export async function directCall(sandboxUrl) {
  const started = performance.now();
  const answer = await request(`${sandboxUrl}/api/v4/projects/acme%2Fweb/pipelines?per_page=20`, {
    headers: { 'private-token': TOKEN },
    dispatcher,
  });
  await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`sandbox answered ${answer.statusCode}`);
  return performance.now() - started;
}

export function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** `sessions` workers at once, each doing `calls` in a row; answers the latencies and the wall time. */
export async function load(sessions, calls, work) {
  const latencies = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      const next = await work.open(s);
      for (let c = 0; c < calls; c++) latencies.push(await next(c + 1));
    }),
  );
  const wallMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { wallMs, calls: latencies.length, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

/** A 2025-11-25 session over raw HTTP: the load generator's own cost stays small. */
export const sessionClient =
  (url, auth = {}) =>
  async () => {
    const headers = await openSession(url, auth);
    return (id) => toolCall(url, headers, id);
  };

/** An SDK v2 client on the stateless 2026-07-28 revision (no session: any replica may answer each call). */
export const statelessClient = (url) => async () => {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return async () => {
    const started = performance.now();
    const result = await client.callTool(CALL);
    if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    return performance.now() - started;
  };
};

/** `sessions` × `calls` tool calls through serve, after a warm-up; the serve CPU ms per call of the processes `pids`. */
export async function loadOnServe(url, pids, { sessions, calls, client = sessionClient(url) }) {
  // Warm-up, not counted: the first calls compile the hot paths (V8 compiles on threads of the process, so with two
  // replicas each pays it) and open the connections to the sandbox.
  await load(Math.min(sessions, 50), Math.min(calls, 20), { open: client });
  const before = pids.map((pid) => processStats(pid).cpuMs);
  const run = await load(sessions, calls, { open: client });
  const stats = pids.map(processStats);
  const cpuMs = stats.reduce((sum, s, i) => sum + s.cpuMs - before[i], 0);
  return { ...run, cpuMsPerCall: cpuMs / run.calls, peakRssMiB: Math.max(...stats.map((s) => s.peakRssMiB)) };
}

/**
 * Runs a bench's main to its end: then the overall timer is cleared and every server stopped (the pool destroyed, not
 * closed: close would wait out the idle sockets); a failure is said, named, and exits 1.
 */
export function runBench(name, main, overall) {
  main().then(
    async () => {
      clearTimeout(overall);
      await dispatcher.destroy();
      await cleanup();
    },
    async (error) => {
      console.error(`${name} bench failed: ${error.stack ?? error}`);
      await cleanup();
      process.exit(1);
    },
  );
}
