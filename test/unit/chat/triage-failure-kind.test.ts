// Flaky, broken or infrastructure, through triage against the sandbox: acme/web's seeded story (bob's time-zone commit
// breaks `test` on every run since), then histories built in the sandbox with its retry endpoints and its store
// standing in for a runner (a retry that fails again, a pass on the same commit, a pass on a retry, runner failures,
// a single run). Each verdict is checked against the job history read the plain way, and in the chat message.
import { describe, expect, it } from 'vitest';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { HISTORY_PIPELINES, INFRASTRUCTURE_REASONS } from '../../../src/operations/composed/failure-kind.js';
import { jobsOf, type Job } from '../../../src/sandbox/areas/jobs/index.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { Pipeline } from '../../../src/sandbox/core/store.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

// The runner's clock held still: nothing runs but what these tests make happen (triage-failure-kind-runner lets it run).
const env = useSandbox({ clock: new ManualClock() });
const PROJECT = 'acme/web';

const dispatcher = () => testDispatcher(() => env.client);

async function data<T = Array<Record<string, unknown>>>(name: string, input: Record<string, unknown>): Promise<T> {
  const reply = await dispatcher().call(name, input);
  if (reply.kind !== 'message' || !reply.outcome?.ok)
    throw new Error(`${name} failed: ${reply.kind === 'message' ? JSON.stringify(reply.message) : reply.kind}`);
  return reply.outcome.result.data as T;
}

async function triage() {
  const report = await data<TriageReport>('triage_project', { id: PROJECT });
  // The chat command's message: what a person reads in the terminal and in Slack.
  const reply = await dispatcher().dispatch(`triage ${PROJECT}`);
  if (reply.kind !== 'message' || !reply.ok) throw new Error('triage failed');
  const failure = reply.message.fields.find(([k]) => k === 'failure')?.[1];
  return { report, message: reply.message, failure };
}

const sha8 = (sha: unknown) => String(sha).slice(0, 8);
const web = () => env.sandbox.store.projects.find((p) => p.full_path === PROJECT)!;
const mainHead = async () => (await data('list_commits', { id: PROJECT, ref_name: 'main', per_page: 1 }))[0];

/** What a runner would do with a job: run it to `status` (a failure with its reason). */
function finish(job: Job, status: 'success' | 'failed', reason = 'script_failure'): void {
  const now = Date.now();
  Object.assign(job, {
    status,
    failure_reason: status === 'failed' ? reason : null,
    started_at: new Date(now - 30_000),
    finished_at: new Date(now),
  });
}

/** A finished pipeline on `ref` (main by default) at `sha` with its jobs run as given; returns it and its jobs. */
function ranPipeline(
  sha: string,
  jobs: Array<[name: string, status: 'success' | 'failed', reason?: string]>,
  ref = 'main',
): { pipeline: Pipeline; jobs: Job[] } {
  const store = env.sandbox.store;
  const project = web();
  const user = store.users.find((u) => u.username === 'alice')!;
  const now = new Date();
  const pipeline: Pipeline = {
    id: store.nextId('pipeline'),
    project_id: project.id,
    status: jobs.some(([, s]) => s === 'failed') ? 'failed' : 'success',
    ref,
    sha,
    before_sha: sha,
    tag: false,
    name: null,
    yaml_errors: null,
    user_id: user.id,
    created_at: now,
    updated_at: now,
    started_at: now,
    finished_at: now,
    committed_at: now,
    duration: 60,
    coverage: null,
    variables: [],
  };
  project.pipelines.push(pipeline);
  const made = jobs.map(([name, status, reason]) => {
    const job: Job = {
      id: store.nextId('job'),
      project_id: project.id,
      pipeline_id: pipeline.id,
      name,
      stage: name === 'build' ? 'build' : 'test',
      status: 'pending',
      failure_reason: null,
      allow_failure: false,
      manual: false,
      user_id: user.id,
      created_at: now,
      queued_at: now,
      started_at: null,
      finished_at: null,
      erased_at: null,
      coverage: null,
      retried: false,
      artifacts: [],
    };
    finish(job, status, reason);
    jobsOf(store).jobs.push(job);
    return job;
  });
  return { pipeline, jobs: made };
}

