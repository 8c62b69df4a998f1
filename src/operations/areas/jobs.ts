// Jobs area (beyond the spec; the service's Jobs API, v4): a pipeline's or a project's jobs, one job, its log as a
// person or a model can use it (job-log.ts), and retry, cancel, play and erase.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import type { FollowUp, OperationResult, Presentation, RunContext } from '../engine/define.js';
import { buildPath } from '../../http/route.js';
import { DEFAULT_LOG_LINES, failingExcerpt, readJobLog, viewJobLog } from './shared/job-log.js';
import { fenceUntrusted, unfenceLog } from './shared/untrusted-fence.js';
import { readJob, type JobFacts } from '../engine/effect-facts.js';
import { asRecord, presentList, shortSha, show } from '../engine/present.js';

export const JOB_STATUSES = [
  'created',
  'pending',
  'running',
  'failed',
  'success',
  'canceled',
  'skipped',
  'waiting_for_resource',
  'manual',
] as const;

/** Bytes of a log's end read at most: a log of many megabytes answers with its tail, memory bounded whatever it is. */
const LOG_TAIL_BYTES = 2 * 1024 * 1024;
/** Lines a caller may ask for without `all`. */
const MAX_LOG_LINES = 5000;

const jobId = () => z.number().int().positive();
const jobInput = z.object({ id: fields.projectId(), job_id: jobId() });
const scope = () => z.array(z.enum(JOB_STATUSES)).min(1).optional().describe('Only jobs in these statuses.');

/** Statuses of a job the service retries. */
const RETRYABLE = new Set(['success', 'failed', 'canceled']);

/**
 * Why retrying this job needs a human: the service's retry enqueues a manual job at once (it does not wait for a
 * person as the job did), which is what play_job asks about. The vendor's job answer does not say `when`: a job that
 * ended and may have been manual is asked about too.
 */
function manualRetry(job: JobFacts | undefined): string | undefined {
  if (!job) return undefined;
  if (job.when === 'manual' || job.status === 'manual') {
    return "It starts a manual job at once — a gate someone set so that a person decides, often a deploy: the service's retry does not wait for a person.";
  }
  if (job.when === undefined && RETRYABLE.has(job.status)) {
    return (
      'The service does not say whether this job is a manual one (when: manual), and its retry starts a manual job at once, ' +
      'without the person that job waits for; so a human decides.'
    );
  }
  return undefined;
}

/** The next steps that fit a job in this status. */
function jobActions(projectId: unknown, job: Record<string, unknown>): FollowUp[] {
  const input = { id: projectId, job_id: job.id };
  const log: FollowUp = { label: 'Log', operation: 'get_job_log', input };
  if (job.status === 'failed' || job.status === 'canceled')
    return [log, { label: 'Retry', operation: 'retry_job', input, style: 'primary' }];
  if (job.status === 'running' || job.status === 'pending')
    return [log, { label: 'Cancel job', operation: 'cancel_job', input, style: 'danger' }];
  if (job.status === 'manual') return [{ label: 'Play', operation: 'play_job', input, style: 'primary' }];
  return [log];
}

/** A job row's one step (Retry, Cancel, Play): its log is a row's click away with job get. */
function jobRowActions(job: Record<string, unknown>, input: { id: string | number }): FollowUp[] {
  return jobActions(input.id, job)
    .filter((a) => a.operation !== 'get_job_log')
    .map((a) => ({ ...a, label: `${a.label} ${show(job.name)}` }));
}

function presentJob(data: unknown, input: { id: string | number }): Presentation {
  const job = asRecord(data);
  const commit = asRecord(job.commit);
  return {
    title: `Job #${show(job.id)} ${show(job.name)}: ${show(job.status)}`,
    fields: [
      ['stage', show(job.stage)],
      ['pipeline', `#${show(asRecord(job.pipeline).id)}`],
      ['ref', show(job.ref)],
      ['commit', `${shortSha(commit.id)} ${show(commit.title)}`],
      ...(job.failure_reason ? [['failure', show(job.failure_reason)] as [string, string]] : []),
      ['duration', job.duration === null || job.duration === undefined ? '—' : `${Math.round(Number(job.duration))}s`],
    ],
    actions: jobActions(input.id, job),
  };
}

const jobRow = (job: Record<string, unknown>): [string, string] => [
  `#${show(job.id)} ${show(job.name)}`,
  `${show(job.status)} · ${show(job.stage)}${job.failure_reason ? ` · ${show(job.failure_reason)}` : ''}`,
];

