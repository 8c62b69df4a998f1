// The sandbox's environments and deployments, driven by a manual clock: deploy jobs make deployments that follow
// them, production waits for a maintainer's approval (not the triggerer's, not a developer's), a rejection fails
// the job, a retried deploy job deploys its old commit again and becomes the environment's last deployment.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
let clock: ManualClock;
const WEB = encodeURIComponent('acme/web');
const CULPRIT_TITLE = "Show order dates in the store's time zone";

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  sandbox = await startSandbox({ clock });
  // Main passes again once alice reverts bob's time-zone commit: its pipelines then reach the deploy stage.
  const commits = (
    await api(sandbox, 'GET', `/projects/${WEB}/repository/commits?ref_name=main&per_page=100`, { as: 'maintainer' })
  ).data as Array<{ id: string; title: string }>;
  const culprit = commits.find((c) => c.title === CULPRIT_TITLE)!.id;
  const revert = await api(sandbox, 'POST', `/projects/${WEB}/repository/commits/${culprit}/revert`, {
    as: 'maintainer',
    json: { branch: 'main' },
  });
  expect(revert.status).toBe(201);
  await run(60);
});
afterAll(() => sandbox.close());

async function run(seconds: number): Promise<void> {
  for (let i = 0; i < seconds; i++) {
    clock.advance(1000);
    await api(sandbox, 'GET', '/version');
  }
}

/** A new pipeline on main started by root, run until its automatic jobs are done; its deploy jobs by name. */
async function deployPipeline() {
  const created = await api(sandbox, 'POST', `/projects/${WEB}/pipeline?ref=main`, { as: 'admin' });
  expect(created.status).toBe(201);
  await run(40);
  const jobs = (await api(sandbox, 'GET', `/projects/${WEB}/pipelines/${created.data.id}/jobs`, { as: 'maintainer' }))
    .data as Array<{ id: number; name: string; status: string }>;
  return {
    pipeline: created.data as { id: number; sha: string },
    staging: jobs.find((j) => j.name === 'deploy:staging')!,
    production: jobs.find((j) => j.name === 'deploy:production')!,
  };
}

async function deploymentOfJob(jobId: number) {
  const list = (await api(sandbox, 'GET', `/projects/${WEB}/deployments?per_page=100&sort=desc`, { as: 'reporter' }))
    .data as Array<{ id: number; status: string; deployable: { id: number }; sha: string }>;
  return list.find((d) => d.deployable.id === jobId)!;
}

async function environment(name: string) {
  const [found] = (await api(sandbox, 'GET', `/projects/${WEB}/environments?name=${name}`, { as: 'reporter' })).data;
  return (await api(sandbox, 'GET', `/projects/${WEB}/environments/${found.id}`, { as: 'reporter' })).data;
}

