// The deployment message's Block Kit: what it says as a deployment waits, is decided, deploys and fails, and that text
// from the service (environment, ref, usernames, a rejection's comment) can neither mention, link nor fake a line.
import { describe, expect, it } from 'vitest';
import { renderDeployment, type DeploymentView } from '../../../src/slack/incident/deployment-render.js';
import type { DeploymentSeen } from '../../../src/watch/deployment-watch.js';

function view(over: Partial<DeploymentSeen> = {}, buttons: DeploymentView['buttons'] = []): DeploymentView {
  return {
    project: 'acme/web',
    deployment: {
      id: 12,
      status: 'blocked',
      sha: '1a2b3c4d5e6f',
      ref: 'main',
      environment: 'production',
      user: 'bob',
      job: { id: 55, name: 'deploy:production' },
      pending_approval_count: 1,
      approvals: [],
      updated_at: '2026-12-06T23:00:00Z',
      ...over,
    },
    buttons,
  };
}

const approve = { label: 'Approve', actionId: 'forge_followup:0', value: 'ref-a', style: 'primary' as const };

describe('the deployment message', () => {
  it('says what waits, for whom, and offers its buttons while it waits', () => {
    const message = renderDeployment(view({}, [approve]));
    expect(message.text).toBe(
      'acme/web: Deployment #12 of 1a2b3c4d (main) to production waits for approval — deployed by @bob',
    );
    const all = JSON.stringify(message.blocks);
    expect(all).toContain('Deployment #12 of `1a2b3c4d` (main) to *production* waits for approval — deployed by @bob');
    expect(all).toContain('job deploy:production (#55) · 1 approval needed');
    expect(message.blocks.at(-1)).toMatchObject({ type: 'actions', elements: [{ value: 'ref-a', style: 'primary' }] });
  });

  it('names the decision and the end: rejected with its comment is no failure; a failed deploy says failed', () => {
    const rejected = renderDeployment(
      view({ status: 'failed', approvals: [{ user: 'alice', status: 'rejected', comment: 'not during the sale' }] }),
    );
    expect(rejected.text).toContain('to production was rejected — deployed by @bob (rejected by @alice)');
    expect(JSON.stringify(rejected.blocks)).toContain('rejected by @alice: not during the sale');
    expect(rejected.blocks.some((b) => b.type === 'actions')).toBe(false);
    const failed = renderDeployment(view({ status: 'failed', approvals: [{ user: 'alice', status: 'approved' }] }));
    expect(failed.text).toContain('to production failed — deployed by @bob (approved by @alice)');
    expect(JSON.stringify(failed.blocks)).toContain(':rotating_light:');
  });

  it('escapes what the service says: no mention, link or line of its own', () => {
    const message = renderDeployment(
      view({
        environment: 'prod <!channel>',
        ref: 'main\n*Approved:* <@U999>',
        user: '<!here>',
        approvals: [{ user: 'alice', status: 'rejected', comment: '<https://evil.example|click> & go' }],
      }),
    );
    const all = JSON.stringify(message.blocks) + message.text;
    for (const raw of ['<!channel>', '<!here>', '<@U999>', '<https://evil']) expect(all, raw).not.toContain(raw);
    expect(all).toContain('prod &lt;!channel&gt;');
    expect(all).toContain('&lt;https://evil.example|click&gt; &amp; go');
  });
});
