// Benchmark: what watching costs and how soon it tells. Two replicas (a process each, a WatchHub each) share a real
// redis-server on loopback and watch N projects of a small scripted service on loopback that counts every request.
// (a) Cost, while nothing changes: service requests per minute against the ceiling of one per project per interval
//     (and per project per interval against the ideal 1.0, over the window's intervals; use a short interval),
//     and the replicas' CPU time and RSS per watched project against the same replicas watching 0 projects.
// (b) Latency, from a project's pipeline turning red on the service to the sink being told: by polling (expect at
//     most the interval and a second) and nudged as a webhook does (hub.nudge; expect well under a second), against
//     the same reads made directly (one list_pipelines and one triage_project) in the same run.
// Needs redis-server (Debian's package). Run by hand after `npm run build`:
// node tools/bench/watch.mjs [projects=200] [interval ms=2000] [window s=30] [latency samples=5]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { fork, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { numbers, smoke } from './args.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const self = fileURLToPath(import.meta.url);

/** One replica: a WatchHub over the shared Redis, reading the scripted service, answering the bench over IPC. */
async function runReplica() {
  const { WatchHub } = await import(`${root}dist/watch/hub.js`);
  const { RedisStore } = await import(`${root}dist/state/redis-store.js`);
  const { HttpClient } = await import(`${root}dist/http/client.js`);
  const { operations } = await import(`${root}dist/operations/index.js`);
  const { REDIS_URL, SERVICE_URL, REPLICA, INTERVAL_MS, PROJECTS } = process.env;
  const store = await RedisStore.open(REDIS_URL, { keyPrefix: 'bench:' });
  const client = new HttpClient({ baseUrl: SERVICE_URL, token: 'bench-token' });
  const checks = {};
  const log = {
    error: (m) => process.stderr.write(`${REPLICA}: ${m}\n`),
    warn: (m) => process.stderr.write(`${REPLICA}: ${m}\n`),
    info: () => {},
    debug: () => {},
  };
  const hub = new WatchHub({
    store,
    peers: store,
    operations: () => operations,
    runContext: () => ({ client }),
    log,
    holder: REPLICA,
    intervalMs: Number(INTERVAL_MS),
    maxWatches: Number(PROJECTS) + 10,
    maxPerSubscriber: Number(PROJECTS) + 10,
    storeName: store.label,
    recorder: {
      checked: (result) => {
        checks[result] = (checks[result] ?? 0) + 1;
      },
      requested: () => {},
      told: () => {},
    },
  });
  hub.addSink({
    prefix: 'bench:',
    deliver: async (_subscription, event) => {
      process.send({ type: 'told', kind: event.kind, project: event.project, at: Date.now() });
    },
  });
  await hub.start();
  process.on('message', async (message) => {
    const answer = (data) => process.send({ type: 'answer', id: message.id, ...data });
    try {
      if (message.type === 'usage') {
        // The collections asked for here (so RSS holds what is live) are kept out of the window's CPU time.
        const collect = () => {
          for (let i = 0; i < 3; i++) global.gc?.();
        };
        if (message.phase === 'start') collect();
        const cpu = process.cpuUsage();
        if (message.phase === 'end') collect();
        const memory = process.memoryUsage();
        answer({
          cpuMs: (cpu.user + cpu.system) / 1000,
          rss: memory.rss,
          heap: memory.heapUsed,
          counts: hub.counts(),
          checks: { ...checks },
        });
      } else if (message.type === 'subscribe') {
        // A few at a time, as people in channels would; each reads the project and triages it once.
        const projects = message.projects;
        for (let i = 0; i < projects.length; i += 10) {
          await Promise.all(
            projects.slice(i, i + 10).map((project) => hub.subscribe({ subscriber: 'bench:C1', project })),
          );
        }
        answer({});
      } else if (message.type === 'nudge') {
        await hub.nudge(message.project);
        answer({});
      } else if (message.type === 'close') {
        await hub.close();
        await store.close();
        await client.close();
        return void process.send({ type: 'answer', id: message.id }, () => process.exit(0));
      }
    } catch (error) {
      answer({ error: error.message });
    }
  });
  process.send({ type: 'ready' });
}

