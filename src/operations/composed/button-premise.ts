// The premise of an incident button, checked when it is pressed: a message (or a view) kept for days still offers what
// was true when it was drawn. Given a button's kind and what it assumed — project, branch, pipeline, commit — this
// reads the service as the presser and answers "still holds" or "changed: <words>", so a stale Retry reruns nothing.
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { defineOperation, fields, type Operation, type OperationResult, type RunContext } from '../engine/define.js';
import { executeOperation } from '../engine/execute.js';
import { asList, asRecord, shortSha, show, type Fields } from '../engine/present.js';
import { PREMISE_OPERATION, type PremiseResult } from './premise-call.js';
import type { PremiseFacts } from './premise-facts.js';
import { revertBranchName } from './revert-as-merge-request.js';
import { saysItReverts as reverts } from './open-reverts.js';

export { PREMISE_OPERATION, premiseUnread } from './premise-call.js';

/** What a button does: its premise says which facts it stands on. */
export type ButtonKind =
  | 'retry'
  | 'revert'
  | 'incident'
  | 'log'
  | 'mute'
  | 'merge'
  | 'rollback'
  /** Approve or Reject of a deployment message: stands while the deployment still waits for approval. */
  | 'deployment'
  /** Retry of a failed deployment's job: stands while no newer deployment to its environment came. */
  | 'deploy-retry';

/** What a button assumed when it was drawn. */
export interface ButtonPremise extends PremiseFacts {
  kind: ButtonKind;
  project: string;
}

export type PremiseAnswer = { holds: true; note?: string } | { holds: false; changed: string };

/** What "nothing was …" says for each kind. */
const NOTHING: Record<ButtonKind, string> = {
  retry: 'nothing was retried',
  revert: 'nothing was reverted',
  incident: 'no incident issue was opened',
  log: '',
  mute: 'nothing was muted',
  merge: 'nothing was run',
  rollback: 'nothing was rolled back',
  deployment: 'nothing was sent',
  'deploy-retry': 'nothing was retried',
};

const FINISHED = new Set(['success', 'failed']);

/** Deployments to an environment read to find one that came after a button's. */
const NEWER_DEPLOYMENTS_READ = 20;

/** The shortest sha git abbreviates to, and the start of one a message may name. */
const MIN_SHA = 7;

/** A 404 about the commit, not the project: the project unreadable is the presser's failure, said as such. */
function commitUnknown(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404 && /commit/i.test(error.serviceMessage);
}

function hhmm(iso: unknown): string {
  return typeof iso === 'string' && iso.length >= 16 ? `${iso.slice(11, 16)} UTC` : 'recently';
}

export class PremiseCheck {
  constructor(private readonly operations: () => readonly Operation[]) {}

  /** Whether the button's premise still holds, read as the presser (ctx carries their token). */
  async check(premise: ButtonPremise, ctx: RunContext): Promise<PremiseAnswer> {
    const { project, ref, kind } = premise;
    // A rollback stands on the environment, not the branch (green again, the culprit may still run there): while no
    // deployment came after the one it was drawn on (deployment_id). The call's confirmation pins what it reads then,
    // so a rollback pressed again after one ran would otherwise be confirmed as a new one.
    if (kind === 'rollback')
      return premise.deployment_id === undefined
        ? { holds: true }
        : this.deploymentPremise(premise, premise.deployment_id, ctx);
    // A deployment's buttons stand on the deployment, not the branch: approving one needs no green pipeline.
    if ((kind === 'deployment' || kind === 'deploy-retry') && premise.deployment_id !== undefined)
      return this.deploymentPremise(premise, premise.deployment_id, ctx);
    const listed = await this.read('list_pipelines', { id: project, ref, per_page: 20 }, ctx);
    const pipelines = asList(listed);
    const latest = pipelines[0];
    const finished = pipelines.find((p) => FINISHED.has(String(p.status)));
    const nothing = NOTHING[kind];
    // Green again: the newest pipeline passed, or one newer than the red the button was drawn for. An older green one
    // under a retry still running is no end of the red.
    const greenAgain =
      finished?.status === 'success' &&
      (finished === latest || (premise.pipeline_id !== undefined && Number(finished.id) > premise.pipeline_id));
    if (finished && greenAgain) {
      const changed = `${ref} is green again since ${hhmm(finished.updated_at ?? finished.created_at)} (#${show(finished.id)})`;
      // A read still shows what it showed; it says the red it belongs to is over.
      if (kind === 'log') return { holds: true, note: `${changed}; this log is of an earlier pipeline.` };
      return { holds: false, changed: `${changed}; ${nothing}.` };
    }
    // A Mute stands on the red pipeline too: once a newer one runs, the message it mutes is of an older red.
    if (premise.pipeline_id !== undefined && (kind === 'retry' || kind === 'log' || kind === 'mute')) {
      const shown = premise.pipeline_id;
      let changed: string | undefined;
      if (latest && Number(latest.id) !== shown)
        changed = `pipeline #${shown} is no longer ${ref}'s latest (#${show(latest.id)} is ${show(latest.status)})`;
      else if (latest && latest.status !== 'failed') changed = `pipeline #${shown} is ${show(latest.status)} now`;
      if (changed)
        return kind === 'log'
          ? { holds: true, note: `${changed}.` }
          : { holds: false, changed: `${changed}; ${nothing}.` };
    }
    if (kind === 'revert' && premise.sha) return this.revertPremise(premise, premise.sha, ctx);
    if (kind === 'merge' && premise.merge_request_iid !== undefined)
      return this.mergePremise(premise, premise.merge_request_iid, ctx);
    return { holds: true };
  }

