// Benchmark: triage_project on a project with 2,000 pipelines and 500 more commits on main (red for the last 20
// commits, the same test failing in each: its flaky/broken history is read too), against one list_pipelines call in the
// same run: requests made and time, as ratios. Measured twice:
// against the sandbox (whose git reads cost what git costs), and through a proxy that adds a fixed latency to each
// request, as a remote service does (there the number of sequential rounds decides).
// Run by hand after `npm run build`: node tools/bench/triage.mjs [runs] [latency ms]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { createServer, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { numbers, smoke } from './args.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const runs = smoke ? 2 : (numbers[0] ?? 30);
const latencyMs = smoke ? 5 : (numbers[1] ?? 40);
const WARM_UP = smoke ? 1 : 3;
// The smoke run keeps the shape (green, then red for the last commits) at a tenth of a second's worth of data.
const PIPELINES = smoke ? 40 : 2000;
const COMMITS = smoke ? 20 : 500;
const RED_COMMITS = smoke ? 4 : 20;
const { startSandbox } = await import(`${root}dist/sandbox/server.js`);
const { HttpClient } = await import(`${root}dist/http/client.js`);
const { executeOperation } = await import(`${root}dist/operations/engine/execute.js`);
const { findOperation } = await import(`${root}dist/operations/index.js`);
const { jobsOf, setJobLog } = await import(`${root}dist/sandbox/areas/jobs/index.js`);

const sandbox = await startSandbox({ port: 0 });
const project = sandbox.store.projects.find((p) => p.full_path === 'acme/web');

// 500 commits on main in one fast-import, each touching one file.
const tip = (await project.repo.run(['rev-parse', 'refs/heads/main'])).stdout.toString().trim();
const stream = [];
const epoch = Math.floor(Date.now() / 1000) - COMMITS * 600;
for (let i = 0; i < COMMITS; i++) {
  const body = `change ${i}\n`;
  const message = `Change number ${i}\n`;
  stream.push(
    'commit refs/heads/main',
    `mark :${i + 1}`,
    `author Bench ${i % 7} <bench${i % 7}@acme.example> ${epoch + i * 600} +0000`,
    `committer Bench ${i % 7} <bench${i % 7}@acme.example> ${epoch + i * 600} +0000`,
    `data ${Buffer.byteLength(message)}`,
    message.trimEnd(),
    ...(i === 0 ? [`from ${tip}`] : []),
    `M 100644 inline bench/file-${i % 50}.txt`,
    `data ${Buffer.byteLength(body)}`,
    body.trimEnd(),
    '',
  );
}
const marks = `${project.repo.dir}/bench-marks`;
await project.repo.run(['fast-import', '--quiet', `--export-marks=${marks}`], {
  input: Buffer.from(`${stream.join('\n')}\n`),
});
const { readFile, rm } = await import('node:fs/promises');
const shas = (await readFile(marks, 'utf8'))
  .trim()
  .split('\n')
  .map((line) => line.split(' ')[1]);
await rm(marks);

// 2,000 pipelines on main, four per commit, green until the last 20 commits.
const user = sandbox.store.users.find((u) => u.username === 'alice');
for (let n = 0; n < PIPELINES; n++) {
  const index = Math.floor((n * COMMITS) / PIPELINES);
  const red = index >= COMMITS - RED_COMMITS;
  const at = new Date((epoch + index * 600 + 60) * 1000);
  project.pipelines.push({
    id: sandbox.store.nextId('pipeline'),
    project_id: project.id,
    status: red ? 'failed' : 'success',
    ref: 'main',
    sha: shas[index],
    before_sha: index > 0 ? shas[index - 1] : tip,
    tag: false,
    name: null,
    yaml_errors: null,
    user_id: user.id,
    created_at: at,
    updated_at: at,
    started_at: at,
    finished_at: at,
    committed_at: at,
    duration: 60,
    coverage: null,
    variables: [],
  });
}
const head = project.pipelines.at(-1);
const failedJob = {
  id: sandbox.store.nextId('job'),
  project_id: project.id,
  pipeline_id: head.id,
  name: 'test',
  stage: 'test',
  status: 'failed',
  failure_reason: 'script_failure',
  allow_failure: false,
  manual: false,
  user_id: user.id,
  created_at: head.created_at,
  started_at: head.started_at,
  finished_at: head.finished_at,
  erased_at: null,
  coverage: null,
  retried: false,
  artifacts: [],
};
jobsOf(sandbox.store).jobs.push(failedJob);
// The same test failed in every red pipeline before the head: the history triage judges "broken" from.
for (const pipeline of project.pipelines.filter(
  (p) => p.status === 'failed' && p.id !== head.id && p.ref === 'main' && shas.includes(p.sha),
)) {
  jobsOf(sandbox.store).jobs.push({
    ...failedJob,
    id: sandbox.store.nextId('job'),
    pipeline_id: pipeline.id,
    created_at: pipeline.created_at,
    started_at: pipeline.started_at,
    finished_at: pipeline.finished_at,
  });
}
setJobLog(
  sandbox.store,
  failedJob.id,
  `${'ok\n'.repeat(20_000)}FAIL test/bench.test.ts\n  expected 1, received 2\n${'ok\n'.repeat(50)}ERROR: Job failed: exit code 1\n`,
);

/** A loopback proxy to the sandbox that holds each request `latencyMs` before forwarding it. */
const target = new URL(sandbox.url);
const proxy = createServer((req, res) => {
  setTimeout(() => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  }, latencyMs);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${proxy.address().port}`;

const triage = findOperation('triage_project');
const list = findOperation('list_pipelines');

async function measure(client, fn) {
  for (let i = 0; i < WARM_UP; i++) await fn(client);
  sandbox.requests.clear();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await fn(client);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], requests: sandbox.requests.all().length / runs };
}

let report;
const listOnce = (client) => executeOperation(list, { id: 'acme/web', ref: 'main', per_page: 100 }, { client });
const triageOnce = async (client) => {
  report = (await executeOperation(triage, { id: 'acme/web' }, { client })).data;
};
const results = [];
try {
  for (const [where, baseUrl] of [
    ['sandbox', sandbox.url],
    [`sandbox + ${latencyMs} ms per request`, proxyUrl],
  ]) {
    // No proxy from the environment: both targets are on loopback, started here.
    const client = new HttpClient({ baseUrl, token: sandbox.tokens.maintainer, retry: { maxRetries: 0 }, proxy: {} });
    try {
      results.push({ where, baseline: await measure(client, listOnce), composed: await measure(client, triageOnce) });
    } finally {
      await client.close();
    }
  }
} finally {
  // On every path, so that a failing run leaves no server behind.
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await sandbox.close();
}

console.log(
  `acme/web with ${project.pipelines.length} pipelines and ${COMMITS} more commits on main; ${runs} runs each, medians`,
);
console.log(
  `verdict ${report.verdict}; red since #${report.red_since?.first_red.pipeline}; ${report.failed_jobs.length} failed job read; unread: ${report.unread.join('; ') || 'none'}`,
);
console.log(`failure: ${report.failure?.kind} (${report.failure?.evidence})`);
for (const { where, baseline, composed } of results) {
  console.log(`${where}:`);
  console.log(
    `  list_pipelines (100 items): ${baseline.requests.toFixed(0)} request,  ${baseline.median.toFixed(1)} ms (1.00x)`,
  );
  console.log(
    `  triage_project:             ${composed.requests.toFixed(0)} requests, ${composed.median.toFixed(1)} ms (${(composed.median / baseline.median).toFixed(2)}x time, ${(composed.requests / baseline.requests).toFixed(0)}x requests)`,
  );
}
