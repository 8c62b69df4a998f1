// rollback_environment: a rollback as the service does it — the deploy job of an earlier successful deployment of the
// environment is retried (its newest run: the service retries a job once), which deploys that deployment's commit
// again (a new deployment that, once it succeeds, is the environment's last_deployment). Always confirmed, naming the
// environment, the commit it runs now and the one it will run; the confirmation pins both, and the call runs only
// while the environment still runs what was shown.
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { defineOperation, fields } from '../engine/define.js';
import type { Operation, OperationResult, Presentation, RunContext } from '../engine/define.js';
import { executeOperation } from '../engine/execute.js';
import { asList, asRecord, shortSha, show, type Fields } from '../engine/present.js';
import { deploymentApprovalActions } from '../areas/deployments.js';

const ROLLBACK_OPERATION = 'rollback_environment';
/** Deployments of the environment read to find the one to go back to: the newest first, pages of 100. */
const MAX_DEPLOYMENTS_READ = 500;

type Find = (name: string) => Operation;

interface RollbackInput {
  id: string | number;
  environment: string | number;
  to?: string | number;
  job_id?: number;
  current_deployment_id?: number;
}

/** What a rollback acts on, read before anything runs (and before the policy asks the human). */
export interface RollbackPlan {
  environment: { id: number; name: string };
  /** The environment's last successful deployment: what it runs now. */
  current: { id: number; sha: string; ref: string };
  /** The earlier successful deployment whose deploy job is retried. */
  target: {
    id: number;
    sha: string;
    ref: string;
    job_id: number;
    job_name: string;
    /** Set when job_id is a later run (a retry) of the deployment's own deploy job, which is this one. */
    first_job_id?: number;
  };
}

const refusal = (input: RollbackInput, why: string) =>
  new ApiError({
    kind: 'refused',
    method: 'POST',
    path: `/projects/${encodeURIComponent(String(input.id))}/environments`,
    serviceMessage: why,
  });

function finder(operations: () => readonly Operation[]): Find {
  return (name) => {
    const found = operations().find((o) => o.name === name);
    if (!found) throw new Error(`${name} is not in the registry`);
    return found;
  };
}

type Brief = RollbackPlan['current'];
const briefDeployment = (d: Fields): Brief => ({ id: Number(d.id), sha: show(d.sha), ref: show(d.ref) });

/** The environment by id or name, with its last_deployment. */
async function readEnvironment(ctx: RunContext, input: RollbackInput, find: Find): Promise<Fields> {
  let environmentId = typeof input.environment === 'number' ? input.environment : undefined;
  if (environmentId === undefined) {
    const named = asList(
      (await executeOperation(find('list_environments'), { id: input.id, name: String(input.environment) }, ctx)).data,
    );
    const found = named.find((e) => e.name === input.environment);
    if (!found)
      throw refusal(input, `no environment named ${show(input.environment)} in ${show(input.id)}; nothing was run`);
    environmentId = Number(found.id);
  }
  return asRecord(
    (await executeOperation(find('get_environment'), { id: input.id, environment_id: environmentId }, ctx)).data,
  );
}

/** The successful deployment to go back to: the one asked for (by id or commit), or the last of another commit. */
function chooseTarget(input: RollbackInput, name: string, current: Brief, successes: Fields[]): Fields {
  let target: Fields | undefined;
  if (input.to === undefined) {
    // The last successful deployment before the current one that ran another commit: going back to the same commit
    // would change nothing.
    target = successes.find((d) => Number(d.id) < current.id && d.sha !== current.sha);
    if (!target)
      throw refusal(
        input,
        `environment ${name} has no earlier successful deployment of another commit than ${shortSha(current.sha)}; nothing was run`,
      );
  } else if (typeof input.to === 'number') {
    target = successes.find((d) => Number(d.id) === input.to);
    if (!target)
      throw refusal(input, `deployment #${input.to} is not a successful deployment to ${name}; nothing was run`);
  } else {
    const sha = input.to.toLowerCase();
    // The newest successful deployment of that commit.
    target = successes.find((d) => show(d.sha).toLowerCase().startsWith(sha));
    if (!target)
      throw refusal(input, `no successful deployment of ${input.to} to ${name} to go back to; nothing was run`);
  }
  if (Number(target.id) === current.id)
    throw refusal(input, `deployment #${current.id} is what ${name} runs now; nothing was run`);
  return target;
}