async function runBench() {
  const projects = smoke ? 6 : (numbers[0] ?? 200);
  const intervalMs = smoke ? 500 : (numbers[1] ?? 2000);
  const windowMs = (smoke ? 2 : (numbers[2] ?? 30)) * 1000;
  const samples = smoke ? 1 : (numbers[3] ?? 5);
  const service = await startService(projects);
  const redis = await startRedisServer();
  const replicas = [];
  try {
    // Started together; each is pushed as soon as it is up, so a failing start still stops the other one below.
    await Promise.all(
      ['replica-1', 'replica-2'].map(async (name) => {
        replicas.push(await startReplica(name, { redisUrl: redis.url, serviceUrl: service.url, intervalMs, projects }));
      }),
    );
    replicas.sort((a, b) => a.name.localeCompare(b.name));
    await reportLoad({ service, replicas, projects, intervalMs, windowMs });
    await reportLatency({ service, replicas, intervalMs, samples });
  } finally {
    for (const replica of replicas) await replica.close();
    await redis.stop();
    await service.close();
  }
}

/** (a) What watching costs: service requests, CPU and memory of both replicas, idle and then with every project watched. */
async function reportLoad({ service, replicas, projects, intervalMs, windowMs }) {
  const [one] = replicas;
  const usage = async (phase) => Promise.all(replicas.map((r) => r.ask({ type: 'usage', phase })));

  // Baseline: the same two replicas, watching nothing, over the same window (once their start-up is over).
  await sleep(intervalMs * 2);
  const idle = await measure(service, usage, windowMs);

  // N projects watched; a few intervals for every first check (and the leases) to settle before measuring.
  const names = Array.from({ length: projects }, (_, i) => projectName(i));
  await one.ask({ type: 'subscribe', projects: names });
  await sleep(intervalMs * 3);
  const loaded = await measure(service, usage, windowMs);
  const counts = loaded.end.map((u) => u.counts);
  const checksOf = (results) => {
    const sum = {};
    for (const u of results) for (const [k, v] of Object.entries(u.checks)) sum[k] = (sum[k] ?? 0) + v;
    return sum;
  };
  const before = checksOf(loaded.start);
  const after = checksOf(loaded.end);
  const checksInWindow = Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)])
      .filter(([, v]) => v > 0),
  );

  const perMinute = (n, ms) => (n * 60_000) / ms;
  const ceiling = perMinute(projects, intervalMs);
  const requestsPerMinute = perMinute(loaded.requests, loaded.ms);
  const idleRequestsPerMinute = perMinute(idle.requests, idle.ms);
  const cpuPerMinute = (m) => perMinute(m.cpuMs, m.ms);
  const mib = (bytes) => bytes / 1024 / 1024;
  console.log(
    `watch bench: ${projects} projects on 2 replicas sharing one Redis, interval ${intervalMs} ms, window ${windowMs / 1000} s, nothing changing`,
  );
  console.log(
    `  polling: ${counts.map((c, i) => `replica-${i + 1} ${c.polling} polling, ${c.standingBy} standing by`).join('; ')}`,
  );
  console.log(
    `  checks in the window: ${Object.entries(checksInWindow)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
  );
  console.log(
    `baseline (0 projects): ${idleRequestsPerMinute.toFixed(1)} service requests/min, CPU ${cpuPerMinute(idle).toFixed(0)} ms/min, RSS ${mib(idle.rss).toFixed(1)} MiB, heap ${mib(idle.heap).toFixed(1)} MiB (both replicas) (1.00x)`,
  );
  console.log(
    `service requests: ${requestsPerMinute.toFixed(0)}/min for ${projects} projects = ${(requestsPerMinute / projects).toFixed(2)} per project per minute; ceiling one per project per interval ${ceiling.toFixed(0)}/min (${(requestsPerMinute / ceiling).toFixed(2)}x the ceiling)`,
  );
  // The same count per interval: the watch's aim is one check (one request) per project per interval, whichever
  // replica holds the project's lease.
  const intervals = loaded.ms / intervalMs;
  const perProjectPerInterval = loaded.requests / projects / intervals;
  console.log(
    `requests per project per interval: ${perProjectPerInterval.toFixed(2)} over ${intervals.toFixed(0)} intervals (ideal 1.00; ${perProjectPerInterval <= 1 ? 'at most' : 'MORE than'} one)`,
  );
  console.log(
    `CPU: ${cpuPerMinute(loaded).toFixed(0)} ms/min (${(cpuPerMinute(loaded) / Math.max(cpuPerMinute(idle), 0.001)).toFixed(2)}x the baseline), ${((cpuPerMinute(loaded) - cpuPerMinute(idle)) / projects).toFixed(2)} ms/min per watched project`,
  );
  console.log(
    `RSS: ${mib(loaded.rss).toFixed(1)} MiB (${(loaded.rss / idle.rss).toFixed(2)}x the baseline), ${((loaded.rss - idle.rss) / projects / 1024).toFixed(1)} KiB per watched project`,
  );
  console.log(
    `heap used: ${mib(loaded.heap).toFixed(1)} MiB (${(loaded.heap / idle.heap).toFixed(2)}x the baseline), ${((loaded.heap - idle.heap) / projects / 1024).toFixed(1)} KiB per watched project`,
  );
}

/** (b) How soon red is told: polled, and nudged as a webhook would, against the reads made directly. */
async function reportLatency({ service, replicas, intervalMs, samples }) {
  const { HttpClient } = await import(`${root}dist/http/client.js`);
  const { executeOperation } = await import(`${root}dist/operations/engine/execute.js`);
  const { findOperation } = await import(`${root}dist/operations/index.js`);
  const [, two] = replicas;
  // (b) Latency. The baseline: the reads a check makes on a change (the watch's list_pipelines, then triage), made
  // directly against the same service.
  const direct = new HttpClient({ baseUrl: service.url, token: 'bench-token' });
  const listPipelines = findOperation('list_pipelines');
  const triage = findOperation('triage_project');
  const directTimes = [];
  for (let i = 0; i < Math.max(3, samples); i++) {
    const started = performance.now();
    await executeOperation(listPipelines, { id: projectName(0), ref: 'main', per_page: 1 }, { client: direct });
    await executeOperation(triage, { id: projectName(0) }, { client: direct });
    directTimes.push(performance.now() - started);
  }
  await direct.close();
  const baseline = median(directTimes);

  let next = 0;
  const turnRed = async (nudge) => {
    const project = projectName(next++);
    const told = waitForRed(replicas, project);
    const at = Date.now();
    service.turnRed(project);
    if (nudge) await two.ask({ type: 'nudge', project });
    return (await told) - at;
  };
  const polled = [];
  for (let i = 0; i < samples; i++) polled.push(await turnRed(false));
  const nudged = [];
  for (let i = 0; i < samples; i++) {
    // Not right after a periodic check: a nudge that lands on a check in flight is followed by one more.
    await sleep(intervalMs * Math.random());
    nudged.push(await turnRed(true));
  }
  console.log(`latency from red on the service to the sink told, ${samples} samples each:`);
  console.log(`  baseline (list_pipelines + triage_project made directly): median ${baseline.toFixed(1)} ms (1.00x)`);
  console.log(
    `  polling every ${intervalMs} ms: median ${median(polled).toFixed(0)} ms, max ${Math.max(...polled).toFixed(0)} ms (${(median(polled) / baseline).toFixed(1)}x; max ${(Math.max(...polled) / intervalMs).toFixed(2)}x the interval)`,
  );
  console.log(
    `  nudged (hub.nudge, as a webhook): median ${median(nudged).toFixed(0)} ms, max ${Math.max(...nudged).toFixed(0)} ms (${(median(nudged) / baseline).toFixed(1)}x)`,
  );
}

/** Service requests, CPU and RSS of both replicas over one window. */
async function measure(service, usage, windowMs) {
  const start = await usage('start');
  const requestsAtStart = service.requests;
  const started = performance.now();
  await sleep(windowMs);
  const end = await usage('end');
  const ms = performance.now() - started;
  const cpuMs = end.reduce((sum, u, i) => sum + u.cpuMs - start[i].cpuMs, 0);
  const rss = end.reduce((sum, u) => sum + u.rss, 0);
  const heap = end.reduce((sum, u) => sum + u.heap, 0);
  return { start, end, ms, requests: service.requests - requestsAtStart, cpuMs, rss, heap };
}

function waitForRed(replicas, project) {
  return new Promise((resolve) => {
    const heard = (message) => {
      if (message.type !== 'told' || message.kind !== 'red' || message.project !== project) return;
      for (const r of replicas) r.child.off('message', heard);
      resolve(message.at);
    };
    for (const r of replicas) r.child.on('message', heard);
  });
}

async function startReplica(name, { redisUrl, serviceUrl, intervalMs, projects }) {
  const child = fork(self, ['--replica'], {
    env: {
      ...process.env,
      REDIS_URL: redisUrl,
      SERVICE_URL: serviceUrl,
      REPLICA: name,
      INTERVAL_MS: String(intervalMs),
      PROJECTS: String(projects),
    },
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise((resolve, reject) => {
    child.once('message', (m) =>
      m.type === 'ready' ? resolve() : reject(new Error(`${name} said ${JSON.stringify(m)}`)),
    );
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
  let asked = 0;
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const id = ++asked;
      const heard = (m) => {
        if (m.type !== 'answer' || m.id !== id) return;
        child.off('message', heard);
        if (m.error) reject(new Error(`${name}: ${m.error}`));
        else resolve(m);
      };
      child.on('message', heard);
      child.send({ ...message, id });
    });
  return {
    name,
    child,
    ask,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await Promise.race([ask({ type: 'close' }).catch(() => undefined), sleep(5000)]);
      // Stopped by its PID when it does not exit of its own accord.
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const projectName = (i) => `bench/p${i}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The scripted service: N projects, each with main green (a passing pipeline on its head), answering the reads of a
 * watch and of triage; turnRed(project) puts a failed pipeline on a new head commit. Every request is counted.
 */
async function startService(count) {
  const at = (ms) => new Date(ms).toISOString();
  const start = Date.now() - 3600_000;
  const state = new Map();
  for (let i = 0; i < count; i++) {
    const green = {
      id: i * 10 + 1,
      sha: `${'a'.repeat(32)}${String(i).padStart(8, '0')}`,
      status: 'success',
      ref: 'main',
      created_at: at(start),
      updated_at: at(start + 60_000),
      source: 'push',
    };
    state.set(projectName(i), { id: i + 1, pipelines: [green] });
  }
  const commitOf = (sha) => ({
    id: sha,
    short_id: sha.slice(0, 8),
    title: `Change ${sha.slice(-4)}`,
    author_name: 'Bench',
    created_at: at(start),
  });
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const url = new URL(req.url, 'http://service');
    const send = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const match = /^\/api\/v4\/projects\/([^/]+)(\/.*)?$/.exec(url.pathname);
    // A project is asked for by its path or, as watches keep it, by its number.
    const asked = match ? decodeURIComponent(match[1]) : '';
    const name = state.has(asked) ? asked : [...state.keys()].find((key) => String(state.get(key).id) === asked);
    const project = name === undefined ? undefined : state.get(name);
    if (!project) return send(404, { message: '404 Project Not Found' });
    const rest = match[2] ?? '';
    const head = project.pipelines[0];
    if (rest === '')
      return send(200, {
        id: project.id,
        path_with_namespace: name,
        default_branch: 'main',
        web_url: `http://service/${name}`,
      });
    if (rest === '/pipelines') {
      const after = url.searchParams.get('updated_after');
      const listed = after ? project.pipelines.filter((p) => p.updated_at > after) : project.pipelines;
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      return send(200, listed.slice(0, perPage));
    }
    if (rest === '/repository/branches/main') return send(200, { name: 'main', commit: commitOf(head.sha) });
    if (rest === '/releases') return send(200, []);
    if (rest.startsWith('/repository/commits/'))
      return send(200, commitOf(decodeURIComponent(rest.slice('/repository/commits/'.length))));
    if (rest === '/repository/commits') return send(200, [commitOf(head.sha)]);
    if (/^\/pipelines\/\d+\/jobs$/.test(rest))
      return send(
        200,
        head.status === 'failed'
          ? [{ id: head.id * 100, name: 'test', stage: 'test', status: 'failed', failure_reason: 'script_failure' }]
          : [],
      );
    if (/^\/jobs\/\d+\/trace$/.test(rest))
      return res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end('FAIL test/orders.test.ts\nError: expected 1 to be 2\n');
    return send(404, { message: '404 Not Found' });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    get requests() {
      return requests;
    },
    turnRed(name) {
      const project = state.get(name);
      const now = Date.now();
      const sha = `${'b'.repeat(32)}${String(project.id).padStart(8, '0')}`;
      project.pipelines.unshift({
        id: project.pipelines[0].id + 1,
        sha,
        status: 'failed',
        ref: 'main',
        created_at: at(now - 1000),
        updated_at: at(now),
        source: 'push',
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A redis-server on a free loopback port, nothing saved, stopped by its PID. */
async function startRedisServer() {
  const port = await new Promise((resolve) => {
    const probe = createNetServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const missing = new Promise((resolve) => child.once('error', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) child.kill('SIGTERM');
    if (child.pid !== undefined) await exited;
  };
  const { RedisStore } = await import(`${root}dist/state/redis-store.js`);
  for (let i = 0; i < 200; i++) {
    const failed = await Promise.race([missing, sleep(25)]);
    if (failed)
      throw new Error(`redis-server could not be started (${failed.message}); Debian: apt-get install redis-server`);
    const probe = await RedisStore.open(`redis://127.0.0.1:${port}`);
    const up = await probe.ping();
    await probe.close();
    if (up) return { url: `redis://127.0.0.1:${port}`, stop };
  }
  await stop();
  throw new Error(`redis-server on 127.0.0.1:${port} did not answer within 5 s`);
}

// Last, so that everything above is defined when it runs.
if (process.argv.includes('--replica')) await runReplica();
else await runBench();