  /**
   * Approve or Reject stands while the deployment still waits for approval (someone else may have decided meanwhile,
   * or the watch's message is older than a cancel); a Retry of a failed deploy while no newer deployment to its
   * environment came (a retry already made, a new release): retrying the old one would deploy an older commit.
   */
  private async deploymentPremise(premise: ButtonPremise, id: number, ctx: RunContext): Promise<PremiseAnswer> {
    const nothing = NOTHING[premise.kind];
    const deployment = asRecord(await this.read('get_deployment', { id: premise.project, deployment_id: id }, ctx));
    if (premise.kind === 'deployment') {
      if (deployment.status === 'blocked') return { holds: true };
      const decided = asList(deployment.approvals).at(-1);
      const by = decided ? `, ${show(decided.status)} by ${show(asRecord(decided.user).username)}` : '';
      return {
        holds: false,
        changed: `deployment #${id} no longer waits for approval: it is ${show(deployment.status)} now${by}; ${nothing}.`,
      };
    }
    const environment = premise.environment ?? show(asRecord(deployment.environment).name);
    const newer = asList(
      await this.read(
        'list_deployments',
        { id: premise.project, environment, order_by: 'id', sort: 'desc', per_page: NEWER_DEPLOYMENTS_READ },
        ctx,
      ),
    ).filter((d) => Number(d.id) > id);
    // For a rollback, a manual deploy job never played (or one canceled) left a deployment that deployed nothing: what
    // runs there is unchanged, so the rollback still stands.
    const newest = newer.find(
      (d) => premise.kind !== 'rollback' || !['created', 'skipped', 'canceled'].includes(String(d.status)),
    );
    if (newest)
      return {
        holds: false,
        changed: `deployment #${show(newest.id)} to ${environment} came after #${id} (it is ${show(newest.status)}); ${nothing}.`,
      };
    return { holds: true };
  }

  /**
   * A merge of an open revert stands while the merge request is still open, its head the one the button was drawn on,
   * and nobody set it to merge when its pipeline passes yet. A retry of its pipeline (pipeline_id) stands while it is
   * open and that pipeline is still its latest and failed.
   */
  private async mergePremise(premise: ButtonPremise, iid: number, ctx: RunContext): Promise<PremiseAnswer> {
    const mr = asRecord(await this.read('get_merge_request', { id: premise.project, merge_request_iid: iid }, ctx));
    const changed = (words: string): PremiseAnswer => ({ holds: false, changed: `${words}; ${NOTHING.merge}.` });
    if (mr.state !== 'opened') return changed(`merge request !${iid} is ${show(mr.state)} now`);
    if (premise.pipeline_id !== undefined) {
      const latest = asRecord(mr.head_pipeline ?? mr.pipeline);
      if (latest.id !== undefined && Number(latest.id) !== premise.pipeline_id)
        return changed(
          `pipeline #${premise.pipeline_id} is no longer !${iid}'s latest (#${show(latest.id)} is ${show(latest.status)})`,
        );
      if (latest.status !== 'failed' && latest.status !== 'canceled')
        return changed(`!${iid}'s pipeline #${premise.pipeline_id} is ${show(latest.status ?? 'gone')} now`);
      return { holds: true };
    }
    if (premise.sha && typeof mr.sha === 'string' && !mr.sha.startsWith(premise.sha))
      return changed(`merge request !${iid}'s head moved to ${shortSha(mr.sha)} since this button was drawn`);
    if (mr.merge_when_pipeline_succeeds === true) {
      const by = asRecord(mr.merge_user).username;
      return changed(
        `merge request !${iid} is set to merge when its pipeline passes already${typeof by === 'string' ? ` (by ${by})` : ''}`,
      );
    }
    return { holds: true };
  }