/**
 * The newest run of the target's deploy job (the deployment of its last retry, else the target itself): the service
 * retries a job once, so after an earlier rollback to the same deployment it is that retry's job that runs again.
 * A run still under way (one waiting for its approval) is refused: approving it is the way forward, not another.
 */
function newestRun(input: RollbackInput, name: string, target: Fields, deployments: Fields[]): Fields {
  const job = asRecord(target.deployable);
  if (job.id === undefined) throw refusal(input, `deployment #${show(target.id)} has no deploy job to run again`);
  const pipelineId = asRecord(job.pipeline).id;
  const runs = deployments.filter((d) => {
    const run = asRecord(d.deployable);
    return run.name === job.name && pipelineId !== undefined && asRecord(run.pipeline).id === pipelineId;
  });
  const newest = runs.reduce(
    (a, b) => (Number(asRecord(b.deployable).id) > Number(asRecord(a.deployable).id) ? b : a),
    target,
  );
  if (['created', 'running', 'blocked'].includes(show(newest.status)))
    throw refusal(
      input,
      `deployment #${show(newest.id)} of ${shortSha(newest.sha)} to ${name} is already under way (${show(newest.status)})` +
        `${newest.status === 'blocked' ? ': approve or reject it (deployment approve)' : ''}; nothing was run`,
    );
  return newest;
}

/** The environment, what it runs now and the deployment to go back to: reads only. */
export async function readRollbackPlan(ctx: RunContext, input: RollbackInput, find: Find): Promise<RollbackPlan> {
  const environment = await readEnvironment(ctx, input, find);
  const name = show(environment.name);
  const last = asRecord(environment.last_deployment);
  if (last.id === undefined)
    throw refusal(input, `environment ${name} has no successful deployment to roll back from; nothing was run`);
  const current = briefDeployment(last);
  // Every status: the successful ones to go back to, and the retries of their jobs since.
  const deployments = asList(
    (
      await executeOperation(
        find('list_deployments'),
        {
          id: input.id,
          environment: name,
          order_by: 'id',
          sort: 'desc',
          all_pages: true,
          max_items: MAX_DEPLOYMENTS_READ,
          per_page: 100,
        },
        ctx,
      )
    ).data,
  );
  const target = chooseTarget(
    input,
    name,
    current,
    deployments.filter((d) => d.status === 'success'),
  );
  const run = asRecord(newestRun(input, name, target, deployments).deployable);
  const first = Number(asRecord(target.deployable).id);
  return {
    environment: { id: Number(environment.id), name },
    current,
    target: {
      ...briefDeployment(target),
      job_id: Number(run.id),
      job_name: show(run.name),
      ...(first !== Number(run.id) ? { first_job_id: first } : {}),
    },
  };
}

/** What the policy reads before asking: the plan, or why there is no rollback to ask about. */
type RollbackFacts = RollbackPlan | { refused: string };

async function readRollbackFacts(ctx: RunContext, input: RollbackInput, find: Find): Promise<RollbackFacts> {
  try {
    return await readRollbackPlan(ctx, input, find);
  } catch (error) {
    // The plan's own refusals are answers, not failed reads: said as they are, with nothing asked or sent.
    if (error instanceof ApiError && error.kind === 'refused') return { refused: error.serviceMessage };
    throw error;
  }
}

/** The sentence the human confirms: the environment, the commit it runs now and the one it will run. */
export function rollbackQuestion(plan: RollbackPlan): string {
  const { environment, current, target } = plan;
  return (
    `It rolls ${environment.name} back: it runs ${shortSha(current.sha)} (${current.ref}, deployment #${current.id}) now, ` +
    `and will run ${shortSha(target.sha)} (${target.ref}, deployment #${target.id}) again by retrying ` +
    (target.first_job_id === undefined
      ? `its deploy job ${target.job_name} (#${target.job_id}).`
      : `the newest run of its deploy job ${target.job_name} (#${target.job_id}, a retry of #${target.first_job_id}).`)
  );
}