describe('environments and deployments from deploy jobs', () => {
  test("the seed's deploy jobs made staging, production and a review app, with the vendor's fields", async () => {
    const list = await api(sandbox, 'GET', `/projects/${WEB}/environments`, { as: 'reporter' });
    expect(list.status).toBe(200);
    const names = (list.data as Array<{ name: string }>).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['staging', 'production', 'review/feature-dark-mode']));
    const production = (list.data as Array<Record<string, unknown>>).find((e) => e.name === 'production')!;
    expect(production).toMatchObject({ slug: 'production', tier: 'production', state: 'available' });
    expect(production).not.toHaveProperty('last_deployment');
    const search = await api(sandbox, 'GET', `/projects/${WEB}/environments?search=rev`, { as: 'reporter' });
    expect((search.data as Array<{ name: string }>).map((e) => e.name)).toEqual(['review/feature-dark-mode']);
    const both = await api(sandbox, 'GET', `/projects/${WEB}/environments?name=staging&search=sta`, { as: 'reporter' });
    expect(both).toMatchObject({ status: 400, data: { error: 'name, search are mutually exclusive' } });
  });

  test("the seed's culprit went live: staging as soon as its build passed, production when bob played it with alice's approval", async () => {
    const commits = (
      await api(sandbox, 'GET', `/projects/${WEB}/repository/commits?ref_name=main&per_page=100`, { as: 'reporter' })
    ).data as Array<{ id: string; title: string }>;
    const culprit = commits.find((c) => c.title === CULPRIT_TITLE)!.id;
    const production = (
      await api(sandbox, 'GET', `/projects/${WEB}/deployments?environment=production&status=success&sort=desc`, {
        as: 'reporter',
      })
    ).data as Array<Record<string, any>>;
    // Newest first: bob's deploy of the culprit, approved by alice, then alice's of the 1.1.0 release before it.
    expect(production.map((d) => [d.ref, d.user.username])).toEqual([
      ['main', 'bob'],
      ['v1.1.0', 'alice'],
    ]);
    expect(production[0]).toMatchObject({
      sha: culprit,
      deployable: { name: 'deploy:production', status: 'success' },
      approvals: [{ user: { username: 'alice' }, status: 'approved' }],
    });
    expect((await environment('production')).last_deployment).toMatchObject({ sha: culprit });
    const staging = (
      await api(sandbox, 'GET', `/projects/${WEB}/deployments?environment=staging&status=success&sort=desc`, {
        as: 'reporter',
      })
    ).data as Array<{ sha: string; deployable: { pipeline: { id: number; status: string } } }>;
    const ofCulprit = staging.find((d) => d.sha === culprit)!;
    // Its pipeline failed (the test job), but the deploy needed only the build.
    expect(ofCulprit.deployable.pipeline.status).toBe('failed');
  });

  test('a passing main deploys staging at once; production is blocked, unplayable, until a maintainer approves', async () => {
    const { pipeline, staging, production } = await deployPipeline();
    expect(staging.status).toBe('success');
    expect(production.status).toBe('manual');
    const stagingEnv = await environment('staging');
    expect(stagingEnv.last_deployment).toMatchObject({ sha: pipeline.sha, status: 'success' });
    expect(stagingEnv.last_deployment.deployable).toMatchObject({ id: staging.id, name: 'deploy:staging' });

    const blocked = await deploymentOfJob(production.id);
    expect(blocked).toMatchObject({ status: 'blocked', pending_approval_count: 1, user: { username: 'root' } });
    const play = await api(sandbox, 'POST', `/projects/${WEB}/jobs/${production.id}/play`, { as: 'maintainer' });
    expect(play.status).toBe(400);

    const path = `/projects/${WEB}/deployments/${blocked.id}/approval`;
    const byDeveloper = await api(sandbox, 'POST', path, { as: 'developer', json: { status: 'approved' } });
    expect(byDeveloper.status).toBe(403);
    expect(byDeveloper.data.message).toContain("You don't have permission to approve this deployment");
    const badStatus = await api(sandbox, 'POST', path, { as: 'maintainer', json: { status: 'maybe' } });
    expect(badStatus).toMatchObject({ status: 400, data: { error: 'status does not have a valid value' } });

    const approved = await api(sandbox, 'POST', path, {
      as: 'maintainer',
      json: { status: 'approved', comment: 'Ship it' },
    });
    expect(approved.status).toBe(201);
    expect(approved.data).toMatchObject({ status: 'approved', comment: 'Ship it', user: { username: 'alice' } });
    await run(20);
    const done = (await api(sandbox, 'GET', `/projects/${WEB}/deployments/${blocked.id}`, { as: 'reporter' })).data;
    expect(done).toMatchObject({ status: 'success', environment: { name: 'production', tier: 'production' } });
    expect((await environment('production')).last_deployment.id).toBe(blocked.id);
    const again = await api(sandbox, 'POST', path, { as: 'admin', json: { status: 'approved' } });
    expect(again).toMatchObject({ status: 400, data: { message: 'This deployment is not waiting for approvals.' } });
  });

  test("the triggerer may not approve their own deployment, and a rejection fails the job as the vendor's", async () => {
    const created = await api(sandbox, 'POST', `/projects/${WEB}/pipeline?ref=main`, { as: 'maintainer' });
    await run(40);
    const jobs = (await api(sandbox, 'GET', `/projects/${WEB}/pipelines/${created.data.id}/jobs`, { as: 'maintainer' }))
      .data as Array<{ id: number; name: string }>;
    const deployment = await deploymentOfJob(jobs.find((j) => j.name === 'deploy:production')!.id);
    const path = `/projects/${WEB}/deployments/${deployment.id}/approval`;
    const own = await api(sandbox, 'POST', path, { as: 'maintainer', json: { status: 'approved' } });
    expect(own.status).toBe(400);
    expect(own.data.message).toContain('You cannot approve your own deployment');
    const rejected = await api(sandbox, 'POST', path, { as: 'admin', json: { status: 'rejected', comment: 'Freeze' } });
    expect(rejected.status).toBe(201);
    const after = (await api(sandbox, 'GET', `/projects/${WEB}/deployments/${deployment.id}`, { as: 'reporter' })).data;
    expect(after.status).toBe('failed');
    expect(after.deployable).toMatchObject({ status: 'failed', failure_reason: 'deployment_rejected' });
  });

  test("retrying an older deploy job deploys its commit again and becomes the environment's last deployment", async () => {
    const first = await deployPipeline();
    const second = await deployPipeline();
    expect((await environment('staging')).last_deployment.deployable.id).toBe(second.staging.id);
    const retry = await api(sandbox, 'POST', `/projects/${WEB}/jobs/${first.staging.id}/retry`, { as: 'maintainer' });
    expect(retry.status).toBe(201);
    await run(20);
    const last = (await environment('staging')).last_deployment;
    expect(last).toMatchObject({ sha: first.pipeline.sha, status: 'success', deployable: { id: retry.data.id } });
  });

  test('a retried production deploy waits for approval again', async () => {
    const { production } = await deployPipeline();
    const deployment = await deploymentOfJob(production.id);
    await api(sandbox, 'POST', `/projects/${WEB}/deployments/${deployment.id}/approval`, {
      as: 'maintainer',
      json: { status: 'approved' },
    });
    await run(20);
    const retry = await api(sandbox, 'POST', `/projects/${WEB}/jobs/${production.id}/retry`, { as: 'maintainer' });
    expect(retry.data.status).toBe('manual');
    expect(await deploymentOfJob(retry.data.id)).toMatchObject({ status: 'blocked' });
  });

  test('deployments filter by environment and status and sort as asked', async () => {
    const list = await api(
      sandbox,
      'GET',
      `/projects/${WEB}/deployments?environment=staging&status=success&order_by=updated_at&sort=desc`,
      { as: 'reporter' },
    );
    expect(list.status).toBe(200);
    const rows = list.data as Array<{ status: string; environment: { name: string }; updated_at: string }>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatchObject({ status: 'success', environment: { name: 'staging' } });
    const times = rows.map((r) => Date.parse(r.updated_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const late = await api(sandbox, 'GET', `/projects/${WEB}/deployments?updated_after=2999-01-01T00:00:00Z`, {
      as: 'reporter',
    });
    expect(late.data).toEqual([]);
  });

  test('stopping: a developer may stop a review app but not production; a maintainer may', async () => {
    const review = (
      await api(sandbox, 'GET', `/projects/${WEB}/environments?name=review/feature-dark-mode`, { as: 'reporter' })
    ).data[0];
    const production = await environment('production');
    const denied = await api(sandbox, 'POST', `/projects/${WEB}/environments/${production.id}/stop`, {
      as: 'developer',
    });
    expect(denied.status).toBe(403);
    const stopped = await api(sandbox, 'POST', `/projects/${WEB}/environments/${review.id}/stop`, {
      as: 'developer',
      json: { force: true },
    });
    expect(stopped).toMatchObject({ status: 200, data: { state: 'stopped', name: 'review/feature-dark-mode' } });
    const asReporter = await api(sandbox, 'POST', `/projects/${WEB}/environments/${review.id}/stop`, {
      as: 'reporter',
    });
    expect(asReporter.status).toBe(403);
    const stoppedList = await api(sandbox, 'GET', `/projects/${WEB}/environments?states=stopped`, { as: 'reporter' });
    expect((stoppedList.data as Array<{ id: number }>).map((e) => e.id)).toEqual([review.id]);
  });
});

