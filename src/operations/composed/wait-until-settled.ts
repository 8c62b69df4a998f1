// wait_until_settled: one call that waits for a branch or a merge request to settle and says what it became — a
// branch's latest pipeline ends; a merge request's head pipeline ends, and one set to merge when it passes is merged
// and its target branch's pipeline for the merge ends too. Reads only, each check a few of them, paced by waitUntil
// (bounded, backing off, cancellable, each check told as progress); on its time limit it answers where things stand.
import { z } from 'zod';
import { defineOperation, fields, demoLookup } from '../engine/define.js';
import type { FollowUp, Operation, Presentation, RunContext } from '../engine/define.js';
import { executeOperation } from '../engine/execute.js';
import { asList, asRecord, shortSha, show, type Fields } from '../engine/present.js';
import { waitUntil } from '../engine/wait.js';
import { momentText } from '../engine/present.js';

export const WAIT_UNTIL_SETTLED_OPERATION = 'wait_until_settled';

/** How long a wait lasts when the caller does not say, in seconds (a blocking MCP call ends sooner, at its deadline). */
const DEFAULT_SETTLE_WAIT_SECONDS = 600;
/** The longest wait a caller may ask for, in seconds. */
const MAX_SETTLE_WAIT_SECONDS = 1800;
/** Jobs of one pipeline read per check: enough to count them and name the failed ones. */
const JOBS_READ = 100;

/** Where a pipeline's outcome is known, or (manual) it waits for a person and will not move on its own. */
const PIPELINE_ENDS: ReadonlySet<string> = new Set(['success', 'failed', 'canceled', 'skipped', 'manual']);
/** Jobs that ran to an end (a manual job waits for a person: not done). */
const JOB_ENDS: ReadonlySet<string> = new Set(['success', 'failed', 'canceled', 'skipped']);

export type SettleOutcome = 'success' | 'failed' | 'canceled' | 'skipped' | 'manual' | 'closed' | 'waiting';

interface PipelineState {
  id: number;
  status: string;
  ref: string;
  sha: string;
  web_url?: string;
  /** When it finished (ISO 8601), once it did. */
  finished_at?: string;
  jobs: {
    total: number;
    done: number;
    /** Failed jobs that were not allowed to fail. */
    failed: Array<{ id: number; name: string; stage: string }>;
    /** Manual jobs waiting for a person. */
    manual: string[];
  };
}

interface MergeRequestState {
  iid: number;
  state: string;
  source_branch: string;
  target_branch: string;
  merge_when_pipeline_succeeds: boolean;
  merged_at?: string;
  merge_commit_sha?: string;
  web_url?: string;
  /** The merge request's own (head) pipeline, while it is open. */
  pipeline?: { id: number; status: string };
}

/** What one check saw. */
export interface SettleState {
  /** Where it stands, in one sentence. */
  summary: string;
  outcome: SettleOutcome;
  settled: boolean;
  /** The branch whose pipeline the answer is about (a merged merge request's target branch). */
  ref?: string;
  pipeline?: PipelineState;
  merge_request?: MergeRequestState;
}

/** The answer: what the last check saw, and how the wait went. */
export interface SettleAnswer extends Omit<SettleState, 'settled'> {
  wait: { finished: boolean; checks: number; waited_seconds: number; timeout_seconds: number };
}

type Find = (name: string) => Operation;

/** One registry read's data, within the wait's call: nothing is asked once the call is cancelled. */
type Read = (name: string, input: Record<string, unknown>) => Promise<unknown>;

function reader(ctx: RunContext, find: Find): Read {
  // A check's own pages are not news to the caller; its retries are.
  const reads: RunContext = {
    ...ctx,
    onProgress: ctx.onProgress && ((event) => (event.kind === 'page' ? undefined : ctx.onProgress?.(event))),
  };
  return async (name, input) => {
    ctx.signal?.throwIfAborted();
    return (await executeOperation(find(name), input, reads)).data;
  };
}

function finder(operations: () => readonly Operation[]): Find {
  return (name) => {
    const found = operations().find((o) => o.name === name);
    if (!found) throw new Error(`${name} is not in the registry`);
    return found;
  };
}

