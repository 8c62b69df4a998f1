// The sandbox's runner, driven by a manual clock: pushes start pipelines that run stage by stage, retries run again,
// acme/web's test fails while bob's time-zone change is in the tree, payments-api's test is flaky, infra's plan loses
// its runner, logs grow while a job runs, and every time stays consistent.
import { describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { jobTimeScaleFromEnv, startSandbox } from '../../../src/sandbox/server.js';
import { api, type JobAnswer } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const clock = new ManualClock(Date.now());
const env = useSandbox({ clock });

const WEB = encodeURIComponent('acme/web');
const PAYMENTS = encodeURIComponent('acme/platform/payments-api');
const INFRA = encodeURIComponent('acme/platform/infra');
const CULPRIT_TITLE = "Show order dates in the store's time zone";
/** acme/web's pipeline on main, new or retried: its first stage queued, the rest waiting for it. */
const WEB_QUEUED = 'build pending, lint created, test created, deploy:staging created, deploy:production created';
/** ... once ended with the culprit in main: red at test, staging deployed (it needs only build), production manual. */
const WEB_RED = 'build success, lint success, test failed, deploy:staging success, deploy:production manual';

/** bob's time-zone commit on acme/web's main (its SHA depends on the seed's dates). */
async function culpritSha(): Promise<string> {
  const commits = (
    await api(env.sandbox, 'GET', `/projects/${WEB}/repository/commits?ref_name=main&per_page=100`, {
      as: 'maintainer',
    })
  ).data as Array<{ id: string; title: string }>;
  return commits.find((c) => c.title === CULPRIT_TITLE)!.id;
}

/** Lets the runner step through `seconds` of its clock, one second at a time (each step is one API read). */
async function run(seconds: number): Promise<void> {
  for (let i = 0; i < seconds; i++) {
    clock.advance(1000);
    await api(env.sandbox, 'GET', '/version');
  }
}

async function jobsOf(project: string, pipelineId: number, retried = false): Promise<JobAnswer[]> {
  const answer = await api(
    env.sandbox,
    'GET',
    `/projects/${project}/pipelines/${pipelineId}/jobs?per_page=100${retried ? '&include_retried=true' : ''}`,
    { as: 'maintainer' },
  );
  expect(answer.status).toBe(200);
  return answer.data;
}

async function pipeline(project: string, id: number) {
  return (await api(env.sandbox, 'GET', `/projects/${project}/pipelines/${id}`, { as: 'maintainer' })).data;
}

async function pipelinesFor(project: string, sha: string) {
  return (await api(env.sandbox, 'GET', `/projects/${project}/pipelines?sha=${sha}`, { as: 'maintainer' }))
    .data as Array<{
    id: number;
    status: string;
    ref: string;
  }>;
}

async function commitOn(project: string, branch: string, path: string, content: string, startBranch?: string) {
  const answer = await api(env.sandbox, 'POST', `/projects/${project}/repository/commits`, {
    as: 'maintainer',
    json: {
      branch,
      start_branch: startBranch,
      commit_message: `Change ${path}`,
      actions: [{ action: 'create', file_path: path, content }],
    },
  });
  expect(answer.status).toBe(201);
  return answer.data.id as string;
}

/** Every job of `jobs` with its status, exactly and in any order: `'build success, test failed'`. */
function expectStatuses(jobs: JobAnswer[], expected: string): void {
  const wanted = Object.fromEntries(expected.split(', ').map((job) => job.split(' ')));
  expect(Object.fromEntries(jobs.map((j) => [j.name, j.status]))).toEqual(wanted);
}

function expectConsistent(job: JobAnswer, now: number): void {
  const created = Date.parse(job.created_at);
  expect(created).toBeLessThanOrEqual(now);
  if (job.started_at) {
    expect(Date.parse(job.started_at)).toBeGreaterThanOrEqual(created);
    expect(Date.parse(job.started_at)).toBeLessThanOrEqual(now);
  }
  if (job.finished_at) {
    expect(job.started_at).not.toBeNull();
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.started_at!));
    expect(Date.parse(job.finished_at)).toBeLessThanOrEqual(now);
    expect(job.duration).toBeCloseTo((Date.parse(job.finished_at) - Date.parse(job.started_at!)) / 1000, 3);
  }
  if (job.duration !== null) expect(job.duration).toBeGreaterThanOrEqual(0);
  if (job.queued_duration !== null) expect(job.queued_duration).toBeGreaterThanOrEqual(0);
}

