// rollback_environment's confirmation: it names the environment, the commit it runs now and the one it will run, and
// pins what was shown (the target deployment, its job, the current deployment) so that what runs is what was approved.
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../src/operations/index.js';
import type { RollbackPlan } from '../../../src/operations/composed/rollback-environment.js';

const plan: RollbackPlan = {
  environment: { id: 7, name: 'production' },
  current: { id: 42, sha: 'badc0ffee1234567890abcdef', ref: 'main' },
  target: { id: 40, sha: '600dcafe1234567890abcdef', ref: 'main', job_id: 311, job_name: 'deploy:production' },
};

describe('rollback_environment', () => {
  const op = findOperation('rollback_environment')!;

  it('asks a human with the environment, the commit it runs now and the one it will run', () => {
    const question = op.needsApproval!({ id: 'acme/web', environment: 'production' }, plan)!;
    expect(question).toContain('production');
    expect(question).toContain('badc0ffe');
    expect(question).toContain('600dcafe');
    expect(question).toContain('#311');
    expect(question.indexOf('badc0ffe')).toBeLessThan(question.indexOf('600dcafe'));
  });

  it('asks even when the facts could not be read', () => {
    expect(op.needsApproval!({ id: 'acme/web', environment: 'production' }, undefined)).toMatch(/rolls environment/);
  });

  it('pins the target, its job and the current deployment', () => {
    expect(op.facts!.pin!({ id: 'acme/web', environment: 'production' }, plan)).toEqual({
      environment: 7,
      to: 40,
      job_id: 311,
      current_deployment_id: 42,
    });
  });

  it("says the plan's own refusal before anyone is asked, and pins nothing", () => {
    const refused = {
      refused: 'environment production has no successful deployment to roll back from; nothing was run',
    };
    const input = { id: 'acme/web', environment: 'production' };
    expect(op.facts!.refuse!(input, refused)).toBe(refused.refused);
    expect(op.facts!.pin!(input, refused)).toEqual({});
    expect(op.facts!.refuse!(input, plan)).toBeUndefined();
  });

  it('names the newest run of the deploy job when it is a retry of the one the deployment ran', () => {
    const retried = { ...plan, target: { ...plan.target, job_id: 350, first_job_id: 311 } };
    expect(op.needsApproval!({ id: 'acme/web', environment: 'production' }, retried)).toContain(
      'by retrying the newest run of its deploy job deploy:production (#350, a retry of #311).',
    );
  });

  it('names the deployment its retry made that waits for approval, with Approve and Reject on it', () => {
    const result = {
      environment: { name: 'production' },
      from: plan.current,
      to: plan.target,
      job: { id: 312, name: 'deploy:production', status: 'manual' },
      deployment: { id: 43, status: 'blocked' },
      waiting_for_approval: true,
    };
    const shown = op.present!(result, { id: 'acme/web', environment: 'production' });
    expect(shown.fields).toContainEqual([
      'next',
      'deployment #43 waits for approval by someone else (deployment approve)',
    ]);
    expect(shown.actions?.map((a) => [a.label, a.operation, a.input])).toEqual([
      ['Approve', 'approve_deployment', { id: 'acme/web', deployment_id: 43, status: 'approved' }],
      ['Reject', 'approve_deployment', { id: 'acme/web', deployment_id: 43, status: 'rejected' }],
    ]);
  });
});
