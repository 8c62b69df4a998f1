// Pipelines area: list, read, create, retry, cancel and delete CI pipelines and read their variables.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import type { FollowUp, Operation, Presentation, RunContext } from '../engine/define.js';
import { buildPath } from '../../http/route.js';
import { serviceGet } from '../engine/effect-facts.js';
import { executeOperation } from '../engine/execute.js';
import { asList, asRecord, presentList, shortSha, show } from '../engine/present.js';
import { waitUntil } from '../engine/wait.js';

export const PIPELINE_STATUSES = ['running', 'pending', 'success', 'failed', 'canceled', 'skipped'] as const;

/**
 * Where waiting for a pipeline ends: its outcome is known, or (manual) it waits for a person and will not move on its
 * own. Any other status, one the service may add included, is still on its way.
 */
const FINISHED_PIPELINE_STATUSES: ReadonlySet<string> = new Set(['success', 'failed', 'canceled', 'skipped', 'manual']);

/** The longest wait_for_pipeline may be asked to wait, in seconds. */
const MAX_PIPELINE_WAIT_SECONDS = 3600;

const pipelineId = () => z.number().int().positive();

const pipelineInput = z.object({ id: fields.projectId(), pipeline_id: pipelineId() });

/** Seconds as people read them: 95 → "1m 35s". */
function formatDuration(value: unknown): string {
  const seconds = typeof value === 'string' ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return show(value);
  const whole = Math.round(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)}m ${whole % 60}s` : `${whole}s`;
}

/** The next steps that make sense for a pipeline in this status. */
function pipelineActions(projectId: unknown, pipeline: Record<string, unknown>): FollowUp[] {
  const input = { id: projectId, pipeline_id: pipeline.id };
  if (pipeline.status === 'failed' || pipeline.status === 'canceled') {
    return [{ label: 'Retry', operation: 'retry_pipeline', input, style: 'primary' }];
  }
  if (pipeline.status === 'running' || pipeline.status === 'pending') {
    // Not a bare "Cancel", which beside a question reads as "don't".
    return [{ label: 'Cancel pipeline', operation: 'cancel_pipeline', input, style: 'danger' }];
  }
  return [];
}

/** One pipeline (full form) for on-call eyes: status first, then what ran and how it went. */
function presentPipeline(data: unknown, input: { id: string | number }): Presentation {
  const pipeline = asRecord(data);
  return {
    title: `Pipeline #${show(pipeline.id)}: ${show(pipeline.status)}`,
    fields: [
      ['ref', show(pipeline.ref)],
      ['sha', shortSha(pipeline.sha)],
      ['duration', formatDuration(pipeline.duration)],
      ['coverage', show(pipeline.coverage)],
    ],
    actions: pipelineActions(input.id, pipeline),
  };
}

const getPipeline: Operation = defineOperation({
  name: 'get_pipeline',
  chat: 'pipeline get',
  area: 'pipelines',
  title: 'Get pipeline',
  description: 'Read one pipeline: status, ref, commit, user, times, duration (seconds) and coverage.',
  route: 'GET /projects/:id/pipelines/:pipeline_id',
  input: pipelineInput,
  effect: 'read',
  present: presentPipeline,
  examples: [
    { input: { id: 'acme/web', pipeline_id: demoLookup('/projects/:id/pipelines', { query: { status: 'failed' } }) } },
  ],
});

/** The wait's answer in chat: the pipeline as get_pipeline shows it, titled by whether it finished. */
function presentWait(data: unknown, input: { id: string | number }): Presentation {
  const { finished, waited_seconds: waited } = asRecord(asRecord(data).wait);
  const shown = presentPipeline(data, input);
  return finished === true ? shown : { ...shown, title: `${shown.title} (still not finished after ${show(waited)} s)` };
}