/**
 * A deployment as the question named it, "1a2b3c4d (main, deployment #12)", so a refusal says what changed since;
 * "deployment #12" when it cannot be read.
 */
async function deploymentInWords(ctx: RunContext, input: RollbackInput, id: number, find: Find): Promise<string> {
  try {
    const read = asRecord(
      (await executeOperation(find('get_deployment'), { id: input.id, deployment_id: id }, ctx)).data,
    );
    return `${shortSha(read.sha)} (${show(read.ref)}, deployment #${id})`;
  } catch {
    return `deployment #${id}`;
  }
}

async function rollback(ctx: RunContext, input: RollbackInput, find: Find): Promise<OperationResult> {
  const plan = await readRollbackPlan(ctx, input, find);
  // The premise the human confirmed: the environment still runs what the confirmation showed. Another deployment
  // since (someone else's rollback, a new release) makes this rollback a different act: nothing runs.
  if (input.current_deployment_id !== undefined && plan.current.id !== input.current_deployment_id) {
    const shown = await deploymentInWords(ctx, input, input.current_deployment_id, find);
    throw refusal(
      input,
      `${plan.environment.name} no longer runs ${shown} as shown: it runs ${shortSha(plan.current.sha)} (${plan.current.ref}, deployment #${plan.current.id}) now; nothing was run`,
    );
  }
  if (input.job_id !== undefined && plan.target.job_id !== input.job_id)
    throw refusal(
      input,
      `deployment #${plan.target.id} is now run by job #${plan.target.job_id}, not job #${input.job_id} as shown; nothing was run`,
    );
  const retried = asRecord(
    (await executeOperation(find('retry_job'), { id: input.id, job_id: plan.target.job_id }, ctx)).data,
  );
  const deployment = await newDeployment(ctx, input, plan, Number(retried.id), find);
  return {
    status: 201,
    data: {
      environment: plan.environment,
      from: plan.current,
      to: { id: plan.target.id, sha: plan.target.sha, ref: plan.target.ref },
      job: {
        id: retried.id,
        name: retried.name,
        status: retried.status,
        ...(typeof retried.web_url === 'string' ? { web_url: retried.web_url } : {}),
      },
      ...(deployment ? { deployment } : {}),
      // A protected environment holds the new deployment until it is approved (approve_deployment).
      ...(retried.status === 'manual' ? { waiting_for_approval: true } : {}),
    },
  };
}

/**
 * The deployment the retried job makes, so the answer names what to approve next; undefined when it cannot be read
 * (the rollback has happened all the same: a failed read must not report it as not run).
 */
async function newDeployment(
  ctx: RunContext,
  input: RollbackInput,
  plan: RollbackPlan,
  jobId: number,
  find: Find,
): Promise<{ id: number; status: string } | undefined> {
  try {
    const recent = asList(
      (
        await executeOperation(
          find('list_deployments'),
          { id: input.id, environment: plan.environment.name, order_by: 'id', sort: 'desc', per_page: 20 },
          ctx,
        )
      ).data,
    );
    const made = recent.find((d) => Number(asRecord(d.deployable).id) === jobId);
    return made ? { id: Number(made.id), status: show(made.status) } : undefined;
  } catch {
    return undefined;
  }
}

/** What comes next: the new deployment waits for an approval (with Approve and Reject on it), or it deploys. */
function nextStep(d: Fields, projectId: string | number): Pick<Presentation, 'fields' | 'actions'> {
  const deployment = asRecord(d.deployment);
  if (!d.waiting_for_approval) return { fields: [], actions: [] };
  if (deployment.id === undefined)
    return { fields: [['next', 'the new deployment waits for approval (deployment approve)']], actions: [] };
  return {
    fields: [['next', `deployment #${show(deployment.id)} waits for approval by someone else (deployment approve)`]],
    actions: deploymentApprovalActions(projectId, deployment),
  };
}

