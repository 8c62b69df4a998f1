// The open merge requests that revert a red branch's culprit: forgeops's own (from revert-<sha8>), one made by the
// service's Revert button or by hand ("This reverts commit <sha>" in its description, or the title git gives a revert,
// `Revert "<title>"`). Triage names them with their pipeline's state and offers merging the first when green, never
// a second revert; the Slack alert and the chat offer the same step.
import type { FollowUp } from '../engine/define.js';
import { asList, asRecord, show, type Fields } from '../engine/present.js';
import type { TolerantRead } from './tolerant-read.js';

/** Open merge requests into the branch read to find one that reverts the culprit (one page). */
const OPEN_REQUESTS_READ = 100;
/** Of those that revert it, how many are read in full (their head pipeline). */
const REVERTS_READ = 3;

export const MERGE_OPERATION = 'merge_merge_request';

/** An open merge request that reverts the culprit, and where it stands. */
export interface OpenRevert {
  iid: number;
  title: string;
  source_branch: string;
  web_url?: string;
  /** Its head commit: what a merge is pinned to. */
  sha?: string;
  /** How it was recognised: forgeops's branch name, the "This reverts commit" line, or git's revert title. */
  matched_by: 'branch' | 'trailer' | 'title';
  /** Its head pipeline, when it has one. */
  pipeline?: { id: number; status: string; web_url?: string };
  /** Set to merge when its pipeline passes (by someone, already). */
  merge_when_pipeline_succeeds: boolean;
}

/** "This reverts commit <sha>" as git's revert and the service's Revert button write it, full or abbreviated. */
const REVERTS = /This reverts commit ([0-9a-f]{7,40})\b/gi;

/** Whether a text says it reverts `sha` (either sha may be the other's abbreviation). */
export function saysItReverts(text: unknown, sha: string): boolean {
  if (typeof text !== 'string') return false;
  const ours = sha.toLowerCase();
  for (const [, named] of text.matchAll(REVERTS)) {
    const theirs = named.toLowerCase();
    if (theirs.startsWith(ours) || ours.startsWith(theirs)) return true;
  }
  return false;
}

/** The branch forgeops's revert_as_merge_request makes for `sha` (kept here so triage needs no import cycle). */
export const revertBranchOf = (sha: string) => `revert-${sha.slice(0, 8).toLowerCase()}`;

/** How a merge request reverts the culprit, or undefined when it does not. */
export function revertMatch(
  mr: Fields,
  culprit: { sha: string; title?: string },
): OpenRevert['matched_by'] | undefined {
  if (mr.source_branch === revertBranchOf(culprit.sha)) return 'branch';
  if (saysItReverts(mr.description, culprit.sha)) return 'trailer';
  if (culprit.title !== undefined && mr.title === `Revert "${culprit.title}"`) return 'title';
  return undefined;
}

/**
 * The open merge requests into `ref` that revert the culprit, forgeops's own first, each read in full for its head
 * pipeline (three at most). Reads that fail leave what they could not say in `unread`.
 */
export async function findOpenReverts(
  read: TolerantRead,
  id: string | number,
  ref: string,
  culprit: { sha: string; title?: string },
  unread: string[],
): Promise<OpenRevert[]> {
  const listed = await read('list_project_merge_requests', {
    id,
    state: 'opened',
    target_branch: ref,
    per_page: OPEN_REQUESTS_READ,
  });
  if (!listed) return [];
  if (listed.page?.has_more)
    unread.push(
      `more than ${OPEN_REQUESTS_READ} open merge requests into ${ref}: only the newest were searched for a revert`,
    );
  const order = { branch: 0, trailer: 1, title: 2 };
  const matched = asList(listed.data)
    .map((mr) => ({ mr, by: revertMatch(mr, culprit) }))
    .filter((m): m is { mr: Fields; by: OpenRevert['matched_by'] } => m.by !== undefined && m.mr.state === 'opened')
    .sort((a, b) => order[a.by] - order[b.by])
    .slice(0, REVERTS_READ);
  return Promise.all(
    matched.map(async ({ mr: listedMr, by }) => {
      const full = await read('get_merge_request', { id, merge_request_iid: Number(listedMr.iid) });
      const mr = full ? { ...listedMr, ...asRecord(full.data) } : listedMr;
      const pipeline = asRecord(mr.head_pipeline ?? mr.pipeline);
      return {
        iid: Number(mr.iid),
        title: show(mr.title),
        source_branch: show(mr.source_branch),
        ...(typeof mr.web_url === 'string' ? { web_url: mr.web_url } : {}),
        ...(typeof mr.sha === 'string' ? { sha: mr.sha } : {}),
        matched_by: by,
        ...(pipeline.id !== undefined
          ? {
              pipeline: {
                id: Number(pipeline.id),
                status: show(pipeline.status),
                ...(typeof pipeline.web_url === 'string' ? { web_url: pipeline.web_url } : {}),
              },
            }
          : {}),
        merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds === true,
      };
    }),
  );
}

const FAILED = new Set(['failed', 'canceled']);

/** Where an open revert stands, in words: "pipeline #23 running; set to merge when it passes". */
export function openRevertState(mr: OpenRevert): string {
  const pipeline = mr.pipeline ? `pipeline #${mr.pipeline.id} ${mr.pipeline.status}` : 'no pipeline yet';
  if (mr.merge_when_pipeline_succeeds) return `${pipeline}; set to merge when it passes`;
  return pipeline;
}

/**
 * The step an open revert offers: its pipeline failed, retry that pipeline (it is the revert's, not the red branch's;
 * a merge set to wait for a green pipeline waits for the retry); else merge it when its pipeline passes (at once if it
 * passed, pinned to its head), or nothing once it is set to merge.
 */
export function openRevertAction(id: string | number, mr: OpenRevert): FollowUp | undefined {
  if (mr.pipeline && FAILED.has(mr.pipeline.status))
    return {
      label: `Retry pipeline #${mr.pipeline.id} of !${mr.iid}`,
      operation: 'retry_pipeline',
      input: { id, pipeline_id: mr.pipeline.id },
      style: 'primary',
    };
  if (mr.merge_when_pipeline_succeeds) return undefined;
  return {
    label: `Merge !${mr.iid} when green`,
    operation: MERGE_OPERATION,
    input: {
      id,
      merge_request_iid: mr.iid,
      merge_when_pipeline_succeeds: true,
      ...(mr.sha ? { sha: mr.sha } : {}),
    },
    style: 'primary',
  };
}