const waitForPipeline = defineOperation({
  name: 'wait_for_pipeline',
  chat: 'pipeline wait',
  area: 'pipelines',
  title: 'Wait for pipeline',
  description:
    'Wait until a pipeline finishes (or stops at manual) and return it as get_pipeline does; wait.finished is false if time ran out.',
  route: 'GET /projects/:id/pipelines/:pipeline_id',
  composedOf: ['get_pipeline'],
  longRunning: true,
  input: pipelineInput.extend({
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_PIPELINE_WAIT_SECONDS)
      .optional()
      .describe('Default: as long as the call may run.'),
  }),
  effect: 'read',
  present: presentWait,
  run: async (ctx, { timeout_seconds: timeoutSeconds, ...target }) => {
    const outcome = await waitUntil(ctx, {
      check: async () => asRecord((await executeOperation(getPipeline, target, ctx)).data),
      finished: (pipeline) => FINISHED_PIPELINE_STATUSES.has(String(pipeline.status)),
      describe: (pipeline) => `pipeline #${show(pipeline.id)} is ${show(pipeline.status)}`,
      timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
    });
    // The pipeline as get_pipeline gives it (so chat shows its status and link), and how the wait went.
    const wait = {
      finished: outcome.finished,
      waited_seconds: Math.round(outcome.waitedMs / 1000),
      checks: outcome.checks,
    };
    return { data: { ...outcome.value, wait }, status: 200 };
  },
  examples: [
    { input: { id: 'acme/web', pipeline_id: demoLookup('/projects/:id/pipelines', { query: { status: 'failed' } }) } },
  ],
});

/** A pipeline's current jobs (a retried job's old copy is left out). */
async function currentJobs(ctx: RunContext, input: { id: string | number; pipeline_id: number }) {
  return asList(
    await serviceGet(ctx, buildPath('/projects/:id/pipelines/:pipeline_id/jobs', input), { per_page: '100' }),
  );
}

/**
 * Which jobs a retry re-queued: the pipeline's jobs are read before and after it, and the re-queued ones are the
 * jobs that were not there before (the service runs a job again as a new job). Without the jobs from before, the
 * answer is the pipeline alone.
 */
const requeuedJobs = {
  before: currentJobs,
  async after(ctx: RunContext, input: { id: string | number; pipeline_id: number }, data: unknown, before: unknown) {
    // A pipeline is an object; anything else is passed on as the service gave it.
    if (!Array.isArray(before) || data === null || typeof data !== 'object' || Array.isArray(data)) return data;
    const known = new Set(asList(before).map((job) => job.id));
    const requeued = (await currentJobs(ctx, input))
      .filter((job) => !known.has(job.id))
      .map((job) => ({ id: job.id, name: job.name, stage: job.stage, status: job.status }));
    return { ...asRecord(data), requeued_jobs: requeued };
  },
};

/** The retry's answer: the pipeline as get_pipeline shows it, titled by the jobs it re-queued. */
function presentRetry(data: unknown, input: { id: string | number }): Presentation {
  const shown = presentPipeline(data, input);
  const requeued = asRecord(data).requeued_jobs;
  if (!Array.isArray(requeued)) return shown;
  const names = requeued.map((job) => show(asRecord(job).name));
  const title =
    names.length === 0
      ? `Retried pipeline #${show(asRecord(data).id)}: no job was re-queued`
      : `Retried pipeline #${show(asRecord(data).id)}: re-queued ${names.join(', ')} (${names.length} job${names.length === 1 ? '' : 's'})`;
  return { ...shown, title, fields: [['status', show(asRecord(data).status)], ...(shown.fields ?? [])] };
}

const pipelineRows = presentList('pipeline', (p) => [
  `#${show(p.id)}`,
  `${show(p.status)} · ${show(p.ref)} · ${shortSha(p.sha)}`,
]);

/**
 * The list, one line per pipeline. "running" means what the service says — not pending ones — while people asking
 * for running pipelines mostly mean both: the answer says so, with the filter that lists the pending ones. The
 * parameter itself stays as the service defines it (an MCP client or script gets what the REST API gives).
 */
function presentPipelines(data: unknown, input: { scope?: string; status?: string }): Presentation {
  const shown = pipelineRows(data);
  const key = input.scope === 'running' ? 'scope' : input.status === 'running' ? 'status' : undefined;
  if (key === undefined) return shown;
  return { ...shown, title: `${shown.title} running (pending ones are not included: ${key}=pending lists them)` };
}