describe('a deployment that waits, and a deploy that fails', () => {
  test('a blocked deployment was updated when it began to wait; production fails its health check while deploy/production.env says REPLICAS=0', async () => {
    const made = await api(sandbox, 'POST', `/projects/${WEB}/repository/commits`, {
      as: 'admin',
      json: {
        branch: 'main',
        commit_message: 'Scale production down',
        actions: [{ action: 'create', file_path: 'deploy/production.env', content: 'REPLICAS=0\n' }],
      },
    });
    expect(made.status).toBe(201);
    await run(40);
    const [pipeline] = (await api(sandbox, 'GET', `/projects/${WEB}/pipelines?ref=main&per_page=1`, { as: 'reporter' }))
      .data as Array<{ id: number; sha: string }>;
    expect(pipeline.sha).toBe(made.data.id);
    const jobs = (await api(sandbox, 'GET', `/projects/${WEB}/pipelines/${pipeline.id}/jobs`, { as: 'reporter' }))
      .data as Array<{ id: number; name: string }>;
    const job = jobs.find((j) => j.name === 'deploy:production')!;
    const waiting = (await deploymentOfJob(job.id)) as unknown as { id: number; status: string } & Record<
      string,
      string
    >;
    expect(waiting.status).toBe('blocked');
    // Its job was made with the pipeline and began to wait when the deploy stage opened: a watch reading deployments
    // updated since it last looked finds it blocked.
    expect(Date.parse(waiting.updated_at)).toBeGreaterThan(Date.parse(waiting.created_at));

    const approval = await api(sandbox, 'POST', `/projects/${WEB}/deployments/${waiting.id}/approval`, {
      as: 'maintainer',
      json: { status: 'approved' },
    });
    expect(approval.status).toBe(201);
    await run(20);
    expect((await deploymentOfJob(job.id)).status).toBe('failed');
    const log = await api(sandbox, 'GET', `/projects/${WEB}/jobs/${job.id}/trace`, { as: 'reporter' });
    expect(log.text).toContain('health check failed');
  });
});