const input = z.object({
  id: fields.projectId(),
  ref: z.string().min(1).optional().describe('Branch whose latest pipeline to wait for.'),
  merge_request_iid: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Or a merge request: its pipeline, then (merged) its target branch pipeline.'),
  pipeline_id: z.number().int().positive().optional().describe("Instead of the branch's or merge request's latest."),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_SETTLE_WAIT_SECONDS)
    .optional()
    .describe(`Default ${DEFAULT_SETTLE_WAIT_SECONDS}; a call also ends at its own deadline.`),
});

type Input = z.infer<typeof input>;

/** "job test", "jobs test, lint": names as people say them. */
function jobNames(names: readonly string[]): string {
  return `job${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
}

/** A time the service gave, as on-call reads it ("14:05 UTC"), or undefined. */
function at(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : momentText(time, Date.now());
}

/** One pipeline (from a list or a single read) with its jobs counted. */
async function pipelineState(read: Read, id: Input['id'], data: Fields): Promise<PipelineState> {
  const jobs = asList(await read('list_pipeline_jobs', { id, pipeline_id: data.id, per_page: JOBS_READ }));
  const status = show(data.status);
  const finished = PIPELINE_ENDS.has(status) ? (data.finished_at ?? data.updated_at) : undefined;
  return {
    id: Number(data.id),
    status,
    ref: show(data.ref),
    sha: show(data.sha),
    ...(typeof data.web_url === 'string' ? { web_url: data.web_url } : {}),
    ...(typeof finished === 'string' ? { finished_at: finished } : {}),
    jobs: {
      total: jobs.length,
      done: jobs.filter((j) => JOB_ENDS.has(String(j.status))).length,
      failed: jobs
        .filter((j) => j.status === 'failed' && j.allow_failure !== true)
        .map((j) => ({ id: Number(j.id), name: show(j.name), stage: show(j.stage) })),
      manual: jobs.filter((j) => j.status === 'manual').map((j) => show(j.name)),
    },
  };
}

/** The newest pipeline of `ref` (for `sha` when given), or undefined. */
async function latestPipeline(read: Read, id: Input['id'], ref: string, sha?: string): Promise<Fields | undefined> {
  const listed = await read('list_pipelines', {
    id,
    ref,
    ...(sha ? { sha } : {}),
    order_by: 'id',
    sort: 'desc',
    per_page: 1,
  });
  return asList(listed)[0];
}

async function readPipeline(read: Read, id: Input['id'], pipelineId: number): Promise<Fields> {
  return asRecord(await read('get_pipeline', { id, pipeline_id: pipelineId }));
}

/** A pipeline's state in words, e.g. "main is green: pipeline #25 passed at 14:05 UTC". */
function pipelineSentence(ref: string, p: PipelineState, of = ''): { text: string; outcome: SettleOutcome } {
  const when = at(p.finished_at);
  const failed = p.jobs.failed.map((j) => j.name);
  switch (p.status) {
    case 'success':
      return { text: `${ref} is green: pipeline #${p.id}${of} passed${when ? ` at ${when}` : ''}`, outcome: 'success' };
    case 'failed':
      return {
        text: `${ref} is red: pipeline #${p.id}${of} failed${failed.length > 0 ? ` at ${jobNames(failed)}` : ''}`,
        outcome: 'failed',
      };
    case 'canceled':
    case 'skipped':
      return { text: `${ref}: pipeline #${p.id}${of} was ${p.status}`, outcome: p.status };
    case 'manual':
      return {
        text: `${ref}: pipeline #${p.id}${of} waits for a person${p.jobs.manual.length > 0 ? ` at manual ${jobNames(p.jobs.manual)}` : ''}`,
        outcome: 'manual',
      };
    default:
      return {
        text: `${ref}: pipeline #${p.id}${of} ${p.status}: ${p.jobs.done} of ${p.jobs.total} jobs done`,
        outcome: 'waiting',
      };
  }
}

/** A branch: its pipeline (the one named, or the newest for its head commit). */
async function checkBranch(read: Read, target: Input & { ref: string }): Promise<SettleState> {
  const { id, ref } = target;
  let found: Fields | undefined;
  if (target.pipeline_id !== undefined) found = await readPipeline(read, id, target.pipeline_id);
  else {
    const branch = asRecord(await read('get_branch', { id, branch: ref }));
    const head = asRecord(branch.commit).id;
    found = await latestPipeline(read, id, ref, typeof head === 'string' ? head : undefined);
    if (!found) {
      return {
        summary: `${ref}: no pipeline for its head ${shortSha(head)} yet`,
        outcome: 'waiting',
        settled: false,
        ref,
      };
    }
  }
  const pipeline = await pipelineState(read, id, found);
  const { text, outcome } = pipelineSentence(ref, pipeline);
  return { summary: text, outcome, settled: PIPELINE_ENDS.has(pipeline.status), ref, pipeline };
}

