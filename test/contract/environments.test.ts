// Contract: every environments operation against the sandbox — list (name, search, states), read with
// last_deployment, stop (permissions, protected production) and rollback_environment (its plan, its premise and the
// retry that deploys the older commit again), plus bad input and the policy.
import { describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/sandbox/core/clock.js';
import { commitsOf, commitTitled, policyKind, TIME_ZONE_CULPRIT, WEB, answered } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('environments');

type Environment = { id: number; name: string; state: string; tier: string; last_deployment?: Record<string, any> };

const byName = async (name: string) =>
  (await suite.data<Environment[]>('list_environments', { id: WEB, name }, 'reporter'))[0];

/** Lets the sandbox's runner move `seconds` on its manual clock (each read catches it up). */
async function run(seconds: number) {
  const clock = suite.sandbox.store.clock as ManualClock;
  for (let i = 0; i < seconds; i++) {
    clock.advance(1000);
    await suite.data('list_environments', { id: WEB }, 'reporter');
  }
}

describe.shuffle('environments, in any order', () => {
  it('lists the environments the deploy jobs made, filtered by name, search and state', async () => {
    const result = await suite.call('list_environments', { id: WEB }, { as: 'reporter' });
    expect(result.status).toBe(200);
    const names = (result.data as Environment[]).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['staging', 'production']));
    expect((await byName('production')).tier).toBe('production');
    const searched = await suite.data<Environment[]>('list_environments', { id: WEB, search: 'stag' });
    expect(searched.map((e) => e.name)).toEqual(['staging']);
    const available = await suite.data<Environment[]>('list_environments', { id: WEB, states: 'available' });
    expect(available.every((e) => e.state === 'available')).toBe(true);
    expect(suite.operation('list_environments').present!(result.data, { id: WEB }).title).toMatch(/environments$/);
  });

  it('reads one environment with its last successful deployment', async () => {
    const staging = await byName('staging');
    const data = await answered<Environment>(
      suite,
      'get_environment',
      { id: WEB, environment_id: staging.id },
      'reporter',
    );
    expect(data).toMatchObject({ name: 'staging', state: 'available', last_deployment: { status: 'success' } });
    expect(data.last_deployment!.deployable).toMatchObject({ name: 'deploy:staging' });
    const shown = suite.operation('get_environment').present!(data, { id: WEB });
    expect(shown.title).toBe('Environment staging: available');
    expect((await suite.refusal('get_environment', { id: WEB, environment_id: 999999 })).status).toBe(404);
    expect((await suite.refusal('list_environments', { id: 'acme/platform/payments-api' }, 'outsider')).status).toBe(
      404,
    );
  });

  it('refuses bad input naming the field, and name with search as the service does', async () => {
    await expect(suite.call('list_environments', { id: WEB, search: 'st' })).rejects.toThrow(/search/);
    await expect(suite.call('list_environments', { id: WEB, states: 'gone' })).rejects.toThrow(/states/);
    const both = await suite.refusal('list_environments', { id: WEB, name: 'staging', search: 'stag' });
    expect(both.status).toBe(400);
    expect(both.message).toContain('mutually exclusive');
  });

  it("stops a review app as a developer; production is a maintainer's to stop; a reporter may not", async () => {
    const review = (await suite.data<Environment[]>('list_environments', { id: WEB, search: 'review' }))[0];
    const production = await byName('production');
    expect((await suite.refusal('stop_environment', { id: WEB, environment_id: review.id }, 'reporter')).status).toBe(
      403,
    );
    expect(
      (await suite.refusal('stop_environment', { id: WEB, environment_id: production.id }, 'developer')).status,
    ).toBe(403);
    const stopped = await suite.call(
      'stop_environment',
      { id: WEB, environment_id: review.id, force: true },
      { as: 'developer' },
    );
    expect(stopped.status).toBe(200);
    expect(stopped.data).toMatchObject({ name: review.name, state: 'stopped' });
  });

  it('rolls staging back by retrying the deploy job of the last successful deployment of another commit', async () => {
    // Two deployments of different commits to staging: a revert of bob's commit on main (main passes again) and the
    // seeded one before it.
    const culprit = commitTitled(await commitsOf(suite, WEB), TIME_ZONE_CULPRIT).id;
    await suite.call('revert_commit', { id: WEB, sha: culprit, branch: 'main' });
    await run(40);
    const staging = await byName('staging');
    const now = (await suite.data<Environment>('get_environment', { id: WEB, environment_id: staging.id }))
      .last_deployment!;
    // A premise that no longer holds runs nothing.
    const stale = await suite.refusal('rollback_environment', {
      id: WEB,
      environment: 'staging',
      current_deployment_id: now.id + 1000,
    });
    expect(stale.message).toContain('no longer runs deployment');
    const otherJob = await suite.refusal('rollback_environment', { id: WEB, environment: 'staging', job_id: 999999 });
    expect(otherJob.message).toContain('not job #999999 as shown');
    // The default target: the newest successful staging deployment of another commit; its job is what runs again.
    const successes = await suite.data<Array<{ id: number; sha: string; deployable: { id: number } }>>(
      'list_deployments',
      { id: WEB, environment: 'staging', status: 'success', sort: 'desc' },
    );
    const target = successes.find((d) => d.id < now.id && d.sha !== now.sha)!;
    const result = await suite.call('rollback_environment', {
      id: WEB,
      environment: 'staging',
      current_deployment_id: now.id,
      job_id: target.deployable.id,
    });
    expect(result.status).toBe(201);
    const data = result.data as { from: { sha: string }; to: { sha: string; id: number }; job: { id: number } };
    expect(data.from.sha).toBe(now.sha);
    expect(data.to).toMatchObject({ id: target.id, sha: target.sha });
    await run(20);
    const after = (await suite.data<Environment>('get_environment', { id: WEB, environment_id: staging.id }))
      .last_deployment!;
    expect(after).toMatchObject({ sha: data.to.sha, deployable: { id: data.job.id } });
    // Forward again, by the commit's SHA.
    const forward = await suite.call('rollback_environment', { id: WEB, environment: staging.id, to: now.sha });
    expect((forward.data as { to: { sha: string } }).to.sha).toBe(now.sha);
    const none = await suite.refusal('rollback_environment', { id: WEB, environment: 'nowhere' });
    expect(none.message).toContain('no environment named nowhere');
  });

  describe('paging', () => {
    suite.pagingCase('list_environments', { id: WEB });
  });

  it('asks before stopping and rolling back; reads run', () => {
    expect(policyKind(suite, 'stop_environment', { id: WEB, environment_id: 1 })).toBe('approve');
    expect(policyKind(suite, 'rollback_environment', { id: WEB, environment: 'staging' })).toBe('approve');
    expect(policyKind(suite, 'list_environments', { id: WEB })).toBe('run');
    expect(policyKind(suite, 'get_environment', { id: WEB, environment_id: 1 })).toBe('run');
  });
});

suite.coverageCase();