  /**
   * A revert stands while the commit is still on the branch (a force push may have dropped it) and nothing reverted it
   * yet: no commit on the branch since it says "This reverts commit <sha>", and no merge request into the branch, open
   * or merged, reverts it — forgeops's own from revert-<sha8>, or one made elsewhere (the service's Revert button
   * writes that same sentence into its description).
   */
  private async revertPremise(premise: ButtonPremise, sha: string, ctx: RunContext): Promise<PremiseAnswer> {
    const { project, ref } = premise;
    const short = shortSha(sha);
    const changed = (words: string): PremiseAnswer => ({ holds: false, changed: `${words}; ${NOTHING.revert}.` });
    const branch = revertBranchName(sha);
    // Read side by side: the answer waits for the slowest read, not for their sum.
    const [onBranch, ours, mentioning, since] = await Promise.all([
      this.onBranch(premise, sha, ctx),
      this.read('list_project_merge_requests', { id: project, source_branch: branch, state: 'all', per_page: 20 }, ctx),
      // The service's search matches any part of the title or description: the shortest sha a message names finds
      // both the full one the Revert button writes and an abbreviated one typed by hand.
      this.read(
        'list_project_merge_requests',
        { id: project, search: sha.slice(0, MIN_SHA), target_branch: ref, state: 'all', per_page: 20 },
        ctx,
      ),
      // Newest first, so a revert made long ago may lie beyond the pages read; revert_as_merge_request would then find
      // its own revert empty and make nothing.
      this.read('list_commits', { id: project, ref_name: `${sha}..${ref}`, per_page: 100, all_pages: true }, ctx).catch(
        (error: unknown) => {
          if (commitUnknown(error)) return [];
          throw error;
        },
      ),
    ]);
    if (!onBranch) return changed(`${short} is no longer on ${ref} (history was rewritten)`);
    const commits = asList(since);
    const reverting = commits.filter((c) => reverts(c.message, sha));
    // A revert reverted in turn brought the commit back: it no longer counts, nor do the merge requests that made it.
    const standing = reverting.find((r) => !commits.some((c) => reverts(c.message, String(r.id))));
    const ourRequests = asList(ours).filter((mr) => mr.source_branch === branch);
    const elsewhere = asList(mentioning).filter(
      (mr) => mr.source_branch !== branch && mr.target_branch === ref && reverts(mr.description, sha),
    );
    const by = (mr: Fields) => {
      const author = asRecord(mr.author).username;
      return typeof author === 'string' ? ` (opened by ${author})` : '';
    };
    // A merged one is named before its commit (who did it, and where it was discussed); squashed, or its message
    // reworded, the merge request alone says it.
    const merged = [...ourRequests, ...elsewhere].find((mr) => mr.state === 'merged' && mr.target_branch === ref);
    if (merged && (standing || reverting.length === 0))
      return changed(`${short} was reverted already by !${show(merged.iid)}${by(merged)}`);
    if (standing) return changed(`${short} was reverted already by commit ${shortSha(standing.id)} on ${ref}`);
    const open = ourRequests.find((mr) => mr.state === 'opened');
    if (open) return changed(`merge request !${show(open.iid)} reverting ${short} is open already`);
    const openElsewhere = elsewhere.find((mr) => mr.state === 'opened');
    if (openElsewhere)
      return changed(
        `merge request !${show(openElsewhere.iid)} reverting ${short} is open already${by(openElsewhere)}`,
      );
    return { holds: true };
  }