/** A new commit on main, with no pipeline of its own: each history below is built by hand on it. */
async function commitOnMain(message: string): Promise<string> {
  const commit = await data<Record<string, unknown>>('create_commit', {
    id: PROJECT,
    branch: 'main',
    commit_message: message,
    actions: [{ action: 'create', file_path: `notes/${Date.now()}-${Math.random()}.md`, content: `${message}\n` }],
  });
  const project = web();
  project.pipelines = project.pipelines.filter((p) => p.sha !== commit.id);
  return String(commit.id);
}

/** Every run of `name` (retried ones too) in main's failed pipelines after its last green one, read the plain way. */
async function runsSinceGreen(name: string) {
  const pipelines = await data('list_pipelines', { id: PROJECT, ref: 'main', per_page: 100 });
  const red = pipelines
    .slice(
      0,
      pipelines.findIndex((p) => p.status === 'success'),
    )
    .filter((p) => p.status === 'failed');
  const runs: Array<Record<string, unknown>> = [];
  for (const pipeline of red) {
    const jobs = await data('list_pipeline_jobs', {
      id: PROJECT,
      pipeline_id: pipeline.id,
      include_retried: true,
      per_page: 100,
    });
    runs.push(...jobs.filter((j) => j.name === name).map((j) => ({ ...j, sha: pipeline.sha })));
  }
  return { runs, firstRed: red.at(-1)! };
}

const firstOperations = (report: TriageReport) => report.actions.map((a) => a.operation);

describe("the seeded incident: acme/web's test is broken since bob's commit", () => {
  it("says broken, counting every run of test since the first red commit, with that commit's title and author", async () => {
    const { runs, firstRed } = await runsSinceGreen('test');
    expect(runs.length).toBe(2);
    expect(runs.every((r) => r.status === 'failed')).toBe(true);
    const culprit = await data<Record<string, unknown>>('get_commit', { id: PROJECT, sha: String(firstRed.sha) });
    expect(culprit.title).toBe("Show order dates in the store's time zone");
    const { report, failure } = await triage();
    const evidence = `test failed on 2 of 2 runs since ${sha8(firstRed.sha)}`;
    expect(report.failure).toMatchObject({ kind: 'broken', evidence });
    expect(report.failure?.jobs).toEqual([
      {
        name: 'test',
        kind: 'broken',
        evidence,
        failure_reason: 'script_failure',
        since: { sha: firstRed.sha, title: culprit.title, author: 'Bob Chen' },
        runs: 2,
        failed: 2,
      },
    ]);
    expect(failure).toBe(`broken: ${evidence}`);
  });

  it("puts revert or the ping of the culprit's author first, before Retry", async () => {
    const { firstRed } = await runsSinceGreen('test');
    const { report } = await triage();
    const ops = firstOperations(report);
    const ping = report.actions.find((a) => a.operation === 'create_commit_comment')!;
    expect(ping).toMatchObject({
      label: `Ping Bob Chen on ${sha8(firstRed.sha)}`,
      input: { id: PROJECT, sha: firstRed.sha },
    });
    expect(String(ping.input.note)).toContain(`test failed on 2 of 2 runs since ${sha8(firstRed.sha)}`);
    // Reverts (when triage offers one) and the rollbacks of where the culprit went live come before the ping, and all
    // before the retry.
    const first = ops.filter((op) => /revert/.test(op) || op === 'rollback_environment');
    expect(ops.slice(0, first.length + 1)).toEqual([...first, 'create_commit_comment']);
    expect(ops.indexOf('retry_pipeline')).toBeGreaterThan(ops.indexOf('create_commit_comment'));
  });

  it('writes the verdict into the incident issue it opens', async () => {
    const { firstRed } = await runsSinceGreen('test');
    const issue = await data<Record<string, unknown>>('open_incident_issue', { id: PROJECT });
    expect(String(issue.description).split('\n')).toContain(
      `Broken: test failed on 2 of 2 runs since ${sha8(firstRed.sha)}.`,
    );
  });

  it('after a retry of the head pipeline that fails again: broken, one more run counted (the retried run too)', async () => {
    const head = await mainHead();
    const headPipeline = (await data('list_pipelines', { id: PROJECT, ref: 'main', sha: head.id }))[0];
    await data('retry_pipeline', { id: PROJECT, pipeline_id: headPipeline.id });
    const retried = jobsOf(env.sandbox.store).jobs.find(
      (j) => j.pipeline_id === headPipeline.id && j.name === 'test' && !j.retried,
    )!;
    expect(retried.status).toBe('pending');
    finish(retried, 'failed');
    Object.assign(web().pipelines.find((p) => p.id === headPipeline.id)!, {
      status: 'failed',
      finished_at: new Date(),
    });
    const { runs, firstRed } = await runsSinceGreen('test');
    expect(runs.length).toBe(3);
    const { report, failure } = await triage();
    expect(report.failure).toMatchObject({
      kind: 'broken',
      evidence: `test failed on 3 of 3 runs since ${sha8(firstRed.sha)}`,
    });
    expect(failure).toBe(`broken: test failed on 3 of 3 runs since ${sha8(firstRed.sha)}`);
  });
});