describe('the sandbox runs its pipelines', () => {
  test('a commit on main starts a push pipeline that runs stage by stage and ends red (the culprit is still in main), its deploys needing only the build', async () => {
    const sha = await commitOn(WEB, 'main', 'docs/runbook.md', '# Runbook\n');
    const [created] = await pipelinesFor(WEB, sha);
    expect(created).toMatchObject({ ref: 'main', status: 'pending' });
    let jobs = await jobsOf(WEB, created.id);
    expectStatuses(jobs, WEB_QUEUED);

    await run(2);
    jobs = await jobsOf(WEB, created.id);
    expect(jobs.find((j) => j.name === 'build')!.status).toBe('running');
    expect(jobs.find((j) => j.name === 'test')!.status).toBe('created');
    expect((await pipeline(WEB, created.id)).status).toBe('running');

    await run(60);
    jobs = await jobsOf(WEB, created.id);
    // The deploys `need` only build: staging deployed though the tests failed; production waits to be played.
    expectStatuses(jobs, WEB_RED);
    const test = jobs.find((j) => j.name === 'test')!;
    expect(test.failure_reason).toBe('script_failure');
    const staging = jobs.find((j) => j.name === 'deploy:staging')!;
    expect(Date.parse(staging.started_at!)).toBeLessThan(Date.parse(test.finished_at!));
    // The test stage began when build ended (plus its time in the queue).
    expect(Date.parse(test.started_at!)).toBeGreaterThan(
      Date.parse(jobs.find((j) => j.name === 'build')!.finished_at!),
    );
    const ended = await pipeline(WEB, created.id);
    expect(ended).toMatchObject({ status: 'failed', sha });
    expect(ended.duration).toBeGreaterThan(0);
    expect(Date.parse(ended.finished_at)).toBeLessThanOrEqual(clock.now());
    for (const job of jobs) expectConsistent(job, clock.now());
    const log = await api(env.sandbox, 'GET', `/projects/${WEB}/jobs/${test.id}/trace`, { as: 'maintainer' });
    expect(log.text).toContain('Expected: \x1b[32m"2024-03-10"');
    expect(log.text).toContain('ERROR: Job failed: exit code 1');
  });

  test("a retried job runs and finishes: failed again on the culprit's pipeline, passes nothing by itself", async () => {
    const [first] = await pipelinesFor(WEB, await culpritSha());
    expect(first.status).toBe('failed');
    const culpritTest = (await jobsOf(WEB, first.id)).find((j) => j.name === 'test')!;
    const retry = await api(env.sandbox, 'POST', `/projects/${WEB}/jobs/${culpritTest.id}/retry`, { as: 'maintainer' });
    expect(retry.status).toBe(201);
    expect(retry.data.status).toBe('pending');
    await run(3);
    const running = (await api(env.sandbox, 'GET', `/projects/${WEB}/jobs/${retry.data.id}`, { as: 'maintainer' }))
      .data;
    expect(running.status).toBe('running');
    expect((await pipeline(WEB, first.id)).status).toBe('running');
    await run(15);
    const done = (await api(env.sandbox, 'GET', `/projects/${WEB}/jobs/${retry.data.id}`, { as: 'maintainer' }))
      .data as JobAnswer;
    expect(done.status).toBe('failed');
    expectConsistent(done, clock.now());
    await run(10);
    expect((await pipeline(WEB, first.id)).status).toBe('failed');
  });

  test("a pipeline's retry on the seeded head of main runs its failed job again: red again, its deploy (it needed only the build) done once", async () => {
    const commits = (
      await api(env.sandbox, 'GET', `/projects/${WEB}/repository/commits?ref_name=main&per_page=100`, {
        as: 'maintainer',
      })
    ).data as Array<{ id: string; title: string }>;
    const seededHead = commits.find((c) => c.title === 'Show 50 search results per page')!.id;
    const [head] = await pipelinesFor(WEB, seededHead);
    expect(head.status).toBe('failed');
    const retried = await api(env.sandbox, 'POST', `/projects/${WEB}/pipelines/${head.id}/retry`, { as: 'maintainer' });
    expect(retried.data.status).toBe('pending');
    expect(Object.fromEntries((await jobsOf(WEB, head.id)).map((j) => [j.name, j.status]))).toMatchObject({
      test: 'pending',
      'deploy:staging': 'success',
    });
    await run(20);
    const jobs = await jobsOf(WEB, head.id);
    expectStatuses(jobs, 'build success, lint success, test failed, deploy:staging success');
    expect((await jobsOf(WEB, head.id, true)).filter((j) => j.name === 'deploy:staging')).toHaveLength(1);
    expect((await jobsOf(WEB, head.id, true)).filter((j) => j.name === 'test')).toHaveLength(2);
    expect((await pipeline(WEB, head.id)).status).toBe('failed');
    for (const job of jobs) expectConsistent(job, clock.now());
  });

  test('every way of pushing to a branch starts a pipeline: a file write, a commit, a cherry-pick', async () => {
    const file = await api(
      env.sandbox,
      'POST',
      `/projects/${WEB}/repository/files/${encodeURIComponent('docs/written.md')}`,
      {
        as: 'maintainer',
        json: { branch: 'feature/pushes', start_branch: 'main', content: 'x\n', commit_message: 'Write a file' },
      },
    );
    expect(file.status).toBe(201);
    const written = (
      await api(env.sandbox, 'GET', `/projects/${WEB}/repository/commits/feature%2Fpushes`, { as: 'maintainer' })
    ).data.id as string;
    expect((await pipelinesFor(WEB, written)).map((p) => p.ref)).toEqual(['feature/pushes']);
    const committed = await commitOn(WEB, 'feature/pushes', 'docs/committed.md', 'y\n');
    expect((await pipelinesFor(WEB, committed)).map((p) => p.ref)).toEqual(['feature/pushes']);
    const picked = await api(env.sandbox, 'POST', `/projects/${WEB}/repository/commits/${committed}/cherry_pick`, {
      as: 'maintainer',
      json: { branch: 'main' },
    });
    expect(picked.status).toBe(201);
    const onMain = await pipelinesFor(WEB, picked.data.id);
    expect(onMain).toEqual([expect.objectContaining({ ref: 'main', status: 'pending' })]);
    const full = await pipeline(WEB, onMain[0].id);
    expect(full.user.username).toBe('alice');
  });

  test('the log of a running job grows, and its tail shows the latest lines', async () => {
    const sha = await commitOn(PAYMENTS, 'main', 'docs/log-growth.md', 'x\n');
    const [created] = await pipelinesFor(PAYMENTS, sha);
    await run(3); // build queued 1 s, then running
    const build = (await jobsOf(PAYMENTS, created.id)).find((j) => j.name === 'build')!;
    expect(build.status).toBe('running');
    const early = (await api(env.sandbox, 'GET', `/projects/${PAYMENTS}/jobs/${build.id}/trace`, { as: 'maintainer' }))
      .text;
    await run(1);
    const later = (await api(env.sandbox, 'GET', `/projects/${PAYMENTS}/jobs/${build.id}/trace`, { as: 'maintainer' }))
      .text;
    expect(early.length).toBeGreaterThan(0);
    expect(later.length).toBeGreaterThan(early.length);
    expect(later.startsWith(early)).toBe(true);
    expect(later).not.toContain('Job succeeded');
    const tail = await api(env.sandbox, 'GET', `/projects/${PAYMENTS}/jobs/${build.id}/trace`, {
      as: 'maintainer',
      headers: { range: 'bytes=-40' },
    });
    expect(tail.status).toBe(206);
    expect(later.endsWith(tail.text)).toBe(true);
    await run(5);
    const ended = (await api(env.sandbox, 'GET', `/projects/${PAYMENTS}/jobs/${build.id}/trace`, { as: 'maintainer' }))
      .text;
    expect(ended).toContain('Job succeeded');
  });

  test('a revert of the time-zone commit on a branch gets a passing test', async () => {
    const culprit = await culpritSha();
    const name = `revert-${culprit.slice(0, 8)}`;
    const branch = await api(env.sandbox, 'POST', `/projects/${WEB}/repository/branches?branch=${name}&ref=main`, {
      as: 'maintainer',
    });
    expect(branch.status).toBe(201);
    const head = branch.data.commit.id as string;
    const revert = await api(env.sandbox, 'POST', `/projects/${WEB}/repository/commits/${culprit}/revert`, {
      as: 'maintainer',
      json: { branch: name },
    });
    expect(revert.status).toBe(201);
    await run(40);
    const [onBranch] = await pipelinesFor(WEB, head);
    const [reverted] = await pipelinesFor(WEB, revert.data.id);
    expect(onBranch.ref).toBe(name);
    const branchJobs = await jobsOf(WEB, onBranch.id);
    expect(branchJobs.find((j) => j.name === 'test')!.status).toBe('failed');
    const revertJobs = await jobsOf(WEB, reverted.id);
    expectStatuses(revertJobs, 'build success, lint success, test success, review-app manual');
    expect((await pipeline(WEB, reverted.id)).status).toBe('success');

    // The manual job waits for a person, then runs when played.
    const review = revertJobs.find((j) => j.name === 'review-app')!;
    await run(30);
    expect(
      (await api(env.sandbox, 'GET', `/projects/${WEB}/jobs/${review.id}`, { as: 'maintainer' })).data.status,
    ).toBe('manual');
    const played = await api(env.sandbox, 'POST', `/projects/${WEB}/jobs/${review.id}/play`, { as: 'maintainer' });
    expect(played.data.status).toBe('pending');
    await run(10);
    const deployed = (await api(env.sandbox, 'GET', `/projects/${WEB}/jobs/${review.id}`, { as: 'maintainer' }))
      .data as JobAnswer;
    expect(deployed.status).toBe('success');
    expectConsistent(deployed, clock.now());
  });

  test("payments-api's test is flaky: about one run in three fails on the same commit, and a retry passes", async () => {
    const sha = await commitOn(PAYMENTS, 'main', 'docs/flaky.md', 'x\n');
    const [created] = await pipelinesFor(PAYMENTS, sha);
    await run(30);
    let outcomes: string[] = [];
    let test = (await jobsOf(PAYMENTS, created.id)).find((j) => j.name === 'test')!;
    outcomes.push(test.status);
    for (let i = 0; i < 29; i++) {
      const retry = await api(env.sandbox, 'POST', `/projects/${PAYMENTS}/jobs/${test.id}/retry`, { as: 'maintainer' });
      expect(retry.status).toBe(201);
      await run(12);
      test = (await api(env.sandbox, 'GET', `/projects/${PAYMENTS}/jobs/${retry.data.id}`, { as: 'maintainer' })).data;
      outcomes.push(test.status);
    }
    const failed = outcomes.filter((s) => s === 'failed').length;
    expect(outcomes.filter((s) => s !== 'failed' && s !== 'success')).toEqual([]);
    expect(failed).toBeGreaterThanOrEqual(5);
    expect(failed).toBeLessThanOrEqual(15);
    // A failure followed by a passing retry on the same commit.
    expect(outcomes.some((s, i) => s === 'failed' && outcomes[i + 1] === 'success')).toBe(true);
    const all = await jobsOf(PAYMENTS, created.id, true);
    expect(all.filter((j) => j.name === 'test')).toHaveLength(30);
    for (const job of all) expectConsistent(job, clock.now());
    outcomes = [];
  });

  test('an infrastructure failure carries its failure_reason, and a retry passes', async () => {
    const sha = await commitOn(INFRA, 'main', 'envs/dev/main.tf', 'module "network" {}\n');
    const [created] = await pipelinesFor(INFRA, sha);
    await run(30);
    const plan = (await jobsOf(INFRA, created.id)).find((j) => j.name === 'plan')!;
    expect(plan).toMatchObject({ status: 'failed', failure_reason: 'runner_system_failure' });
    const log = (await api(env.sandbox, 'GET', `/projects/${INFRA}/jobs/${plan.id}/trace`, { as: 'maintainer' })).text;
    expect(log).toContain('ERROR: Job failed (system failure)');
    const retry = await api(env.sandbox, 'POST', `/projects/${INFRA}/jobs/${plan.id}/retry`, { as: 'maintainer' });
    await run(12);
    expect(
      (await api(env.sandbox, 'GET', `/projects/${INFRA}/jobs/${retry.data.id}`, { as: 'maintainer' })).data.status,
    ).toBe('success');
    // The manual apply it had skipped waits for a person now; the pipeline is green.
    await run(3);
    const jobs = await jobsOf(INFRA, created.id);
    expect(jobs.find((j) => j.name === 'apply')!.status).toBe('manual');
    expect((await pipeline(INFRA, created.id)).status).toBe('success');
  });

  test('a retry with nothing to retry answers pending, as the spec sets it, and the pipeline ends again', async () => {
    const passed = (
      await api(env.sandbox, 'GET', `/projects/${WEB}/pipelines?status=success&per_page=1`, { as: 'maintainer' })
    ).data[0] as { id: number };
    // Nothing failed, canceled or skipped: the retry has nothing to run.
    expect((await jobsOf(WEB, passed.id)).every((j) => ['success', 'manual'].includes(j.status))).toBe(true);
    const retried = await api(env.sandbox, 'POST', `/projects/${WEB}/pipelines/${passed.id}/retry`, {
      as: 'maintainer',
    });
    expect({ status: retried.status, pipeline: retried.data.status }).toEqual({ status: 201, pipeline: 'pending' });
    const after = await pipeline(WEB, passed.id);
    expect(after.status).toBe('success');
    expect(after.finished_at).not.toBeNull();
    await run(5);
    expect((await pipeline(WEB, passed.id)).status).toBe('success');
  });

  test('cancel stops a running job: finished then, its duration what it ran, the pipeline canceled', async () => {
    const created = await api(env.sandbox, 'POST', `/projects/${WEB}/pipeline?ref=main`, { as: 'maintainer' });
    expect(created.status).toBe(201);
    expect((await jobsOf(WEB, created.data.id)).map((j) => j.name)).toEqual([
      'deploy:production',
      'deploy:staging',
      'test',
      'lint',
      'build',
    ]);
    await run(3);
    const build = (await jobsOf(WEB, created.data.id)).find((j) => j.name === 'build')!;
    expect(build.status).toBe('running');
    const canceled = await api(env.sandbox, 'POST', `/projects/${WEB}/jobs/${build.id}/cancel`, { as: 'maintainer' });
    expect(canceled.data).toMatchObject({ status: 'canceled' });
    expectConsistent(canceled.data, clock.now());
    expect(canceled.data.duration).toBeCloseTo(2, 0);
    await run(20);
    const jobs = await jobsOf(WEB, created.data.id);
    // The vendor skips the later stages behind a canceled job, and the jobs that need it (a pipeline's own cancel
    // cancels them).
    expectStatuses(
      jobs,
      'build canceled, lint skipped, test skipped, deploy:staging skipped, deploy:production skipped',
    );
    const log = (await api(env.sandbox, 'GET', `/projects/${WEB}/jobs/${build.id}/trace`, { as: 'maintainer' })).text;
    expect(log).toContain('ERROR: Job failed: canceled');
    expect((await pipeline(WEB, created.data.id)).status).toBe('canceled');

    // Its retry runs the canceled jobs again stage by stage: only the first stage queues at once.
    const retried = await api(env.sandbox, 'POST', `/projects/${WEB}/pipelines/${created.data.id}/retry`, {
      as: 'maintainer',
    });
    expect(retried.status).toBe(201);
    expectStatuses(await jobsOf(WEB, created.data.id), WEB_QUEUED);
    await run(40);
    const again = await jobsOf(WEB, created.data.id);
    expectStatuses(again, WEB_RED);
    const [build2, test2] = ['build', 'test'].map((name) => again.find((j) => j.name === name)!);
    expect(Date.parse(test2.started_at!)).toBeGreaterThan(Date.parse(build2.finished_at!));
    expect((await pipeline(WEB, created.data.id)).status).toBe('failed');
  });

  test('a merged merge request and a new branch each start a pipeline for their commit', async () => {
    const sha = await commitOn(WEB, 'feature/runner-mr', 'docs/mr.md', 'x\n', 'main');
    const [branchPipeline] = await pipelinesFor(WEB, sha);
    expect(branchPipeline.ref).toBe('feature/runner-mr');
    const mr = await api(env.sandbox, 'POST', `/projects/${WEB}/merge_requests`, {
      as: 'maintainer',
      json: { source_branch: 'feature/runner-mr', target_branch: 'main', title: 'Runner MR' },
    });
    expect(mr.status).toBe(201);
    const merged = await api(env.sandbox, 'PUT', `/projects/${WEB}/merge_requests/${mr.data.iid}/merge`, {
      as: 'maintainer',
    });
    expect(merged.status).toBe(200);
    const mergeSha = (merged.data.merge_commit_sha ?? merged.data.sha) as string;
    const onMain = await pipelinesFor(WEB, mergeSha);
    expect(onMain.map((p) => p.ref)).toContain('main');
  });

  test('every pipeline and job the runs above left behind keeps its times consistent (admin reads all projects)', async () => {
    await run(30);
    const now = clock.now();
    const projects = (await api(env.sandbox, 'GET', '/projects?per_page=100', { as: 'admin' })).data as Array<{
      id: number;
    }>;
    let checked = 0;
    for (const project of projects) {
      const pipelines = (
        await api(env.sandbox, 'GET', `/projects/${project.id}/pipelines?per_page=100`, { as: 'admin' })
      ).data as Array<{ id: number }>;
      for (const { id } of pipelines) {
        const full = (await api(env.sandbox, 'GET', `/projects/${project.id}/pipelines/${id}`, { as: 'admin' })).data;
        expect(Date.parse(full.created_at)).toBeLessThanOrEqual(now);
        if (full.started_at) expect(Date.parse(full.started_at)).toBeLessThanOrEqual(now);
        if (full.finished_at)
          expect(Date.parse(full.finished_at)).toBeGreaterThanOrEqual(Date.parse(full.started_at ?? full.created_at));
        if (full.finished_at) expect(Date.parse(full.finished_at)).toBeLessThanOrEqual(now);
        if (full.duration !== null) expect(full.duration).toBeGreaterThanOrEqual(0);
        const jobs = (
          await api(
            env.sandbox,
            'GET',
            `/projects/${project.id}/pipelines/${id}/jobs?per_page=100&include_retried=true`,
            {
              as: 'admin',
            },
          )
        ).data as JobAnswer[];
        for (const job of jobs) expectConsistent(job, now);
        checked += jobs.length;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test('the seeded history stays frozen: seeded pending and running pipelines do not move', async () => {
    const seeded = [];
    for (const project of [WEB, PAYMENTS]) {
      for (const status of ['running', 'pending']) {
        const found = (
          await api(env.sandbox, 'GET', `/projects/${project}/pipelines?status=${status}&sort=asc&per_page=1`, {
            as: 'maintainer',
          })
        ).data;
        if (found[0]) seeded.push({ project, id: found[0].id as number });
      }
    }
    expect(seeded.length).toBeGreaterThanOrEqual(2);
    const before = await Promise.all(
      seeded.map(async ({ project, id }) => ({
        pipeline: await pipeline(project, id),
        jobs: await jobsOf(project, id),
      })),
    );
    await run(90);
    const after = await Promise.all(
      seeded.map(async ({ project, id }) => ({
        pipeline: await pipeline(project, id),
        jobs: await jobsOf(project, id),
      })),
    );
    const shape = (x: typeof before) =>
      x.map(({ pipeline: p, jobs }) => ({
        status: p.status,
        updated_at: p.updated_at,
        jobs: jobs.map((j) => [j.id, j.status, j.started_at, j.finished_at]),
      }));
    expect(shape(after)).toEqual(shape(before));
  });
});

describe("the runner's time scale and its end", () => {
  test('one setting scales every duration, and the runner leaves no wake-up behind when the sandbox closes', async () => {
    const fastClock = new ManualClock(Date.now());
    const fast = await startSandbox({ clock: fastClock, jobTimeScale: 0.1 });
    try {
      const created = await api(fast, 'POST', `/projects/${PAYMENTS}/pipeline?ref=main`, { as: 'maintainer' });
      expect(created.status).toBe(201);
      expect(fastClock.waiting).toBe(1);
      // At scale 1 this pipeline takes about 20 s; at 0.1, about 2.
      for (let i = 0; i < 30; i++) {
        fastClock.advance(100);
        await api(fast, 'GET', '/version');
      }
      const ended = (await api(fast, 'GET', `/projects/${PAYMENTS}/pipelines/${created.data.id}`, { as: 'maintainer' }))
        .data;
      expect(['success', 'failed']).toContain(ended.status);
      expect(ended.duration).toBeLessThanOrEqual(3);
      const again = await api(fast, 'POST', `/projects/${PAYMENTS}/pipeline?ref=main`, { as: 'maintainer' });
      expect(again.status).toBe(201);
      expect(fastClock.waiting).toBe(1);
    } finally {
      await fast.close();
    }
    expect(fastClock.waiting).toBe(0);
  });

  test('FORGEOPS_SANDBOX_JOB_TIME_SCALE is a positive number, else 1', () => {
    expect(jobTimeScaleFromEnv('0.1')).toBe(0.1);
    expect(jobTimeScaleFromEnv('5')).toBe(5);
    for (const bad of [undefined, '', '0', '-2', 'fast']) expect(jobTimeScaleFromEnv(bad)).toBe(1);
  });
});
