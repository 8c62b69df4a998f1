// What a watch makes of the deployments it reads: the next read's query (from a second before the newest read, as the
// service's updated_after is strict), which deployments are worth telling, and which it keeps following to their end.
import { describe, expect, it } from 'vitest';
import {
  deploymentSeenOf,
  deploymentsQuery,
  followedAfter,
  worthTelling,
  type DeploymentSeen,
} from '../../../src/watch/deployment-watch.js';

const seen = (id: number, status: string, updated_at: string): DeploymentSeen => ({
  id,
  status,
  sha: 'abc',
  ref: 'main',
  environment: 'production',
  pending_approval_count: 0,
  approvals: [],
  updated_at,
});

describe('following deployments', () => {
  it('asks for those updated from a second before the newest read, oldest first', () => {
    expect(deploymentsQuery(7, { cursor: '2026-12-06T10:00:00.500Z', open: [] })).toEqual({
      id: 7,
      updated_after: '2026-12-06T09:59:59.500Z',
      order_by: 'updated_at',
      sort: 'asc',
      per_page: 50,
    });
  });

  it('tells one that waits or failed, and every move of one it followed while it waited, until it ends', () => {
    let followed = { cursor: '2026-12-06T10:00:00Z', open: [] as number[] };
    expect(worthTelling(seen(1, 'running', '2026-12-06T10:00:01Z'), followed)).toBe(false);
    expect(worthTelling(seen(1, 'failed', '2026-12-06T10:00:01Z'), followed)).toBe(true);
    followed = followedAfter(followed, [
      seen(2, 'blocked', '2026-12-06T10:00:02Z'),
      seen(1, 'success', '2026-12-06T10:00:01Z'),
    ]);
    expect(followed).toEqual({ cursor: '2026-12-06T10:00:02Z', open: [2] });
    expect(worthTelling(seen(2, 'running', '2026-12-06T10:00:03Z'), followed)).toBe(true);
    followed = followedAfter(followed, [seen(2, 'success', '2026-12-06T10:00:04Z')]);
    expect(followed).toEqual({ cursor: '2026-12-06T10:00:04Z', open: [] });
  });

  it('follows the newest 50 waiting at most: one never decided does not grow the state without bound', () => {
    const read = Array.from({ length: 60 }, (_, i) =>
      seen(i + 1, 'blocked', `2026-12-06T10:00:${String(i).padStart(2, '0')}Z`),
    );
    const followed = followedAfter({ cursor: '2026-12-06T09:00:00Z', open: [] }, read);
    expect(followed.open).toHaveLength(50);
    expect(followed.open[0]).toBe(11);
  });

  it('reads a loose row without crashing: numbers as strings, nulls where objects were', () => {
    expect(
      deploymentSeenOf({
        id: '12',
        status: 'blocked',
        sha: 'abc',
        ref: 'main',
        environment: null,
        user: null,
        deployable: null,
        approvals: null,
        pending_approval_count: '1',
        updated_at: '2026-12-06T10:00:00Z',
      }),
    ).toMatchObject({ id: 12, pending_approval_count: 1, approvals: [] });
  });
});