describe('histories built in the sandbox', () => {
  it('a pass of test on the same commit in another pipeline: flaky, Retry first', async () => {
    const head = String((await mainHead()).id);
    ranPipeline(head, [
      ['build', 'success'],
      ['test', 'success'],
    ]);
    const { pipeline } = ranPipeline(head, [
      ['build', 'success'],
      ['test', 'failed'],
    ]);
    // Every run of test on this commit, read the plain way: the seeded one, its failed retry and these two.
    const runs = (
      await Promise.all(
        (
          await data('list_pipelines', { id: PROJECT, sha: head })
        ).map((p) => data('list_pipeline_jobs', { id: PROJECT, pipeline_id: p.id, include_retried: true })),
      )
    )
      .flat()
      .filter((j) => j.name === 'test');
    expect(runs.length).toBe(4);
    const { report, failure } = await triage();
    expect(report.head_pipeline?.id).toBe(pipeline.id);
    expect(report.failure).toMatchObject({ kind: 'flaky', evidence: `test passed on 1 of 4 runs of ${sha8(head)}` });
    expect(failure).toBe(`flaky: test passed on 1 of 4 runs of ${sha8(head)}`);
    expect(report.actions[0]).toMatchObject({ operation: 'retry_pipeline', input: { pipeline_id: pipeline.id } });
    expect(firstOperations(report)).not.toContain('create_commit_comment');
  });

  it('a pass on a retry of the same job, retried again and failed: flaky, "passed on retry 1 of this commit"', async () => {
    const sha = await commitOnMain('Tidy the notes');
    const {
      pipeline,
      jobs: [, test],
    } = ranPipeline(sha, [
      ['build', 'success'],
      ['test', 'failed'],
    ]);
    const retry = async (jobId: number) => {
      const answer = await data<Record<string, unknown>>('retry_job', { id: PROJECT, job_id: jobId });
      return jobsOf(env.sandbox.store).jobs.find((j) => j.id === answer.id)!;
    };
    const first = await retry(test.id);
    finish(first, 'success');
    const second = await retry(first.id);
    finish(second, 'failed');
    Object.assign(web().pipelines.find((p) => p.id === pipeline.id)!, { status: 'failed', finished_at: new Date() });
    const { report, failure } = await triage();
    expect(report.failure).toMatchObject({ kind: 'flaky', evidence: 'test passed on retry 1 of this commit' });
    expect(report.failure?.jobs[0]).toMatchObject({ runs: 3, failed: 2 });
    expect(failure).toBe('flaky: test passed on retry 1 of this commit');
  });

  for (const reason of ['runner_system_failure', 'stuck_or_timeout_failure']) {
    it(`a job failed with ${reason}: infrastructure, Retry first`, async () => {
      const sha = await commitOnMain(`Bump the cache key (${reason})`);
      const { pipeline } = ranPipeline(sha, [
        ['build', 'success'],
        ['test', 'failed', reason],
      ]);
      const [job] = await data('list_pipeline_jobs', { id: PROJECT, pipeline_id: pipeline.id, scope: ['failed'] });
      expect(job.failure_reason).toBe(reason);
      const { report, failure } = await triage();
      const evidence = `test failed with ${reason}: ${INFRASTRUCTURE_REASONS[reason]}, not the code`;
      expect(report.failure).toMatchObject({ kind: 'infrastructure', evidence });
      expect(failure).toBe(`infrastructure: ${evidence}`);
      expect(report.actions[0]).toMatchObject({ operation: 'retry_pipeline', input: { pipeline_id: pipeline.id } });
    });
  }

  it('mixed jobs: a runner failure and a broken lint make the pipeline broken, each job said on its line', async () => {
    const sha = await commitOnMain('Stricter lint rules');
    ranPipeline(sha, [
      ['build', 'success'],
      ['lint', 'failed'],
      ['test', 'success'],
    ]);
    ranPipeline(sha, [
      ['build', 'success'],
      ['lint', 'failed'],
      ['test', 'failed', 'runner_system_failure'],
    ]);
    const { report, failure } = await triage();
    expect(report.failure?.kind).toBe('broken');
    expect(report.failure?.jobs.map((j) => [j.name, j.kind])).toEqual([
      ['lint', 'broken'],
      ['test', 'infrastructure'],
    ]);
    expect(failure?.split('\n')).toEqual([
      `broken: lint failed on 2 of 2 runs since ${sha8(sha)}`,
      `infrastructure: test failed with runner_system_failure: ${INFRASTRUCTURE_REASONS.runner_system_failure}, not the code`,
    ]);
  });

  it('a single failed run after passes: unknown, saying there are too few runs, and Retry first', async () => {
    const sha = await commitOnMain('Rename a helper');
    ranPipeline(sha, [
      ['build', 'success'],
      ['e2e', 'failed'],
    ]);
    const { report, failure } = await triage();
    expect(report.failure).toMatchObject({
      kind: 'unknown',
      evidence: `e2e failed on its only run of ${sha8(sha)}: too few runs to tell flaky from broken (a retry tells)`,
    });
    expect(failure).toMatch(/^unknown: e2e failed on its only run/);
    expect(report.actions[0].operation).toBe('retry_pipeline');
  });

  it("a pass of test on the same commit in another ref's pipeline (a merge request's) counts too: flaky", async () => {
    const sha = await commitOnMain('Fix the flaky date test for real');
    ranPipeline(
      sha,
      [
        ['build', 'success'],
        ['test', 'success'],
      ],
      'feature/fix-dates',
    );
    ranPipeline(sha, [
      ['build', 'success'],
      ['test', 'failed'],
    ]);
    const { report } = await triage();
    expect(report.failure).toMatchObject({ kind: 'flaky', evidence: `test passed on 1 of 2 runs of ${sha8(sha)}` });
  });

  it('reads the jobs of at most HISTORY_PIPELINES pipelines however long main is red, and says what it left out', async () => {
    const sha = await commitOnMain('Retry the search index');
    for (let i = 0; i < HISTORY_PIPELINES + 4; i++)
      ranPipeline(sha, [
        ['build', 'success'],
        ['test', 'failed'],
      ]);
    env.sandbox.requests.clear();
    const { report } = await data<TriageReport>('triage_project', { id: PROJECT }).then((r) => ({ report: r }));
    const jobLists = env.sandbox.requests
      .all()
      .filter((r) => r.method === 'GET' && /\/pipelines\/\d+\/jobs$/.test(r.path));
    const pipelinesRead = new Set(jobLists.map((r) => r.path));
    // The judged pipeline's failed jobs are read once more for their logs: one request beyond the history's.
    expect(pipelinesRead.size).toBeLessThanOrEqual(HISTORY_PIPELINES);
    expect(jobLists.length).toBeLessThanOrEqual(HISTORY_PIPELINES + 1);
    const n = pipelinesRead.size;
    expect(report.failure).toMatchObject({
      kind: 'broken',
      evidence: `test failed on ${n} of ${n} runs since ${sha8(sha)} (older runs not read)`,
    });
    expect(
      report.unread.some((line) => /^job history read from \d+ of \d+ pipelines; older runs not counted$/.test(line)),
    ).toBe(true);
  });
});