/** A merge request: its head pipeline while open; once merged, its target branch's pipeline for the merge. */
async function checkMergeRequest(read: Read, target: Input & { merge_request_iid: number }): Promise<SettleState> {
  const { id, merge_request_iid: iid } = target;
  const mr = asRecord(await read('get_merge_request', { id, merge_request_iid: iid }));
  const name = `!${iid}`;
  const state: MergeRequestState = {
    iid,
    state: show(mr.state),
    source_branch: show(mr.source_branch),
    target_branch: show(mr.target_branch),
    merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds === true,
    ...(typeof mr.merged_at === 'string' ? { merged_at: mr.merged_at } : {}),
    ...(typeof mr.web_url === 'string' ? { web_url: mr.web_url } : {}),
  };
  if (state.state === 'merged') {
    // A merge commit, else the squash commit, else (fast-forward) the source's head is what the target now holds.
    const merged = [mr.merge_commit_sha, mr.squash_commit_sha, mr.sha].find((s) => typeof s === 'string' && s !== '');
    if (typeof merged === 'string') state.merge_commit_sha = merged;
    const ref = state.target_branch;
    const found = await latestPipeline(read, id, ref, state.merge_commit_sha);
    const mergedAt = at(state.merged_at);
    if (!found) {
      return {
        summary: `${name} was merged into ${ref}${mergedAt ? ` at ${mergedAt}` : ''}; no pipeline for the merge ${shortSha(merged)} on ${ref} yet`,
        outcome: 'waiting',
        settled: false,
        ref,
        merge_request: state,
      };
    }
    const pipeline = await pipelineState(read, id, found);
    const { text, outcome } = pipelineSentence(ref, pipeline, ` (the merge of ${name})`);
    return { summary: text, outcome, settled: PIPELINE_ENDS.has(pipeline.status), ref, pipeline, merge_request: state };
  }
  if (state.state !== 'opened' && state.state !== 'locked') {
    return {
      summary: `${name} was ${state.state} without being merged`,
      outcome: 'closed',
      settled: true,
      merge_request: state,
    };
  }
  const ref = state.source_branch;
  const head = asRecord(mr.head_pipeline);
  const found =
    target.pipeline_id !== undefined
      ? await readPipeline(read, id, target.pipeline_id)
      : typeof head.id === 'number'
        ? head
        : await latestPipeline(read, id, ref, typeof mr.sha === 'string' ? mr.sha : undefined);
  const auto = state.merge_when_pipeline_succeeds;
  if (!found) {
    return {
      summary: `${name} (open): no pipeline for its head ${shortSha(mr.sha)} yet`,
      outcome: 'waiting',
      settled: false,
      ref,
      merge_request: state,
    };
  }
  const pipeline = await pipelineState(read, id, found);
  state.pipeline = { id: pipeline.id, status: pipeline.status };
  const { text, outcome } = pipelineSentence(`${name}'s ${ref}`, pipeline);
  const into = state.target_branch;
  if (pipeline.status === 'success') {
    // Set to merge: the merge follows at once, so the wait goes on until it is seen.
    return auto
      ? {
          summary: `${text}; ${name} is being merged into ${into}`,
          outcome: 'waiting',
          settled: false,
          ref,
          pipeline,
          merge_request: state,
        }
      : {
          summary: `${text}; ${name} is open and not set to merge`,
          outcome,
          settled: true,
          ref,
          pipeline,
          merge_request: state,
        };
  }
  const setToMerge = auto ? `set to merge into ${into} when a pipeline passes` : 'not set to merge';
  const settled = PIPELINE_ENDS.has(pipeline.status);
  return {
    summary: settled ? `${text}; ${name} stays open, ${setToMerge}` : `${text}; ${name} is open, ${setToMerge}`,
    outcome,
    settled,
    ref,
    pipeline,
    merge_request: state,
  };
}

