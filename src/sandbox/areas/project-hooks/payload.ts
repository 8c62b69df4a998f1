// The body of a "Pipeline Hook" event as the service's webhook docs show it: the pipeline's attributes, the project,
// the user who ran it, its commit and its latest jobs ("builds"). Dates are written the way the service writes them in
// hook payloads ("2024-03-09 10:04:05 UTC").
import type { Pipeline, Project, Store } from '../../core/store.js';
import { projectWebUrl, userBasic } from '../../core/views.js';
import { jobsOf, type Job } from '../jobs/index.js';

const hookDate = (at: Date | null | undefined) =>
  at ? `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC` : null;

/** The status's words in the service's pipeline widgets, which hooks send as detailed_status. */
const DETAILED: Readonly<Record<string, string>> = { success: 'passed', waiting_for_resource: 'waiting' };

function userOf(store: Store, id: number) {
  const user = store.users.find((u) => u.id === id);
  if (!user) return null;
  // The service shows a user's e-mail in hooks only when it is public; the demo accounts keep theirs private.
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    avatar_url: userBasic(store, user).avatar_url,
    email: '[REDACTED]',
  };
}

const seconds = (from: Date | null, to: Date | null) =>
  from && to ? Math.max(0, (to.getTime() - from.getTime()) / 1000) : null;

function build(store: Store, job: Job) {
  return {
    id: job.id,
    stage: job.stage,
    name: job.name,
    status: job.status,
    created_at: hookDate(job.created_at),
    started_at: hookDate(job.started_at),
    finished_at: hookDate(job.finished_at),
    duration: seconds(job.started_at, job.finished_at),
    queued_duration: seconds(job.queued_at, job.started_at),
    failure_reason: job.status === 'failed' ? job.failure_reason : null,
    when: job.manual ? 'manual' : 'on_success',
    manual: job.manual,
    allow_failure: job.allow_failure,
    user: userOf(store, job.user_id),
    runner: null,
    artifacts_file: { filename: null, size: null },
    environment: null,
  };
}

/** What the event says of the pipeline at the moment its status changed (read at once: the runner moves on). */
export function pipelineSnapshot(store: Store, project: Project, pipeline: Pipeline) {
  const jobs = jobsOf(store)
    .jobs.filter((j) => j.pipeline_id === pipeline.id && !j.retried)
    .sort((a, b) => a.id - b.id);
  const web = projectWebUrl(store, project);
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: pipeline.id,
      name: pipeline.name,
      ref: pipeline.ref,
      tag: pipeline.tag,
      sha: pipeline.sha,
      before_sha: pipeline.before_sha,
      source: pipeline.source ?? 'push',
      status: pipeline.status,
      detailed_status: DETAILED[pipeline.status] ?? pipeline.status,
      stages: [...new Set(jobs.map((j) => j.stage))],
      created_at: hookDate(pipeline.created_at),
      finished_at: hookDate(pipeline.finished_at),
      duration: pipeline.duration,
      queued_duration: seconds(pipeline.created_at, pipeline.started_at),
      variables: pipeline.variables.map((v) => ({ key: v.key, value: v.value })),
      url: `${web}/-/pipelines/${pipeline.id}`,
    },
    merge_request: null,
    user: userOf(store, pipeline.user_id),
    project: hookProject(store, project),
    builds: jobs.map((job) => build(store, job)),
  };
}

const VISIBILITY: Readonly<Record<string, number>> = { private: 0, internal: 10, public: 20 };

/** The whole event: the snapshot and its commit (read from the repository). */
export async function pipelineEvent(project: Project, snapshot: ReturnType<typeof pipelineSnapshot>) {
  const sha = snapshot.object_attributes.sha;
  const info = await project.repo.getCommit(sha).catch(() => null);
  const commit = info
    ? {
        id: info.id,
        message: info.message,
        title: info.title,
        timestamp: info.committed_date,
        url: `${snapshot.project.web_url}/-/commit/${info.id}`,
        author: { name: info.author_name, email: info.author_email },
      }
    : null;
  return { ...snapshot, commit };
}

/** The project as hook payloads carry it. */
function hookProject(store: Store, project: Project) {
  const web = projectWebUrl(store, project);
  return {
    id: project.id,
    name: project.name,
    description: project.description ?? null,
    web_url: web,
    avatar_url: null,
    git_ssh_url: `git@${new URL(store.baseUrl || 'http://localhost').host}:${project.full_path}.git`,
    git_http_url: `${web}.git`,
    namespace: project.name_with_namespace.split(' / ').slice(0, -1).join(' / '),
    visibility_level: VISIBILITY[project.visibility] ?? 0,
    path_with_namespace: project.full_path,
    default_branch: project.default_branch,
  };
}

/** The vendor's hook test triggers and the X-Gitlab-Event header each one's sample event is sent with. */
export const TEST_TRIGGERS: Readonly<Record<string, string>> = {
  push_events: 'Push Hook',
  tag_push_events: 'Tag Push Hook',
  issues_events: 'Issue Hook',
  confidential_issues_events: 'Confidential Issue Hook',
  note_events: 'Note Hook',
  confidential_note_events: 'Confidential Note Hook',
  merge_requests_events: 'Merge Request Hook',
  job_events: 'Job Hook',
  pipeline_events: 'Pipeline Hook',
  wiki_page_events: 'Wiki Page Hook',
  deployment_events: 'Deployment Hook',
  feature_flag_events: 'Feature Flag Hook',
  releases_events: 'Release Hook',
  emoji_events: 'Emoji Hook',
  resource_access_token_events: 'Resource Access Token Hook',
};

const OBJECT_KINDS: Readonly<Record<string, string>> = {
  push_events: 'push',
  tag_push_events: 'tag_push',
  issues_events: 'issue',
  confidential_issues_events: 'issue',
  note_events: 'note',
  confidential_note_events: 'note',
  merge_requests_events: 'merge_request',
  job_events: 'build',
  wiki_page_events: 'wiki_page',
  deployment_events: 'deployment',
  feature_flag_events: 'feature_flag',
  releases_events: 'release',
  emoji_events: 'emoji',
  resource_access_token_events: 'access_token',
};

/** A test event of a trigger other than pipelines: its kind and the project (the sandbox keeps no sample data). */
export function sampleEvent(store: Store, project: Project, trigger: string) {
  const kind = OBJECT_KINDS[trigger] ?? trigger;
  return { object_kind: kind, event_name: kind, project_id: project.id, project: hookProject(store, project) };
}