/** The whole log's lines as read (after the tail cut), the shown view, and where the failure is. */
export interface JobLogResult {
  job_id: number;
  /** The log, fenced as untrusted text: the job's commands wrote it. */
  log: string;
  /** Lines of the log read (the tail of a longer log, when `cut`). */
  lines_read: number;
  /** The first line shown, counted in the lines read. */
  shown_from: number;
  /** Whether the beginning of the log was left out (a longer log than asked for, or than LOG_TAIL_BYTES). */
  cut: boolean;
  sections: Array<{ name: string; lines: number; seconds?: number; collapsed: boolean }>;
  failing_section?: string;
  /** A few lines around the first error, fenced like the log. */
  failure_excerpt?: string;
  /** What reading the log left out to stay within its budget (the oldest part), in words. */
  not_read?: string[];
}

/**
 * Reads the log's end only (Range, or a stream of which the tail is kept), then cleans and cuts it. The first
 * line of a tail is a fragment and is dropped.
 */
async function readLog(
  ctx: RunContext,
  input: { id: string | number; job_id: number; lines?: number; all?: boolean },
): Promise<OperationResult> {
  const response = await ctx.client.request<string>({
    method: 'GET',
    path: buildPath('/projects/:id/jobs/:job_id/trace', input),
    responseType: 'text',
    idempotent: true,
    tailBytes: LOG_TAIL_BYTES,
    token: ctx.token,
    signal: ctx.signal,
    deadline: ctx.deadline,
    onProgress: ctx.onProgress,
  });
  const dropped = response.droppedBytes ?? 0;
  let text = typeof response.data === 'string' ? response.data : '';
  if (dropped > 0) text = text.slice(text.indexOf('\n') + 1);
  const log = readJobLog(text);
  const view = viewJobLog(log, { lines: input.lines ?? DEFAULT_LOG_LINES, all: input.all });
  const excerpt = failingExcerpt(log);
  const label = `job ${input.job_id} log`;
  const result: JobLogResult = {
    job_id: input.job_id,
    log: fenceUntrusted(view.text, label),
    lines_read: view.total,
    shown_from: view.from,
    cut: view.cut || dropped > 0,
    sections: log.sections.map((s) => ({
      name: s.name,
      lines: s.to - s.from + 1,
      seconds: s.seconds,
      collapsed: s.collapsed,
    })),
    ...(log.failingSection ? { failing_section: log.failingSection } : {}),
    ...(excerpt
      ? { failure_excerpt: fenceUntrusted(excerpt.lines.join('\n'), `${label}, lines ${excerpt.from}–${excerpt.to}`) }
      : {}),
    ...(log.skipped.length > 0 ? { not_read: log.skipped } : {}),
  };
  return { data: result, status: response.status };
}

function presentLog(data: unknown): Presentation {
  const log = data as JobLogResult;
  const where = log.failing_section ? ` · failed in ${log.failing_section}` : '';
  const shown = log.lines_read - log.shown_from + 1;
  return {
    title: `Log of job #${log.job_id}${where}`,
    fields: [
      [
        'lines',
        log.cut ? `the last ${shown}; the log is longer (lines=N or all=true for more)` : String(log.lines_read),
      ],
      ...(log.not_read?.length ? [['not read', log.not_read.join('; ')] as [string, string]] : []),
    ],
    sections: [
      ...(log.failure_excerpt ? [{ title: 'Where it failed', text: unfenceLog(log.failure_excerpt), code: true }] : []),
      { title: log.cut ? 'Tail' : 'Log', text: unfenceLog(log.log), code: true, tail: true },
    ],
  };
}

