// A job as the service's Jobs API answers it (commit, pipeline, runner, artifacts): the jobs routes and a
// deployment's `deployable` show the same shape.
import type { Project, Store } from '../../core/store.js';
import { pipelineBasic, projectWebUrl, userDetailed } from '../../core/views.js';
import type { GitCommitInfo } from '../../git/commit-format.js';
import type { Job } from './state.js';

async function jobView(store: Store, project: Project, job: Job, commits: Map<string, Promise<GitCommitInfo>>) {
  const pipeline = project.pipelines.find((p) => p.id === job.pipeline_id);
  const sha = pipeline?.sha ?? '';
  let commit = commits.get(sha);
  if (!commit && sha) {
    commit = project.repo.getCommit(sha);
    commits.set(sha, commit);
  }
  const info = commit ? await commit : undefined;
  const user = store.users.find((u) => u.id === job.user_id);
  const now = new Date(store.clock.now());
  const duration = job.started_at
    ? Math.max(0, (job.finished_at ?? now).getTime() - job.started_at.getTime()) / 1000
    : null;
  // From entering the queue to a runner taking it (or now, while it waits); none for a job that never queued.
  const queuedUntil = job.started_at ?? (job.status === 'pending' ? now : null);
  const queued =
    job.queued_at && queuedUntil ? Math.max(0, queuedUntil.getTime() - job.queued_at.getTime()) / 1000 : null;
  return {
    id: job.id,
    status: job.status,
    stage: job.stage,
    name: job.name,
    ref: pipeline?.ref ?? null,
    tag: pipeline?.tag ?? false,
    coverage: job.coverage,
    allow_failure: job.allow_failure,
    // The job's `when` from its CI configuration. The vendor's job answer leaves it out, so a client that must know
    // whether a retry starts a gate asks a human there; the sandbox says it, so the demo shows both kinds of retry.
    when: job.manual ? 'manual' : 'on_success',
    created_at: job.created_at.toISOString(),
    started_at: job.started_at?.toISOString() ?? null,
    finished_at: job.finished_at?.toISOString() ?? null,
    erased_at: job.erased_at?.toISOString() ?? null,
    duration,
    queued_duration: queued,
    user: user ? userDetailed(store, user) : null,
    commit: info
      ? {
          id: info.id,
          short_id: info.short_id,
          created_at: info.created_at,
          parent_ids: info.parent_ids,
          title: info.title,
          message: info.message,
          author_name: info.author_name,
          author_email: info.author_email,
          authored_date: info.authored_date,
          committer_name: info.committer_name,
          committer_email: info.committer_email,
          committed_date: info.committed_date,
          web_url: `${projectWebUrl(store, project)}/-/commit/${info.id}`,
        }
      : null,
    pipeline: pipeline ? { ...pipelineBasic(store, project, pipeline), project_id: project.id } : null,
    web_url: `${projectWebUrl(store, project)}/-/jobs/${job.id}`,
    project: { ci_job_token_scope_enabled: false },
    artifacts: job.artifacts.map((a) => ({ ...a })),
    ...(job.artifacts.some((a) => a.file_type === 'archive')
      ? {
          artifacts_file: {
            filename: 'artifacts.zip',
            size: job.artifacts.find((a) => a.file_type === 'archive')!.size,
          },
        }
      : {}),
    artifacts_expire_at: null,
    runner: job.started_at
      ? {
          id: 3,
          description: 'acme-docker-3',
          active: true,
          paused: false,
          is_shared: true,
          runner_type: 'instance_type',
          name: 'gitlab-runner',
          online: true,
          status: 'online',
        }
      : null,
    runner_manager: job.started_at
      ? {
          id: 3,
          system_id: 's_7f2b1c9e0a11',
          version: '16.9.1',
          revision: '782c6ecb',
          platform: 'linux',
          architecture: 'amd64',
          created_at: job.created_at.toISOString(),
          contacted_at: (job.finished_at ?? job.started_at).toISOString(),
          ip_address: '10.0.3.12',
          status: 'online',
        }
      : null,
    source: pipeline?.source ?? 'push',
    tag_list: ['docker'],
    archived: false,
    ...(job.status === 'failed' ? { failure_reason: job.failure_reason ?? 'unknown_failure' } : {}),
  };
}

export function jobViews(store: Store, project: Project, jobs: Job[]) {
  const commits = new Map<string, Promise<GitCommitInfo>>();
  return Promise.all(jobs.map((job) => jobView(store, project, job, commits)));
}