  /**
   * Whether the commit is still on the branch: the commits it has that the branch has not (`<branch>..<sha>`) are none
   * while it is one of the branch's, and a force push that dropped it leaves at least itself there. One short page, and
   * no list of branches that could be cut short before naming this one.
   */
  private async onBranch(premise: ButtonPremise, sha: string, ctx: RunContext): Promise<boolean> {
    try {
      const ahead = await this.read(
        'list_commits',
        { id: premise.project, ref_name: `${premise.ref}..${sha}`, per_page: 1 },
        ctx,
      );
      return asList(ahead).length === 0;
    } catch (error) {
      // A commit the service no longer knows is on no branch.
      if (commitUnknown(error)) return false;
      throw error;
    }
  }

  private async read(name: string, input: Record<string, unknown>, ctx: RunContext): Promise<unknown> {
    const op = this.operations().find((o) => o.name === name);
    if (!op) throw new Error(`${name} is not in the registry`);
    return (await executeOperation(op, input, ctx)).data;
  }
}

async function runPremiseCheck(
  premises: PremiseCheck,
  ctx: RunContext,
  input: Omit<ButtonPremise, 'project'> & { id: string | number },
): Promise<OperationResult> {
  const { id, ...rest } = input;
  const answer = await premises.check({ ...rest, project: String(id) }, ctx);
  const data: PremiseResult = answer.holds
    ? { holds: true, said: answer.note ?? '' }
    : { holds: false, said: answer.changed };
  return { data, status: 200 };
}

/**
 * check_button_premise: a read the triage view calls before a button's write, so a view drawn on a red pipeline that
 * is no longer the branch's latest (or a branch green again, a commit reverted already or dropped by a force push) runs
 * nothing and says why.
 */
export function buttonPremiseOperation(operations: () => readonly Operation[]) {
  const premises = new PremiseCheck(operations);
  return defineOperation({
    name: PREMISE_OPERATION,
    chat: 'pipeline premise',
    area: 'pipelines',
    outsideSpec: 'composed of Pipelines, Commits, Merge requests and Deployments reads',
    title: 'Check button premise',
    description:
      "Before an incident button acts: whether what it was drawn on still holds (the pipeline still the branch's latest and red, the branch not green again; a revert's commit still on the branch and not reverted by a commit or merge request; a merge's merge request still open at the same head and not set to merge already, or, with pipeline_id, its failed pipeline still its latest; a rollback's environment given no deployment after deployment_id); if not, what changed, in words.",
    route: 'GET /projects/:id/pipelines',
    composedOf: [
      'list_pipelines',
      'list_commits',
      'list_project_merge_requests',
      'get_merge_request',
      'get_deployment',
      'list_deployments',
    ],
    input: z.object({
      id: fields.projectId(),
      kind: z
        .enum(['retry', 'revert', 'incident', 'log', 'mute', 'merge', 'rollback'])
        .describe('What the button does.'),
      ref: z.string().min(1).describe('The branch the button was drawn for (the default branch).'),
      pipeline_id: z.number().int().positive().optional().describe('The red pipeline the button was drawn on.'),
      sha: z
        .string()
        .regex(/^[0-9a-fA-F]{7,40}$/, 'a commit SHA: 7 to 40 hex digits')
        .optional()
        .describe("The commit a revert names; for a merge, the merge request's head."),
      merge_request_iid: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('The open merge request a merge (or its pipeline retry) acts on.'),
      deployment_id: z
        .number()
        .int()
        .positive()
        .optional()
        .describe("For a rollback: the environment's deployment the button was drawn on (what it ran then)."),
      environment: z.string().min(1).optional().describe("For a rollback: the environment's name."),
    }),
    effect: 'read',
    present: (data) => {
      const result = data as PremiseResult;
      return {
        title: result.holds ? `Still holds${result.said ? `: ${result.said}` : ''}` : `Changed: ${result.said}`,
      };
    },
    run: (ctx, input) => runPremiseCheck(premises, ctx, input),
    examples: [{ input: { id: 'acme/web', kind: 'retry', ref: 'main' } }],
  });
}