function presentRollback(data: unknown, input: { id: string | number }): Presentation {
  const d = asRecord(data);
  const [from, to, job] = [asRecord(d.from), asRecord(d.to), asRecord(d.job)];
  const next = nextStep(d, input.id);
  return {
    title: `Rolling ${show(asRecord(d.environment).name)} back to ${shortSha(to.sha)}`,
    fields: [
      ['from', `${shortSha(from.sha)} (${show(from.ref)}), deployment #${show(from.id)}`],
      ['to', `${shortSha(to.sha)} (${show(to.ref)}), deployment #${show(to.id)}`],
      ['job', `#${show(job.id)} ${show(job.name)}: ${show(job.status)}`],
      ...(next.fields ?? []),
    ],
    actions: next.actions,
  };
}

/** rollback_environment, built with a late view of the registry (it runs the environment and deployment reads and retry_job). */
export function rollbackEnvironmentOperation(operations: () => readonly Operation[]) {
  return defineOperation({
    name: ROLLBACK_OPERATION,
    chat: 'environment rollback',
    chatValues: ['environment'],
    area: 'environments',
    outsideSpec:
      "composed of the Environments, Deployments and Jobs APIs (the vendor's rollback: retry an earlier deploy job)",
    title: 'Roll back environment',
    description:
      'Deploy an earlier commit to an environment again by retrying the deploy job of an earlier successful deployment (default: the last one before the current of another commit).',
    // The service has no rollback endpoint (its rollback is a retry of the earlier deploy job, found by the reads and
    // pinned as job_id): the route is the first request it sends, the environment by name; `steps` shows the rest.
    route: 'GET /projects/:id/environments',
    composedOf: ['list_environments', 'get_environment', 'list_deployments', 'get_deployment', 'retry_job'],
    input: z.object({
      id: fields.projectId(),
      environment: z.union([z.number().int().positive(), z.string().min(1)]).describe('Environment name or ID.'),
      to: z
        .union([
          z.number().int().positive(),
          z.string().regex(/^[0-9a-fA-F]{7,40}$/, 'a commit SHA: 7 to 40 hex digits'),
        ])
        .optional()
        .describe('Deployment ID or commit SHA to go back to.'),
      job_id: z.number().int().positive().optional().describe('Set from the confirmation: the deploy job it retries.'),
      current_deployment_id: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Set from the confirmation: runs only while this is still the current deployment.'),
    }),
    effect: 'write',
    undo: 'Deploys an older commit; the newer one stays in history and a rollback to it (or a new deployment) brings it back.',
    facts: {
      what: 'the environment, the commit it runs now and the deployment to go back to',
      read: (ctx, input) => readRollbackFacts(ctx, input, finder(operations)),
      // A rollback that cannot be (nothing to go back to, one already waiting) is refused before anyone is asked.
      refuse: (_input, facts: RollbackFacts) => ('refused' in facts ? facts.refused : undefined),
      // What runs is what was shown: the deployment to go back to, and the current one as the premise.
      pin: (_input, facts: RollbackFacts) =>
        'refused' in facts
          ? {}
          : {
              environment: facts.environment.id,
              to: facts.target.id,
              job_id: facts.target.job_id,
              current_deployment_id: facts.current.id,
            },
    },
    alwaysAsks: true,
    needsApproval: (input, facts?: RollbackFacts) =>
      facts && !('refused' in facts)
        ? rollbackQuestion(facts)
        : `It rolls environment ${show(input.environment)} back to ${input.to === undefined ? 'its previous successful deployment' : show(input.to)} by retrying an earlier deploy job.`,
    steps: (input) => [
      `check that ${show(input.environment)} still runs deployment #${show(input.current_deployment_id)}`,
      `retry the deploy job #${show(input.job_id)} of deployment #${show(input.to)}`,
    ],
    present: presentRollback,
    run: (ctx, input) => rollback(ctx, input, finder(operations)),
    // Deploys an older commit: always confirmed, naming what runs now and what will.
    decisions: { runs: [], asks: [{ id: 'acme/web', environment: 'production' }] },
  });
}
