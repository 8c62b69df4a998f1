// A watch's deployment event of acme/web's production, as the Slack deployment-message tests deliver it: waiting for
// approval while blocked, approved by alice once it moved on.
import type { WatchEvent } from '../../src/watch/branch-watch.js';

/** Deployment `id` of acme/web (project 7) to production at `sha`, in `status`; its deploy job is `id + 100`. */
export function deploymentEvent(id: number, status: string, sha = '2fa70043aaaa'): WatchEvent {
  return {
    kind: 'deployment',
    project: 'acme/web',
    projectId: 7,
    ref: 'main',
    deployment: {
      id,
      status,
      sha,
      ref: 'main',
      environment: 'production',
      user: 'root',
      job: { id: id + 100, name: 'deploy:production' },
      pending_approval_count: status === 'blocked' ? 1 : 0,
      approvals: status === 'blocked' ? [] : [{ user: 'alice', status: 'approved' }],
      updated_at: '2026-11-27T10:40:00Z',
    },
  };
}
