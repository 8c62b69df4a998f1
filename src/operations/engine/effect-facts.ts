// Effect facts (EffectFacts in define.ts): what a call's effect depends on beyond its input, read from the service
// before the policy decides, and the reads several operations' facts share. Reads only; a failure becomes words.
import { buildPath } from '../../http/route.js';
import type { Operation, RunContext } from './define.js';
import { asList, asRecord } from './present.js';

/** The facts of one call as the policy gets them: read, or why not (then it asks a human, saying so). */
export type FactsReading = { read: true; facts: unknown } | { read: false; why: string };

/** For a path that asks the service nothing (a check before the lookups, an approved call): judged as unread. */
export const NOT_READ_HERE: FactsReading = { read: false, why: 'was not read on this path' };

/** Whether `op` must read the service's facts before deciding on this input. */
export function factsNeeded(op: Operation, input: Record<string, unknown>): boolean {
  return op.facts !== undefined && (op.facts.needed?.(input) ?? true);
}

/** The facts this call's decision needs, read now; undefined when it needs none. Never throws. */
export async function readFacts(
  op: Operation,
  input: Record<string, unknown>,
  ctx: RunContext,
): Promise<FactsReading | undefined> {
  if (!factsNeeded(op, input)) return undefined;
  try {
    return { read: true, facts: await op.facts!.read(ctx, input) };
  } catch (error) {
    return { read: false, why: `could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** One GET as the lookups make it: idempotent, with the call's token, signal and deadline. */
export async function serviceGet(ctx: RunContext, path: string, query?: Record<string, string>): Promise<unknown> {
  const res = await ctx.client.request({
    method: 'GET',
    path,
    query,
    idempotent: true,
    token: ctx.token,
    signal: ctx.signal,
    deadline: ctx.deadline,
  });
  return res.data;
}

/** Most items a fact reads from a list; beyond that the facts count as unread (and a human is asked). */
const MAX_FACT_ITEMS = 1000;

/** Every item of a list (pages of 100), or a failure when it is longer than MAX_FACT_ITEMS. */
export async function serviceList(
  ctx: RunContext,
  path: string,
  query: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const res = await ctx.client.request({
      method: 'GET',
      path,
      query: { ...query, per_page: '100', page: String(page) },
      idempotent: true,
      token: ctx.token,
      signal: ctx.signal,
      deadline: ctx.deadline,
    });
    const list = asList(res.data);
    items.push(...list);
    if (items.length > MAX_FACT_ITEMS) throw new Error(`more than ${MAX_FACT_ITEMS} items in ${path}`);
    const next = res.headers['x-next-page'];
    if (list.length === 0 || !next || Number(next) <= page) return items;
  }
}

/** A job as an approval request names it, and whether a person starts it. */
export interface JobFacts {
  id: number;
  name: string;
  stage: string;
  status: string;
  /** `when` where the service says it ('manual', 'on_success', …); undefined where its answer does not. */
  when?: string;
  pipeline_id?: number;
  ref?: string;
}

function jobFacts(data: unknown): JobFacts {
  const job = asRecord(data);
  const pipeline = asRecord(job.pipeline);
  if (typeof job.id !== 'number' || typeof job.name !== 'string')
    throw new Error('the service did not describe the job');
  return {
    id: job.id,
    name: job.name,
    stage: typeof job.stage === 'string' ? job.stage : '',
    status: typeof job.status === 'string' ? job.status : 'unknown',
    ...(typeof job.when === 'string' ? { when: job.when } : {}),
    ...(typeof pipeline.id === 'number' ? { pipeline_id: pipeline.id } : {}),
    ...(typeof job.ref === 'string' ? { ref: job.ref } : typeof pipeline.ref === 'string' ? { ref: pipeline.ref } : {}),
  };
}

/** One job of a project, read. */
export async function readJob(ctx: RunContext, project: unknown, jobId: unknown): Promise<JobFacts> {
  return jobFacts(await serviceGet(ctx, buildPath('/projects/:id/jobs/:job_id', { id: project, job_id: jobId })));
}

/** A pipeline as an approval request names it. */
export interface PipelineFacts {
  id: number;
  ref?: string;
  status: string;
  sha?: string;
}

export async function readPipeline(ctx: RunContext, project: unknown, pipelineId: unknown): Promise<PipelineFacts> {
  const pipeline = asRecord(
    await serviceGet(ctx, buildPath('/projects/:id/pipelines/:pipeline_id', { id: project, pipeline_id: pipelineId })),
  );
  if (typeof pipeline.id !== 'number') throw new Error('the service did not describe the pipeline');
  return {
    id: pipeline.id,
    status: typeof pipeline.status === 'string' ? pipeline.status : 'unknown',
    ...(typeof pipeline.ref === 'string' ? { ref: pipeline.ref } : {}),
    ...(typeof pipeline.sha === 'string' ? { sha: pipeline.sha } : {}),
  };
}