const pipelinesOperations = [
  defineOperation({
    name: 'list_pipelines',
    chat: 'pipeline list',
    area: 'pipelines',
    title: 'List pipelines',
    description: "List a project's CI pipelines, newest first, filtered by status, ref, commit, user or time.",
    route: 'GET /projects/:id/pipelines',
    input: z.object({
      id: fields.projectId(),
      scope: z.enum(['running', 'pending', 'finished', 'branches', 'tags']).optional(),
      status: z.enum(PIPELINE_STATUSES).optional(),
      ref: z.string().min(1).optional().describe('Branch or tag.'),
      sha: z.string().min(1).optional(),
      yaml_errors: z.boolean().optional().describe('true: only invalid CI configurations.'),
      name: z.string().min(1).optional(),
      username: z.string().min(1).optional().describe('Who triggered it.'),
      updated_after: fields.dateTime().optional(),
      updated_before: fields.dateTime().optional(),
      order_by: z.enum(['id', 'status', 'ref', 'updated_at', 'user_id']).optional().describe('Default id.'),
      sort: z.enum(['asc', 'desc']).optional().describe('Default desc.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentPipelines,
    rowActions: (pipeline, input) =>
      pipelineActions(input.id, pipeline).map((a) => ({ ...a, label: `${a.label} #${show(pipeline.id)}` })),
    examples: [{ input: { id: 'acme/web' } }],
  }),
  getPipeline,
  defineOperation({
    name: 'list_pipeline_variables',
    chat: 'pipeline variables',
    area: 'pipelines',
    title: 'List pipeline variables',
    description: 'List the variables a pipeline was run with.',
    route: 'GET /projects/:id/pipelines/:pipeline_id/variables',
    input: pipelineInput,
    effect: 'read',
    examples: [
      {
        input: { id: 'acme/web', pipeline_id: demoLookup('/projects/:id/pipelines', { query: { status: 'failed' } }) },
      },
    ],
  }),
  defineOperation({
    name: 'create_pipeline',
    chat: 'pipeline create',
    area: 'pipelines',
    title: 'Run pipeline',
    description: 'Start a new CI pipeline for a branch or tag, optionally with variables.',
    route: 'POST /projects/:id/pipeline',
    input: z.object({
      id: fields.projectId(),
      ref: fields.ref('Branch or tag.'),
      variables: z
        .array(
          z.strictObject({
            key: z.string().min(1),
            value: z.string(),
            variable_type: z.enum(['env_var', 'file']).optional().describe('file: the job gets a file path.'),
          }),
        )
        .optional(),
    }),
    effect: 'write',
    undo: 'Starts a new pipeline, which cancel_pipeline stops; what its jobs do (a deploy) is theirs to undo.',
    present: presentPipeline,
    decisions: { runs: [{ id: 'acme/web', ref: 'main' }], asks: [] },
  }),
  defineOperation({
    name: 'retry_pipeline',
    chat: 'pipeline retry',
    area: 'pipelines',
    title: 'Retry pipeline',
    description:
      "Run a pipeline's failed or canceled jobs again, e.g. after a flaky failure; requeued_jobs names the jobs it re-queued.",
    route: 'POST /projects/:id/pipelines/:pipeline_id/retry',
    input: pipelineInput,
    effect: 'write',
    undo:
      'Runs the failed and canceled jobs again (a deploy job deploys again); cancel_pipeline stops them. ' +
      'A manual job among them comes back waiting for a person (the service clones it without starting it), so no gate opens. ' +
      "No approval: it is the on-call's first move and changes no data.",
    present: presentRetry,
    answerReads: requeuedJobs,
    // The on-call's Retry button: it changes no data.
    decisions: { runs: [{ id: 'acme/web', pipeline_id: 1 }], asks: [] },
  }),
  defineOperation({
    name: 'cancel_pipeline',
    chat: 'pipeline cancel',
    area: 'pipelines',
    title: 'Cancel pipeline',
    description: "Cancel a pipeline's running and pending jobs.",
    route: 'POST /projects/:id/pipelines/:pipeline_id/cancel',
    input: pipelineInput,
    effect: 'write',
    undo:
      'Cannot be resumed: running jobs stop where they are (a deploy may be left half done); retry_pipeline ' +
      'runs them again from the start.',
    // It stops work mid-way, whatever the pipeline's status: always worth a human's yes.
    needsApproval: () =>
      'Running jobs stop where they are and cannot be resumed (a deploy may be left half done); ' +
      'retry_pipeline runs them again from the start.',
    present: presentPipeline,
    // Stops running jobs mid-way; they cannot be resumed.
    decisions: { runs: [], asks: [{ id: 'acme/web', pipeline_id: 1 }] },
  }),
  defineOperation({
    name: 'delete_pipeline',
    chat: 'pipeline delete',
    area: 'pipelines',
    title: 'Delete pipeline',
    description: 'Delete a pipeline and its jobs for good.',
    route: 'DELETE /projects/:id/pipelines/:pipeline_id',
    input: pipelineInput,
    effect: 'destructive',
    undo: 'Cannot be undone: the pipeline, its jobs and their logs are gone for good.',
    decisions: { runs: [], asks: [{ id: 'acme/web', pipeline_id: 1 }] },
  }),
  waitForPipeline,
];

export const area = defineArea({ name: 'pipelines', operations: pipelinesOperations });
