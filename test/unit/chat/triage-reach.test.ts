// Where triage's culprit went. On the demo data bob's commit is live: staging runs main's head after it (its deploys
// need only the build) and production runs the culprit itself (bob played it), each offered a rollback to the
// deployment before it. With the environment reads answered from fixtures (the ancestry asked of the sandbox's real
// repository): an environment that runs a commit before it, "reached no environment" and where the pipelines stopped,
// a reach of staging only, and production said plainly.
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/engine/define.js';
import { triageOperation, withRollbacks, type TriageReport } from '../../../src/operations/composed/triage.js';
import { reachText } from '../../../src/operations/composed/culprit-reach.js';
import { momentText } from '../../../src/operations/engine/present.js';
import { validateInput } from '../../../src/operations/engine/validate.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

const env = useSandbox();
const PROJECT = 'acme/web';

type Env = { id: number; name: string; tier: string; state: string; last_deployment: Record<string, unknown> | null };
type Deployment = { id: number; sha: string; ref: string; created_at: string; environment: { name: string } };

/** The registry with the environment and deployment reads answered from `environments` and `deployments`. */
function withEnvironments(environments: Env[], deployments: Deployment[]): Operation[] {
  const answer = (data: unknown) => Promise.resolve({ status: 200, data });
  const ops: Operation[] = operations.map((op): Operation => {
    if (op.name === 'triage_project') return triageOperation(() => ops);
    if (op.name === 'list_environments')
      return { ...op, run: () => answer(environments.map(({ last_deployment: _l, ...e }) => e)) };
    if (op.name === 'get_environment')
      return {
        ...op,
        run: (_ctx, input) =>
          answer(environments.find((e) => e.id === (input as { environment_id: number }).environment_id)),
      };
    if (op.name === 'list_deployments')
      return {
        ...op,
        run: (_ctx, input) =>
          answer(
            deployments
              .filter((d) => d.environment.name === (input as { environment: string }).environment)
              .sort((a, b) => b.id - a.id),
          ),
      };
    return op;
  });
  return ops;
}

async function triage(ops: readonly Operation[] = operations) {
  const dispatcher = testDispatcher(() => env.client, { operations: ops });
  const reply = await dispatcher.call('triage_project', { id: PROJECT });
  if (reply.kind !== 'message' || !reply.outcome?.ok) throw new Error('triage_project failed');
  const field = (name: string) => reply.message.fields.find(([k]) => k === name)?.[1];
  return { report: reply.outcome.result.data as TriageReport, field };
}

/** The demo's culprit, the head after it and the last green commit before it. */
async function demoCommits() {
  const { report } = await triage();
  const since = report.red_since!;
  return {
    culprit: since.first_red.sha,
    firstRedAt: since.first_red.since!,
    head: report.head!.sha,
    lastGreen: since.last_green!.sha,
  };
}

const deployment = (id: number, sha: string, ref: string, environment: string, created_at: string, tag = false) => ({
  id,
  sha,
  ref,
  created_at,
  finished_at: created_at,
  status: 'success',
  deployable: { id: 100 + id, name: `deploy:${environment}`, tag },
  environment: { name: environment },
});

const later = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();

