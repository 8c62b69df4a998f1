// Contract: every deployments operation against the sandbox — list (environment, status, update time, order),
// read one with its deploy job, approve and reject a deployment blocked on production (who may, the vendor's
// messages), plus bad input and the policy.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/sandbox/core/clock.js';
import { commitsOf, commitTitled, policyKind, TIME_ZONE_CULPRIT, WEB, answered } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('deployments');

type Deployment = {
  id: number;
  sha: string;
  status: string;
  updated_at: string;
  environment: { name: string };
  deployable: { id: number; name: string; status: string; failure_reason?: string };
  user: { username: string };
};

async function run(seconds: number) {
  const clock = suite.sandbox.store.clock as ManualClock;
  for (let i = 0; i < seconds; i++) {
    clock.advance(1000);
    await suite.data('list_deployments', { id: WEB, per_page: 1 }, 'reporter');
  }
}

/** A new blocked production deployment of main, started by root (so alice, a maintainer, may approve it). */
async function blockedProduction(): Promise<Deployment> {
  const pipeline = await suite.data<{ id: number }>('create_pipeline', { id: WEB, ref: 'main' }, 'admin');
  await run(40);
  const all = await suite.data<Deployment[]>('list_deployments', {
    id: WEB,
    environment: 'production',
    status: 'blocked',
    sort: 'desc',
  });
  const found = all.find((d) => d.user.username === 'root');
  expect(found, `no blocked deployment from pipeline ${pipeline.id}`).toBeDefined();
  return found!;
}

beforeAll(async () => {
  // main passes again once bob's time-zone commit is reverted: its pipelines reach the deploy stage.
  const culprit = commitTitled(await commitsOf(suite, WEB), TIME_ZONE_CULPRIT).id;
  await suite.call('revert_commit', { id: WEB, sha: culprit, branch: 'main' });
  await run(40);
});

describe.shuffle('deployments, in any order', () => {
  it('lists deployments filtered by environment, status and update time, in the order asked', async () => {
    const rows = await answered<Deployment[]>(
      suite,
      'list_deployments',
      { id: WEB, environment: 'staging', status: 'success', order_by: 'updated_at', sort: 'desc' },
      'reporter',
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatchObject({ status: 'success', environment: { name: 'staging' } });
    const times = rows.map((r) => Date.parse(r.updated_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const none = await suite.data<Deployment[]>('list_deployments', {
      id: WEB,
      updated_after: '2999-01-01T00:00:00Z',
      updated_before: '3000-01-01T00:00:00Z',
    });
    expect(none).toEqual([]);
    expect(suite.operation('list_deployments').present!(rows, { id: WEB }).title).toMatch(/deployments?$/);
  });

  it('reads one deployment with its deploy job; an unknown one is 404; bad input names the field', async () => {
    const [first] = await suite.data<Deployment[]>('list_deployments', { id: WEB });
    const result = await suite.call('get_deployment', { id: WEB, deployment_id: first.id }, { as: 'reporter' });
    expect(result.status).toBe(200);
    expect(result.data).toMatchObject({ id: first.id, iid: 1, deployable: { id: first.deployable.id } });
    expect(Object.keys(result.data as object)).toEqual(
      expect.arrayContaining(['id', 'iid', 'ref', 'sha', 'created_at', 'updated_at', 'status', 'user', 'environment']),
    );
    expect((await suite.refusal('get_deployment', { id: WEB, deployment_id: 999999 })).status).toBe(404);
    await expect(suite.call('list_deployments', { id: WEB, status: 'done' })).rejects.toThrow(/status/);
    await expect(suite.call('approve_deployment', { id: WEB, deployment_id: 1, status: 'ok' })).rejects.toThrow(
      /status/,
    );
  });

  it('approves a blocked production deployment as a maintainer; its job then deploys', async () => {
    const blocked = await blockedProduction();
    const shown = suite.operation('get_deployment').present!(blocked, { id: WEB });
    expect(shown.actions?.map((a) => a.label)).toEqual(['Approve', 'Reject']);
    const denied = await suite.refusal(
      'approve_deployment',
      { id: WEB, deployment_id: blocked.id, status: 'approved' },
      'developer',
    );
    expect(denied.status).toBe(403);
    expect(denied.message).toContain("You don't have permission to approve this deployment");
    const result = await suite.call('approve_deployment', {
      id: WEB,
      deployment_id: blocked.id,
      status: 'approved',
      comment: 'Ship it',
      represented_as: 'maintainers',
    });
    expect(result.status).toBe(201);
    expect(result.data).toMatchObject({ status: 'approved', comment: 'Ship it', user: { username: 'alice' } });
    await run(20);
    const after = await suite.data<Deployment>('get_deployment', { id: WEB, deployment_id: blocked.id });
    expect(after).toMatchObject({ status: 'success', deployable: { status: 'success' } });
    const again = await suite.refusal('approve_deployment', { id: WEB, deployment_id: blocked.id, status: 'approved' });
    expect(again.message).toContain('not waiting for approvals');
  });

  it("rejects one, failing its job as the vendor's deployment_rejected", async () => {
    const blocked = await blockedProduction();
    const result = await suite.call('approve_deployment', { id: WEB, deployment_id: blocked.id, status: 'rejected' });
    expect(result.status).toBe(201);
    const after = await suite.data<Deployment>('get_deployment', { id: WEB, deployment_id: blocked.id });
    expect(after).toMatchObject({ status: 'failed', deployable: { failure_reason: 'deployment_rejected' } });
  });

  describe('paging', () => {
    suite.pagingCase('list_deployments', { id: WEB });
  });

  it('asks before an approval or a rejection; reads run', () => {
    expect(policyKind(suite, 'approve_deployment', { id: WEB, deployment_id: 1, status: 'approved' })).toBe('approve');
    expect(policyKind(suite, 'approve_deployment', { id: WEB, deployment_id: 1, status: 'rejected' })).toBe('approve');
    expect(policyKind(suite, 'list_deployments', { id: WEB })).toBe('run');
    expect(policyKind(suite, 'get_deployment', { id: WEB, deployment_id: 1 })).toBe('run');
  });
});

suite.coverageCase();