/** Next steps: a failed pipeline's retry and its first failed job's log; a running one's cancel is left to triage. */
function settleActions(input: { id: string | number }, answer: SettleAnswer): FollowUp[] {
  const { pipeline } = answer;
  if (!pipeline || !answer.wait.finished) return [];
  const actions: FollowUp[] = [];
  if (pipeline.status === 'failed' || pipeline.status === 'canceled')
    actions.push({
      label: `Retry pipeline #${pipeline.id}`,
      operation: 'retry_pipeline',
      input: { id: input.id, pipeline_id: pipeline.id },
      style: 'primary',
    });
  const failed = pipeline.jobs.failed[0];
  if (failed)
    actions.push({
      label: `Log of ${failed.name}`,
      operation: 'get_job_log',
      input: { id: input.id, job_id: failed.id },
    });
  return actions;
}

function presentSettle(data: unknown, input: { id: string | number }): Presentation {
  const answer = asRecord(data) as unknown as SettleAnswer;
  const fieldsShown: Array<[string, string]> = [];
  const { pipeline, merge_request: mr } = answer;
  if (mr)
    fieldsShown.push([
      'merge request',
      `!${mr.iid} ${mr.state}${mr.merge_when_pipeline_succeeds ? ' (set to merge when the pipeline passes)' : ''}`,
    ]);
  if (pipeline) {
    fieldsShown.push([
      'pipeline',
      `#${pipeline.id} ${pipeline.status} on ${pipeline.ref} at ${shortSha(pipeline.sha)}`,
    ]);
    fieldsShown.push(['jobs', `${pipeline.jobs.done} of ${pipeline.jobs.total} done`]);
  }
  const { finished, waited_seconds: waited, checks } = answer.wait ?? {};
  fieldsShown.push([
    'waited',
    `${show(waited)} s, ${show(checks)} check${checks === 1 ? '' : 's'}${finished === true ? '' : ' (not settled yet)'}`,
  ]);
  return { title: show(answer.summary), fields: fieldsShown, actions: settleActions(input, answer) };
}

export function waitUntilSettledOperation(operations: () => readonly Operation[]) {
  const find = finder(operations);
  return defineOperation({
    name: WAIT_UNTIL_SETTLED_OPERATION,
    chat: 'pipeline settle',
    area: 'pipelines',
    outsideSpec: 'composed of Pipelines, Jobs, Branches and Merge requests reads',
    title: 'Wait until settled',
    description:
      'Wait until a branch (ref) or merge request settles and say what it became: pipeline passed or failed; ' +
      'set to merge when the pipeline passes: merged, and its target branch pipeline ended. On its time limit it ' +
      'answers where things stand (wait.finished false).',
    route: 'GET /projects/:id/pipelines',
    composedOf: ['get_branch', 'list_pipelines', 'get_pipeline', 'list_pipeline_jobs', 'get_merge_request'],
    longRunning: true,
    input,
    rules: [
      { kind: 'one_of', keys: ['ref', 'merge_request_iid'] },
      { kind: 'at_most_one', keys: ['ref', 'merge_request_iid'] },
    ],
    effect: 'read',
    present: presentSettle,
    run: async (ctx, target) => {
      const read = reader(ctx, find);
      const timeoutSeconds = target.timeout_seconds ?? DEFAULT_SETTLE_WAIT_SECONDS;
      const check = (): Promise<SettleState> =>
        target.merge_request_iid !== undefined
          ? checkMergeRequest(read, { ...target, merge_request_iid: target.merge_request_iid })
          : checkBranch(read, { ...target, ref: target.ref ?? '' });
      const outcome = await waitUntil(ctx, {
        check,
        finished: (state) => state.settled,
        describe: (state) => state.summary,
        timeoutMs: timeoutSeconds * 1000,
      });
      const { settled: _settled, summary, ...seen } = outcome.value;
      const waited = Math.round(outcome.waitedMs / 1000);
      const answer: SettleAnswer = {
        summary: outcome.finished ? summary : `Not settled yet (waited ${waited} s): ${summary}`,
        ...seen,
        wait: {
          finished: outcome.finished,
          checks: outcome.checks,
          waited_seconds: waited,
          timeout_seconds: timeoutSeconds,
        },
      };
      return { data: answer, status: 200 };
    },
    examples: [
      {
        input: {
          id: 'acme/web',
          ref: 'main',
          pipeline_id: demoLookup('/projects/:id/pipelines', { query: { status: 'failed', ref: 'main' } }),
        },
      },
    ],
  });
}
