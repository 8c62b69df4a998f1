// What a triage answers (its report's shape) and which reads it is made of: apart from triage.ts so that the
// operations it offers as next steps (the revert as a merge request) can name them without importing triage back.
import type { FollowUp } from '../engine/define.js';
import type { CulpritReach } from './culprit-reach.js';
import type { FailureVerdict } from './failure-kind.js';
import type { OpenRevert } from './open-reverts.js';

export type Verdict = 'green' | 'red' | 'running' | 'unknown';

export interface TriageReport {
  project: string;
  web_url?: string;
  default_branch: string;
  head?: { sha: string; title: string; author: string };
  /** Judged on the head commit's latest finished pipeline. */
  verdict: Verdict;
  /** Why the verdict is what it is, in one sentence. */
  because: string;
  head_pipeline?: { id: number; status: string; web_url?: string };
  /** While running: the pipeline of the head that is still going (the verdict is the last finished one's). */
  running_pipeline?: { id: number; status: string };
  red_since?: {
    /**
     * since: when the first red pipeline was created (ISO 8601); red_for: how long ago that is, in words
     * ("2 h 14 min"), at the time of the report.
     */
    first_red: {
      pipeline: number;
      sha: string;
      since?: string;
      red_for?: string;
      title?: string;
      author?: string;
      at?: string;
    };
    last_green?: { pipeline: number; sha: string };
    /** Commits after the last green one up to the first red one, oldest first: who to ping (the newest 20 of them). */
    suspects: Array<{ sha: string; title: string; author: string }>;
    /** Whether older commits of that range were left out. */
    more_suspects: boolean;
    /** Authors of those commits: the first red commit's first, then by how many commits they made. */
    ping: string[];
  };
  failed_jobs: Array<{
    id: number;
    name: string;
    stage: string;
    failure_reason?: string;
    failing_section?: string;
    excerpt?: string;
  }>;
  /**
   * While red: the open merge requests into the branch that revert the first red commit (forgeops's revert-<sha8>,
   * "This reverts commit <sha>" in the description, or the title `Revert "<title>"`), with their pipeline's state.
   * When there is one, the actions offer merging it when green (or retrying its failed pipeline), never a second revert.
   */
  open_reverts?: OpenRevert[];
  /** While red: flaky, broken or infrastructure, each failing job judged from its runs, with the evidence in one line. */
  failure?: FailureVerdict;
  /**
   * While red: where the first red commit (the culprit) went — each environment (review apps aside, at most 5) with
   * what it runs now and whether that holds the culprit (reached) or not (before); when none holds it, the stage the
   * failing pipeline stopped at. An environment it is live in is offered a rollback to the deployment before it.
   */
  deployed?: CulpritReach;
  /** The latest release; unreleased_commits counts at most 100 (more_unreleased: there are more). */
  release?: { tag: string; unreleased_commits?: number; more_unreleased?: boolean; compare_url?: string };
  actions: FollowUp[];
  /** Reads that failed or were cut, each in words. */
  unread: string[];
  /** When the report was made (ISO 8601): red_for counts to it. */
  as_of: string;
}

/** The reads a triage is made of. */
export const TRIAGE_READS = [
  'get_project',
  'get_branch',
  'list_pipelines',
  'list_pipeline_jobs',
  'get_job_log',
  'list_commits',
  'get_commit',
  'list_releases',
  'list_project_merge_requests',
  'get_merge_request',
  'list_environments',
  'get_environment',
  'get_merge_base',
  'list_deployments',
];