const jobsOperations = [
  defineOperation({
    name: 'list_pipeline_jobs',
    chat: 'job list',
    area: 'jobs',
    outsideSpec: 'Jobs API: List pipeline jobs',
    title: 'List pipeline jobs',
    description: "List a pipeline's jobs: name, stage, status, failure reason; scope filters by status.",
    route: 'GET /projects/:id/pipelines/:pipeline_id/jobs',
    input: z.object({
      id: fields.projectId(),
      pipeline_id: z.number().int().positive(),
      scope: scope(),
      include_retried: z.boolean().optional().describe('Also the jobs a retry replaced.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('job', jobRow),
    rowActions: jobRowActions,
    examples: [
      {
        input: { id: 'acme/web', pipeline_id: demoLookup('/projects/:id/pipelines', { query: { status: 'failed' } }) },
      },
    ],
  }),
  defineOperation({
    name: 'list_project_jobs',
    chat: 'job list-all',
    area: 'jobs',
    outsideSpec: 'Jobs API: List project jobs',
    title: 'List project jobs',
    description: "List a project's jobs across pipelines, newest first; scope filters by status.",
    route: 'GET /projects/:id/jobs',
    input: z.object({ id: fields.projectId(), scope: scope() }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('job', jobRow),
    rowActions: jobRowActions,
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'get_job',
    chat: 'job get',
    area: 'jobs',
    outsideSpec: 'Jobs API: Get a single job',
    title: 'Get job',
    description: 'Read one job: status, stage, pipeline, commit, failure reason, duration.',
    route: 'GET /projects/:id/jobs/:job_id',
    input: jobInput,
    effect: 'read',
    present: presentJob,
    examples: [
      { input: { id: 'acme/web', job_id: demoLookup('/projects/:id/jobs', { query: { 'scope[]': 'failed' } }) } },
    ],
  }),
  defineOperation({
    name: 'get_job_log',
    chat: 'job log',
    area: 'jobs',
    outsideSpec: 'Jobs API: Get a log file',
    title: 'Get job log',
    description:
      "Read a job's log: the last 200 lines by default, colours and runner sections made readable, the failing part located, tokens redacted.",
    route: 'GET /projects/:id/jobs/:job_id/trace',
    input: jobInput.extend({
      lines: z.number().int().min(1).max(MAX_LOG_LINES).optional().describe('Lines from the end (default 200).'),
      all: z.boolean().optional().describe('The whole log (up to its last 2 MiB).'),
    }),
    effect: 'read',
    run: readLog,
    present: presentLog,
    examples: [
      { input: { id: 'acme/web', job_id: demoLookup('/projects/:id/jobs', { query: { 'scope[]': 'failed' } }) } },
    ],
  }),
  defineOperation({
    name: 'retry_job',
    chat: 'job retry',
    area: 'jobs',
    outsideSpec: 'Jobs API: Retry a job',
    title: 'Retry job',
    description: 'Run a failed or canceled job again, as a new job in the same pipeline.',
    route: 'POST /projects/:id/jobs/:job_id/retry',
    input: jobInput,
    effect: 'write',
    undo:
      'Starts a new job and replaces nothing (the old one stays in the pipeline); cancel_job stops it. What the job does (a deploy) is its own to undo. ' +
      "The service starts a retried manual job at once, so retrying one asks a human, as play_job does (and so does any retry where the job's answer does not say `when`).",
    facts: { what: 'whether the job is a manual one', read: (ctx, input) => readJob(ctx, input.id, input.job_id) },
    needsApproval: (_input, job) => manualRetry(job),
    present: presentJob,
    // Beyond the spec: jobs, branches, tags, merge requests and issues.
    // Judged by the job it retries (a manual one starts at once): unread, as here, it asks (test/unit/policy/effect-facts.test.ts).
    decisions: { runs: [], asks: [{ id: 'acme/web', job_id: 3 }] },
  }),
  defineOperation({
    name: 'cancel_job',
    chat: 'job cancel',
    area: 'jobs',
    outsideSpec: 'Jobs API: Cancel a job',
    title: 'Cancel job',
    description: 'Stop a pending or running job where it is.',
    route: 'POST /projects/:id/jobs/:job_id/cancel',
    input: jobInput,
    effect: 'write',
    undo: 'Cannot be resumed: the job stops where it is (a deploy may be left half done); retry_job runs it again from the start.',
    needsApproval: () =>
      'It stops the job where it is; a deploy may be left half done, and only a retry from the start runs it again.',
    present: presentJob,
    // A job stopped half-way cannot be resumed; a manual job is a gate someone set for a person.
    decisions: { runs: [], asks: [{ id: 'acme/web', job_id: 3 }] },
  }),
  defineOperation({
    name: 'play_job',
    chat: 'job play',
    area: 'jobs',
    outsideSpec: 'Jobs API: Run a job (play a manual job)',
    title: 'Play manual job',
    description: 'Start a manual job (often a deploy gate) as it is configured.',
    route: 'POST /projects/:id/jobs/:job_id/play',
    // job_variables_attributes is left out: its values are often credentials, which an approval request cannot show.
    input: jobInput,
    effect: 'write',
    undo: 'Starts what a person was meant to start on purpose (a manual job is a gate, often a deploy), so a human approves it; what it does is its own to undo.',
    needsApproval: () => 'It starts a manual job: a gate someone set so that a person decides, often a deploy.',
    present: presentJob,
    decisions: { runs: [], asks: [{ id: 'acme/web', job_id: 3 }] },
  }),
  defineOperation({
    name: 'erase_job',
    chat: 'job erase',
    area: 'jobs',
    outsideSpec: 'Jobs API: Erase a job',
    title: 'Erase job',
    description: "Delete a finished job's log and artifacts; the job itself stays.",
    route: 'POST /projects/:id/jobs/:job_id/erase',
    input: jobInput,
    effect: 'destructive',
    undo: "Cannot be undone: the job's log and artifacts are gone for good.",
    present: presentJob,
    decisions: { runs: [], asks: [{ id: 'acme/web', job_id: 3 }] },
  }),
];

export const area = defineArea({
  name: 'jobs',
  operations: jobsOperations,
  // Beyond the spec: what python-gitlab and gitbeaker (test/interop/) do not drive yet; each drives all of it today.
  interop: { notYetDriven: { pythonGitlab: [], gitbeaker: [] } },
});
