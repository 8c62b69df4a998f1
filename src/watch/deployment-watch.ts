// What a branch watch follows of its project's deployments: a deployment that waits for approvals (a protected
// environment), each later move of one told while it waited (approved, rejected, deploying, its end), and a deployment
// that failed. Pure: the watch (./branch-watch.ts) reads them, this says what is worth telling and where reading goes on.
import { asList, asRecord, show, type Fields } from '../operations/engine/present.js';

export interface DeploymentApprovalSeen {
  user?: string;
  status: string;
  comment?: string;
}

/** A deployment as a watch tells it (from list_deployments): enough to draw its message without reading it again. */
export interface DeploymentSeen {
  id: number;
  iid?: number;
  status: string;
  sha: string;
  ref: string;
  environment: string;
  /** Who triggered its deploy job (username). */
  user?: string;
  job?: { id: number; name: string };
  pending_approval_count: number;
  approvals: DeploymentApprovalSeen[];
  updated_at: string;
}

/** Where a watch is in its project's deployments; kept in the watch's state. */
export interface DeploymentsFollowed {
  /** The newest updated_at read: the next read asks for deployments updated after it. */
  cursor: string;
  /** Deployments told while waiting and not ended yet: each of their moves is told, so their message follows them. */
  open: number[];
}

/** Deployments read at once: more moved in one interval than this are read at the next change (the cursor holds). */
export const DEPLOYMENTS_PER_READ = 50;
/**
 * The read starts this long before the cursor: the service's updated_after is strict and a deployment may share the
 * cursor's millisecond; a transition read twice is told once (its key).
 */
const CURSOR_OVERLAP_MS = 1000;
const ENDED = new Set(['success', 'failed', 'canceled', 'skipped']);
/** Waiting deployments followed at most: the newest; an older one never decided is then left as its message shows it. */
const MAX_OPEN = 50;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

export function deploymentSeenOf(row: Fields): DeploymentSeen {
  const job = asRecord(row.deployable);
  return {
    id: Number(row.id),
    ...(row.iid === undefined || row.iid === null ? {} : { iid: Number(row.iid) }),
    status: show(row.status),
    sha: show(row.sha),
    ref: show(row.ref),
    environment: show(asRecord(row.environment).name),
    ...(text(asRecord(row.user).username) ? { user: text(asRecord(row.user).username) } : {}),
    ...(job.id === undefined ? {} : { job: { id: Number(job.id), name: show(job.name) } }),
    pending_approval_count: Number(row.pending_approval_count ?? 0) || 0,
    approvals: asList(row.approvals).map((a) => ({
      ...(text(asRecord(a.user).username) ? { user: text(asRecord(a.user).username) } : {}),
      status: show(a.status),
      ...(text(a.comment) ? { comment: text(a.comment) } : {}),
    })),
    updated_at: show(row.updated_at),
  };
}

/** The list_deployments input of the next read. */
export function deploymentsQuery(id: string | number, followed: DeploymentsFollowed): Record<string, unknown> {
  const cursor = Date.parse(followed.cursor);
  const after = Number.isNaN(cursor) ? followed.cursor : new Date(cursor - CURSOR_OVERLAP_MS).toISOString();
  return { id, updated_after: after, order_by: 'updated_at', sort: 'asc', per_page: DEPLOYMENTS_PER_READ };
}

/** Whether a deployment's state is worth a message: it waits for approvals, it failed, or its message follows it. */
export function worthTelling(deployment: DeploymentSeen, followed: DeploymentsFollowed): boolean {
  return deployment.status === 'blocked' || deployment.status === 'failed' || followed.open.includes(deployment.id);
}

/** The transition's name, the same on every replica: one per status and approvals given. */
export const deploymentTransition = (project: string, deployment: DeploymentSeen) =>
  `deploy:${project}:${deployment.id}:${deployment.status}:${deployment.approvals.length}`;

/** Where following goes on after `read`: the cursor at the newest read, the open ones the waiting, not ended, ones. */
export function followedAfter(followed: DeploymentsFollowed, read: readonly DeploymentSeen[]): DeploymentsFollowed {
  const open = new Set(followed.open);
  let cursor = followed.cursor;
  for (const deployment of read) {
    if (deployment.status === 'blocked') open.add(deployment.id);
    else if (ENDED.has(deployment.status)) open.delete(deployment.id);
    if (Date.parse(deployment.updated_at) > Date.parse(cursor)) cursor = deployment.updated_at;
  }
  return { cursor, open: [...open].slice(-MAX_OPEN) };
}