describe('triage says where the culprit went', () => {
  it("on the demo data: it reached production (bob played it) and staging (main's head), each offered a rollback to the deployment before it", async () => {
    const { report, field } = await triage();
    const deployed = report.deployed!;
    const culprit = report.red_since!.first_red.sha;
    expect(deployed.culprit).toBe(culprit);
    expect(deployed.stopped_at).toBeUndefined();
    const [production, staging] = ['production', 'staging'].map(
      (name) => deployed.environments.find((e) => e.environment === name)!,
    );
    expect(production).toMatchObject({ holds: 'reached', sha: culprit, ref: 'main' });
    expect(staging).toMatchObject({ holds: 'reached', sha: report.head!.sha, ref: 'main' });
    // Back to what each ran before the culprit's first pipeline: the 1.1.0 release, and main's last green commit.
    expect(production.rollback_to).toMatchObject({ ref: 'v1.1.0', sha: report.red_since!.last_green!.sha });
    expect(staging.rollback_to).toMatchObject({ ref: 'main', sha: report.red_since!.last_green!.sha });
    expect(field('where it went')).toMatch(
      new RegExp(
        `^${culprit.slice(0, 8)} reached production at .* \\(deployment #${production.deployment_id}\\) and staging at .* \\(deployment #${staging.deployment_id}\\) — it is live in PRODUCTION$`,
      ),
    );
    const rollbacks = report.actions.filter((a) => a.operation === 'rollback_environment');
    expect(rollbacks.map((a) => [a.label, a.input])).toEqual([
      [
        'Roll back production',
        {
          id: PROJECT,
          environment: production.environment_id,
          to: production.rollback_to!.deployment_id,
          current_deployment_id: production.deployment_id,
        },
      ],
      [
        'Roll back staging',
        {
          id: PROJECT,
          environment: staging.environment_id,
          to: staging.rollback_to!.deployment_id,
          current_deployment_id: staging.deployment_id,
        },
      ],
    ]);
  });

  it('reached no environment: says where its pipelines stopped, and that staging runs a commit before it', async () => {
    const { firstRedAt, lastGreen } = await demoCommits();
    const before = later(firstRedAt, -60);
    const last = deployment(7, lastGreen, 'main', 'staging', before);
    const environments: Env[] = [
      { id: 2, name: 'staging', tier: 'staging', state: 'available', last_deployment: last },
    ];
    const { report, field } = await triage(withEnvironments(environments, [last]));
    expect(report.deployed!.stopped_at).toBe('test');
    expect(report.deployed!.environments).toEqual([
      expect.objectContaining({ environment: 'staging', holds: 'before' }),
    ]);
    const line = field('where it went')!;
    expect(line).toMatch(
      /^[0-9a-f]{8} reached no environment \(its pipelines stopped at test\); staging runs [0-9a-f]{8}, before it$/,
    );
    expect(line.startsWith(report.red_since!.first_red.sha.slice(0, 8))).toBe(true);
    expect(report.actions.map((a) => a.operation)).not.toContain('rollback_environment');
  });

  it('reached staging (a descendant of the culprit runs there); production runs the release tag, before it; staging is offered a rollback pinned to the deployment before the culprit', async () => {
    const { culprit, firstRedAt, head, lastGreen } = await demoCommits();
    const before = later(firstRedAt, -60);
    const after = later(firstRedAt, 30);
    const environments: Env[] = [
      {
        id: 2,
        name: 'staging',
        tier: 'staging',
        state: 'available',
        last_deployment: deployment(12, head, 'main', 'staging', after),
      },
      {
        id: 3,
        name: 'production',
        tier: 'production',
        state: 'available',
        last_deployment: deployment(9, lastGreen, 'v1.1.0', 'production', before, true),
      },
      { id: 4, name: 'review/dark-mode', tier: 'development', state: 'available', last_deployment: null },
    ];
    const deployments = [
      deployment(12, head, 'main', 'staging', after),
      deployment(10, culprit, 'main', 'staging', later(firstRedAt, 5)),
      deployment(7, lastGreen, 'main', 'staging', before),
      deployment(9, lastGreen, 'v1.1.0', 'production', before, true),
    ];
    const { report, field } = await triage(withEnvironments(environments, deployments));
    expect(report.deployed!.environments).toEqual([
      expect.objectContaining({ environment: 'staging', holds: 'reached', deployment_id: 12, sha: head, at: after }),
      expect.objectContaining({ environment: 'production', holds: 'before', ref: 'v1.1.0', tag: true }),
    ]);
    expect(report.deployed!.stopped_at).toBeUndefined();
    // The newest successful deployment made before the culprit's first pipeline: #7, not #10 (the culprit itself).
    expect(report.deployed!.environments[0].rollback_to).toEqual({ deployment_id: 7, sha: lastGreen, ref: 'main' });
    const line = field('where it went')!;
    expect(line).toBe(
      `${culprit.slice(0, 8)} reached staging at ${momentText(after, Date.parse(report.as_of))} (deployment #12); production runs v1.1.0, before it`,
    );
    expect(line).not.toMatch(/PRODUCTION/);

    const rollback = report.actions.find((a) => a.operation === 'rollback_environment')!;
    expect(rollback).toMatchObject({ label: 'Roll back staging', style: 'danger' });
    expect(rollback.input).toEqual({ id: PROJECT, environment: 2, to: 7, current_deployment_id: 12 });
    // A call rollback_environment takes as it is: its confirmation reads the plan for exactly these.
    const rollbackOp = operations.find((o) => o.name === 'rollback_environment')!;
    expect(validateInput(rollbackOp, rollback.input)).toEqual(rollback.input);
    // After the revert (fixing main first), before the rest.
    const order = report.actions.map((a) => a.operation);
    expect(order.indexOf('revert_as_merge_request')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('rollback_environment')).toBe(order.indexOf('revert_as_merge_request') + 1);
    expect(order.filter((o) => o === 'rollback_environment')).toHaveLength(1);
  });

  it('says plainly when the culprit is live in production', async () => {
    const { firstRedAt, head, lastGreen } = await demoCommits();
    const before = later(firstRedAt, -60);
    const environments: Env[] = [
      {
        id: 3,
        name: 'production',
        tier: 'production',
        state: 'available',
        last_deployment: deployment(20, head, 'v1.2.0', 'production', later(firstRedAt, 40), true),
      },
    ];
    const deployments = [
      deployment(20, head, 'v1.2.0', 'production', later(firstRedAt, 40), true),
      deployment(9, lastGreen, 'v1.1.0', 'production', before, true),
    ];
    const { report, field } = await triage(withEnvironments(environments, deployments));
    expect(field('where it went')).toMatch(
      /reached production at .* \(deployment #20, v1\.2\.0\) — it is live in PRODUCTION$/,
    );
    expect(report.actions.find((a) => a.operation === 'rollback_environment')?.input).toEqual({
      id: PROJECT,
      environment: 3,
      to: 9,
      current_deployment_id: 20,
    });
  });
});

describe('withRollbacks', () => {
  const a = (operation: string) => ({ label: operation, operation, input: {} });
  const roll = a('rollback_environment');
  it('puts the rollback after the revert and the merge, or after the first action without them', () => {
    const ops = (list: Array<{ operation: string }>) => list.map((x) => x.operation);
    expect(
      ops(
        withRollbacks(
          [a('merge_merge_request'), a('revert_as_merge_request'), a('retry_pipeline'), a('get_job_log')],
          [roll],
        ),
      ),
    ).toEqual([
      'merge_merge_request',
      'revert_as_merge_request',
      'rollback_environment',
      'retry_pipeline',
      'get_job_log',
    ]);
    expect(ops(withRollbacks([a('retry_pipeline'), a('get_job_log')], [roll]))).toEqual([
      'retry_pipeline',
      'rollback_environment',
      'get_job_log',
    ]);
    const fix = a('retry_pipeline');
    expect(ops(withRollbacks([fix, a('get_job_log')], [roll], fix))[1]).toBe('rollback_environment');
    expect(withRollbacks([a('get_job_log')], [])).toEqual([a('get_job_log')]);
  });

  it('reachText names an environment whose ancestry was not read as such', () => {
    expect(
      reachText(
        {
          culprit: 'abcdef0123456789',
          environments: [
            {
              environment: 'staging',
              environment_id: 1,
              holds: 'unknown',
              deployment_id: 4,
              sha: '1234567890ab',
              ref: 'main',
            },
          ],
        },
        0,
      ),
    ).toBe('abcdef01 reached no environment; staging runs 12345678 (whether it holds it was not read)');
  });
});
