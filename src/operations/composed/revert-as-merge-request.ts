// revert_as_merge_request: the usual fix of a red default branch in one action — a branch revert-<sha8> made by one
// revert commit on the target branch (or, when later commits touched the same files, the service's own revert on a
// new branch, its message quoted), and a merge request back, described from a triage.
// Pressed twice it names what exists and makes nothing; a step that fails removes the branch it made, or says it is left.
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { defineOperation, fields } from '../engine/define.js';
import type { FollowUp, Operation, OperationResult, Presentation, RunContext } from '../engine/define.js';
import { executeOperation } from '../engine/execute.js';
import { failureText } from './failure-kind.js';
import { outcomeUnknown } from '../engine/failures.js';
import { unfenceLog } from '../areas/shared/untrusted-fence.js';
import { asList, asRecord, shortSha, show, type Fields } from '../engine/present.js';
import { TRIAGE_READS, type TriageReport } from './triage-report.js';
import { holdsReference, markdownBlock, quoteFor } from '../../text/quote.js';

/**
 * Text inside the merge request forgeops writes: references (mentions, #12, !3, ~label…) and hidden characters made
 * plain. Our own words go through it too where they hold a number after #: "pipeline #12" would link issue 12.
 */
const md = (text: unknown) => quoteFor('markdown', show(text));

const REVERT_MR_OPERATION = 'revert_as_merge_request';

/** The branch a revert of `sha` is made on: the same name for the same commit, so a second press finds the first. */
export function revertBranchName(sha: string): string {
  return `revert-${sha.slice(0, 8).toLowerCase()}`;
}

/** What the call acts on, read before anything is made (and, by the front ends, before the policy decides). */
export interface RevertPlan {
  target: string;
  commit: { id: string; title: string; author_name?: string; parent_ids?: string[] };
  branch: string;
  /** Why nothing should be made: the branch or an open merge request made for this revert already exists. */
  existing?: string;
}

type Find = (name: string) => Operation;

function finder(operations: () => readonly Operation[]): Find {
  return (name) => {
    const found = operations().find((o) => o.name === name);
    if (!found) throw new Error(`${name} is not in the registry`);
    return found;
  };
}

const refusal = (input: { id: string | number }, why: string) =>
  new ApiError({
    kind: 'refused',
    method: 'POST',
    path: `/projects/${encodeURIComponent(String(input.id))}/repository/branches`,
    serviceMessage: why,
  });

const notFound = (error: unknown) => error instanceof ApiError && error.kind === 'http' && error.status === 404;

/** The branch and merge requests an earlier press made, in words, or undefined when there are none to keep. */
async function existingFor(
  ctx: RunContext,
  id: string | number,
  branch: string,
  find: Find,
): Promise<string | undefined> {
  const [branchRead, requests] = await Promise.all([
    executeOperation(find('get_branch'), { id, branch }, ctx).catch((error: unknown) => {
      if (notFound(error)) return undefined;
      throw error;
    }),
    executeOperation(
      find('list_project_merge_requests'),
      { id, source_branch: branch, state: 'all', per_page: 20 },
      ctx,
    ),
  ]);
  const mrs = asList(requests.data).filter((mr) => mr.source_branch === branch);
  const open = mrs.find((mr) => mr.state === 'opened');
  const name = (mr: Fields) =>
    `merge request !${show(mr.iid)} "${show(mr.title)}"${typeof mr.web_url === 'string' ? ` (${mr.web_url})` : ''}`;
  if (open) return `${name(open)} from ${branch} is already open; no other branch or merge request was made`;
  if (!branchRead) return undefined;
  const head = shortSha(asRecord(asRecord(branchRead.data).commit).id);
  const latest = mrs[0];
  const state = latest ? `; its ${name(latest)} is ${show(latest.state)}` : ' with no merge request from it yet';
  return `branch ${branch} already exists (at ${head})${state}; nothing was made (open a merge request from it, or delete it to start over)`;
}

/** The target branch, the commit in full and whether an earlier press left anything: reads only. */
async function readRevertPlan(
  ctx: RunContext,
  input: { id: string | number; sha: string; target_branch?: string },
  find: Find,
): Promise<RevertPlan> {
  const targetBranch =
    input.target_branch ??
    String(
      asRecord((await executeOperation(find('get_project'), { id: input.id }, ctx)).data).default_branch ?? 'main',
    );
  const commitRead = await executeOperation(
    find('get_commit'),
    { id: input.id, sha: input.sha, stats: false },
    ctx,
  ).catch((error: unknown) => {
    // A missing project is the service's own 404; a missing commit is said in words, before anything is made.
    if (notFound(error) && /commit/i.test((error as ApiError).serviceMessage))
      throw refusal(
        input,
        `no commit ${input.sha} in ${show(input.id)} (${(error as ApiError).message}); nothing was made`,
      );
    throw error;
  });
  const commit = asRecord(commitRead.data);
  if (typeof commit.id !== 'string') throw new Error('the service did not describe the commit');
  const branch = revertBranchName(commit.id);
  return {
    target: targetBranch,
    commit: {
      id: commit.id,
      title: show(commit.title),
      ...(typeof commit.author_name === 'string' ? { author_name: commit.author_name } : {}),
      ...(Array.isArray(commit.parent_ids) ? { parent_ids: commit.parent_ids.map(String) } : {}),
    },
    branch,
    existing: await existingFor(ctx, input.id, branch, find),
  };
}

/** The merge request's title: the revert commit's own (which quotes the culprit's title), made plain for Markdown. */
export function revertTitle(revert: Fields, commit: { title: string }): string {
  return md(typeof revert.title === 'string' ? revert.title : `Revert "${commit.title}"`);
}

/** The merge request's description: the culprit, the red pipeline, the failing job and its error lines, the revert. */
export function revertDescription(plan: RevertPlan, report: TriageReport | undefined): string {
  const lines: string[] = [];
  const first = report?.red_since?.first_red;
  const isFirstRed = first?.sha === plan.commit.id;
  lines.push(
    `Reverts ${shortSha(plan.commit.id)} "${md(plan.commit.title)}"${plan.commit.author_name ? ` by ${md(plan.commit.author_name)}` : ''}` +
      `${isFirstRed && report ? `, the first red commit of ${md(report.default_branch)}` : ''}.`,
  );
  if (report?.verdict === 'red' && report.head_pipeline) {
    const head = report.head_pipeline;
    lines.push(
      '',
      `${md(report.default_branch)} of ${md(report.project)} is red: ${md(`pipeline #${head.id}`)} failed${head.web_url ? ` (${md(head.web_url)})` : ''}` +
        `${first ? `; red since ${md(`pipeline #${first.pipeline}`)} at ${shortSha(first.sha)}` : ''}.`,
    );
    // Flaky, broken or infrastructure, with its evidence: why a revert rather than a retry.
    if (report.failure) lines.push('', `Judged ${md(failureText(report.failure).split('\n').join('; '))}.`);
    for (const job of report.failed_jobs) {
      lines.push(
        '',
        `Failed job ${md(job.name)} (${md(`#${job.id}`)})${job.failing_section ? ` in ${md(job.failing_section)}` : ''}${job.failure_reason ? `, ${md(job.failure_reason)}` : ''}.`,
      );
      if (job.excerpt) lines.push('', markdownBlock(unfenceLog(job.excerpt)));
    }
  } else if (report) {
    lines.push(
      '',
      `${md(report.default_branch)} of ${md(report.project)} was ${report.verdict} when this was opened: ${md(report.because)}.`,
    );
  }
  lines.push('', `This reverts commit ${plan.commit.id}.`);
  return lines.join('\n');
}

/** The most files a revert may change for forgeops to write it again (each is read once). */
const MAX_FILES = 1000;
/** File modes a commit of the Commits API cannot write: a symbolic link, a submodule. */
const UNWRITABLE_MODES = new Set(['120000', '160000']);

/** A file's content at a ref, as base64: how a commit action carries a file, text or binary, unchanged. */
async function fileBase64(
  ctx: RunContext,
  find: Find,
  file: { id: string | number; file_path: string; ref: string },
): Promise<string> {
  return Buffer.from((await executeOperation(find('get_file_raw'), file, ctx)).data as Uint8Array).toString('base64');
}

/**
 * The service's revert written again, its message's references in inline code, in place of it on the branch. The
 * service closes the issues a merged commit's message names, and its revert quotes the culprit's title: "Revert "Fix
 * login, closes #5"" closes issue 5 when the merge request merges. Its revert takes no message of ours, so the same
 * changes (each file as the revert left it, read from it) become one commit of ours on the revert's parent, which
 * replaces the branch's (force: it drops only the revert this call made). Answers that commit.
 */
async function revertWithQuotedMessage(
  ctx: RunContext,
  id: string | number,
  branch: string,
  revert: Fields,
  find: Find,
): Promise<Fields> {
  const sha = show(revert.id);
  const parent: unknown = Array.isArray(revert.parent_ids) ? revert.parent_ids[0] : undefined;
  if (typeof parent !== 'string') throw new Error(`the service did not name the parent of ${shortSha(sha)}`);
  const diff = await executeOperation(find('get_commit_diff'), { id, sha, all_pages: true, max_items: MAX_FILES }, ctx);
  // A copy missing a file would be another change than the revert: past the cap, nothing is copied.
  if (diff.page?.has_more)
    throw new Error(`the revert changes more than ${MAX_FILES} files, more than forgeops copies`);
  const changes = asList(diff.data);
  const contentAt = (file: string) => fileBase64(ctx, find, { id, file_path: file, ref: sha });
  const actions: Fields[] = [];
  for (const change of changes) {
    const [from, to] = [show(change.old_path), show(change.new_path)];
    if (UNWRITABLE_MODES.has(show(change.a_mode)) || UNWRITABLE_MODES.has(show(change.b_mode)))
      throw new Error(`${to} is a symbolic link or a submodule, which a commit of the Commits API cannot write`);
    if (change.deleted_file === true) {
      actions.push({ action: 'delete', file_path: from });
      continue;
    }
    const modeChanged = change.new_file !== true && change.a_mode !== change.b_mode;
    // A mode change alone has no lines to diff: the file is only chmod'ed.
    if (!(modeChanged && change.diff === '' && change.renamed_file !== true)) {
      const action = change.renamed_file === true ? 'move' : change.new_file === true ? 'create' : 'update';
      actions.push({
        action,
        file_path: to,
        ...(action === 'move' ? { previous_path: from } : {}),
        content: await contentAt(to),
        encoding: 'base64',
      });
    }
    if (modeChanged || (change.new_file === true && change.b_mode === '100755'))
      actions.push({ action: 'chmod', file_path: to, execute_filemode: change.b_mode === '100755' });
  }
  return asRecord(
    (
      await executeOperation(
        find('create_commit'),
        {
          id,
          branch,
          start_sha: parent,
          force: true,
          commit_message: quoteFor('markdown', show(revert.message), { multiline: true }),
          actions,
        },
        ctx,
      )
    ).data,
  );
}

/** The most files a revert may touch for forgeops to write it as one commit; more go through the service's revert. */
const MAX_ONE_COMMIT_FILES = 100;

/**
 * The create_commit input of the revert as one commit that also makes its branch (the Commits API starts a branch from a commit), so one push
 * and one pipeline: making the branch first would run a pipeline at the target's old red head beside the fix's.
 * Writing each file as it was before the culprit is the revert only while the target still holds the culprit's
 * version of every file it touched; otherwise (a later commit changed one, a merge commit, a symbolic link) it answers
 * undefined and the service's revert, which merges, is used. The commit starts at the head that was checked.
 */
async function oneCommitRevert(ctx: RunContext, id: string | number, plan: RevertPlan, find: Find) {
  const { commit, branch, target } = plan;
  const parent = commit.parent_ids?.length === 1 ? commit.parent_ids[0] : undefined;
  if (!parent) return undefined;
  const diff = await executeOperation(
    find('get_commit_diff'),
    { id, sha: commit.id, all_pages: true, max_items: MAX_ONE_COMMIT_FILES },
    ctx,
  );
  const changes = asList(diff.data);
  if (diff.page?.has_more || changes.length === 0) return undefined;
  if (changes.some((c) => UNWRITABLE_MODES.has(show(c.a_mode)) || UNWRITABLE_MODES.has(show(c.b_mode))))
    return undefined;
  const head = show(
    asRecord(asRecord((await executeOperation(find('get_branch'), { id, branch: target }, ctx)).data).commit).id,
  );
  const blobAt = (ref: string, file: string) =>
    executeOperation(find('get_file_metadata'), { id, file_path: file, ref }, ctx).then(
      (read) => show(asRecord(read.data).blob_id),
      (error: unknown) => {
        if (notFound(error)) return undefined;
        throw error;
      },
    );
  // The target holds each file as the culprit left it: a renamed or deleted file's old path is absent too.
  const unchanged = await Promise.all(
    changes.map(async (change) => {
      const [from, to] = [show(change.old_path), show(change.new_path)];
      if (change.deleted_file === true) return (await blobAt(head, from)) === undefined;
      const [now, then] = await Promise.all([blobAt(head, to), blobAt(commit.id, to)]);
      if (now === undefined || now !== then) return false;
      return change.renamed_file === true ? (await blobAt(head, from)) === undefined : true;
    }),
  );
  if (!unchanged.every(Boolean)) return undefined;
  const before = (file: string) => fileBase64(ctx, find, { id, file_path: file, ref: parent });
  const actions: Fields[] = [];
  for (const change of changes) {
    const [from, to] = [show(change.old_path), show(change.new_path)];
    if (change.new_file === true) {
      actions.push({ action: 'delete', file_path: to });
      continue;
    }
    const recreated = change.deleted_file === true;
    const modeChanged = !recreated && change.a_mode !== change.b_mode;
    // A mode change alone has no lines to diff: the file is only chmod'ed back.
    if (!(modeChanged && change.diff === '' && change.renamed_file !== true)) {
      const action = recreated ? 'create' : change.renamed_file === true ? 'move' : 'update';
      actions.push({
        action,
        file_path: from,
        ...(action === 'move' ? { previous_path: to } : {}),
        content: await before(from),
        encoding: 'base64',
      });
    }
    if (modeChanged || (recreated && change.a_mode === '100755'))
      actions.push({ action: 'chmod', file_path: from, execute_filemode: change.a_mode === '100755' });
  }
  const message = `Revert "${commit.title}"\n\nThis reverts commit ${commit.id}`;
  // A title naming an issue would close it when the revert merges: references quoted; hidden characters spelled out.
  const quoted = quoteFor(holdsReference(message) ? 'markdown' : 'terminal', message, { multiline: true });
  return { id, branch, start_sha: head, commit_message: quoted, actions };
}

/** The error a failed step ends the call with, saying what became of the branch the call had made. */
async function afterFailure(
  ctx: RunContext,
  self: Operation,
  input: { id: string | number },
  branch: string,
  step: string,
  error: unknown,
  find: Find,
): Promise<Error> {
  let left: string;
  let cleaned = false;
  try {
    await executeOperation(find('delete_branch'), { id: input.id, branch }, ctx);
    left = `the branch ${branch} it had made was deleted again, so nothing is left`;
    cleaned = true;
  } catch (deleteError) {
    left = notFound(deleteError)
      ? `the branch ${branch} is gone already, so nothing is left`
      : `the branch ${branch} it made is left (deleting it failed: ${(deleteError as Error).message}); delete it with branch delete`;
    cleaned = notFound(deleteError);
  }
  const said = `${step} failed: ${error instanceof Error ? error.message : String(error)}; ${left}`;
  if (!(error instanceof ApiError)) return new Error(said);
  // Once the branch is gone the outcome is known (nothing): the answer that was lost no longer matters.
  if (cleaned && outcomeUnknown(self, error)) return refusal(input, said);
  return new ApiError({
    kind: error.kind,
    status: error.status,
    method: error.method,
    path: error.path,
    jsonBody: error.jsonBody,
    serviceMessage: `${error.serviceMessage}; ${step} failed and ${left}`,
    ...(error.errorCode !== undefined ? { errorCode: error.errorCode } : {}),
  });
}

/**
 * Runs the step that makes the branch (create_branch, or create_commit starting it) and answers what it made. A branch
 * made meanwhile by someone else is named, not made again; a lost answer removes the branch again, so the outcome is known.
 */
async function makeBranchWith(
  ctx: RunContext,
  self: Operation,
  input: { id: string | number },
  branch: string,
  find: Find,
  step: 'create_branch' | 'create_commit',
  stepInput: Record<string, unknown>,
): Promise<Fields> {
  try {
    return asRecord((await executeOperation(find(step), stepInput, ctx)).data);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400 && /already exists/i.test(error.serviceMessage)) {
      throw refusal(
        input,
        (await existingFor(ctx, input.id, branch, find)) ?? `branch ${branch} already exists; nothing was made`,
      );
    }
    if (outcomeUnknown(find(step), error))
      throw await afterFailure(ctx, self, input, branch, `creating branch ${branch}`, error, find);
    throw error;
  }
}

/**
 * The service's revert on a new branch: what merges when later commits changed the culprit's files. Two pushes (the
 * branch, then the revert), so two pipelines; the message rewritten when it names issues or people.
 */
async function serviceRevert(
  ctx: RunContext,
  self: Operation,
  input: { id: string | number },
  plan: RevertPlan,
  find: Find,
): Promise<Fields> {
  const { branch, target, commit } = plan;
  await makeBranchWith(ctx, self, input, branch, find, 'create_branch', { id: input.id, branch, ref: target });
  let revert: Fields;
  try {
    revert = asRecord(
      (await executeOperation(find('revert_commit'), { id: input.id, sha: commit.id, branch }, ctx)).data,
    );
  } catch (error) {
    throw await afterFailure(ctx, self, input, branch, `the revert of ${shortSha(commit.id)}`, error, find);
  }
  if (!holdsReference(show(revert.message))) return revert;
  try {
    return { ...(await revertWithQuotedMessage(ctx, input.id, branch, revert, find)), title: revert.title };
  } catch (error) {
    throw await afterFailure(ctx, self, input, branch, "rewriting the revert's message", error, find);
  }
}

async function revertAsMergeRequest(
  ctx: RunContext,
  input: { id: string | number; sha: string; target_branch?: string },
  self: () => Operation,
  operations: () => readonly Operation[],
): Promise<OperationResult> {
  const find = finder(operations);
  const plan = await readRevertPlan(ctx, input, find);
  if (plan.existing) throw refusal(input, plan.existing);
  const { branch, target, commit } = plan;
  const oneCommit = await oneCommitRevert(ctx, input.id, plan, find);
  // The branch's head: our one commit, or the service's revert (our copy of it when its message names issues or people).
  const head = oneCommit
    ? await makeBranchWith(ctx, self(), input, branch, find, 'create_commit', oneCommit)
    : await serviceRevert(ctx, self(), input, plan, find);
  const triaged = await executeOperation(find('triage_project'), { id: input.id }, ctx).catch(() => undefined);
  // One commit of ours: the title from the culprit's own (our message's is already quoted for the commit).
  const title = revertTitle(oneCommit ? {} : head, commit);
  const mrInput = {
    id: input.id,
    source_branch: branch,
    target_branch: target,
    title,
    description: revertDescription(plan, triaged?.data as TriageReport | undefined),
  };
  let mr: Fields;
  try {
    mr = asRecord((await executeOperation(find('create_merge_request'), mrInput, ctx)).data);
  } catch (error) {
    // Its answer lost: the merge request may be there all the same.
    const made = outcomeUnknown(find('create_merge_request'), error)
      ? asList(
          (
            await executeOperation(
              find('list_project_merge_requests'),
              { id: input.id, source_branch: branch, state: 'opened' },
              ctx,
            ).catch(() => undefined)
          )?.data,
        )[0]
      : undefined;
    if (!made) throw await afterFailure(ctx, self(), input, branch, 'opening the merge request', error, find);
    mr = made;
  }
  return {
    status: 201,
    data: {
      branch,
      target_branch: target,
      reverted: { id: commit.id, title: commit.title },
      revert_commit: { id: show(head.id), title },
      merge_request: {
        iid: mr.iid,
        title: mr.title,
        state: mr.state,
        ...(typeof mr.web_url === 'string' ? { web_url: mr.web_url } : {}),
      },
      ...(typeof mr.web_url === 'string' ? { web_url: mr.web_url } : {}),
      // The next call, named for a model as for a person: merge it when its pipeline passes, pinned to the revert.
      next_step: {
        label: `Merge !${show(mr.iid)} when green`,
        operation: 'merge_merge_request',
        input: {
          id: input.id,
          merge_request_iid: Number(mr.iid),
          merge_when_pipeline_succeeds: true,
          sha: show(head.id),
        },
        style: 'primary',
      } satisfies FollowUp,
    },
  };
}

function presentRevert(data: unknown): Presentation {
  const d = asRecord(data);
  const mr = asRecord(d.merge_request);
  return {
    title: `Merge request !${show(mr.iid)}: ${show(mr.title)}`,
    fields: [
      [
        'merge request',
        `!${show(mr.iid)} ${show(d.branch)} → ${show(d.target_branch)}${typeof mr.web_url === 'string' ? ` ${mr.web_url}` : ''}`,
      ],
      ['reverts', `${shortSha(asRecord(d.reverted).id)} ${show(asRecord(d.reverted).title)}`],
      ['revert commit', `${shortSha(asRecord(d.revert_commit).id)} on ${show(d.branch)}`],
    ],
    ...(d.next_step ? { actions: [d.next_step as FollowUp] } : {}),
  };
}

/** Triage's step for a red branch whose first red commit is known (a green pipeline before it): revert it as a merge request. */
export function revertAction(id: string | number, report: TriageReport): FollowUp | undefined {
  const since = report.red_since;
  if (report.verdict !== 'red' || !since?.last_green) return undefined;
  const sha = shortSha(since.first_red.sha);
  return { label: `Revert ${sha} as a merge request`, operation: REVERT_MR_OPERATION, input: { id, sha } };
}

/** revert_as_merge_request, built with a late view of the registry (it runs triage_project and the branch, commit and merge request calls). */
export function revertAsMergeRequestOperation(operations: () => readonly Operation[]) {
  const operation: Operation = defineOperation({
    name: REVERT_MR_OPERATION,
    chat: 'commit revert-mr',
    area: 'commits',
    outsideSpec: 'composed of the revert endpoint and Branches, Commits and Merge requests API calls',
    title: 'Revert commit as merge request',
    description:
      "Revert a commit (a red branch's culprit) by one commit on a new branch revert-<sha8> (one push: one pipeline) and open a merge request of it, described from triage_project.",
    route: 'POST /projects/:id/repository/commits/:sha/revert',
    composedOf: [
      ...new Set([
        ...TRIAGE_READS,
        'get_branch',
        'list_project_merge_requests',
        'create_branch',
        'revert_commit',
        'get_commit_diff',
        'get_file_metadata',
        'get_file_raw',
        'create_commit',
        'create_merge_request',
        'delete_branch',
      ]),
    ],
    input: z.object({
      id: fields.projectId(),
      sha: z.string().regex(/^[0-9a-fA-F]{7,40}$/, 'a commit SHA: 7 to 40 hex digits'),
      target_branch: z.string().min(1).optional().describe('Default: the default branch.'),
    }),
    effect: 'write',
    undo: 'Makes a branch holding one revert commit (one push, so one pipeline) and a merge request; the target branch is untouched until someone merges. Closing the merge request and deleting the branch undo it.',
    // The commit in full and the target branch are read first and pinned: what runs is what was shown, and an
    // earlier press's branch or merge request is named instead of made again.
    facts: {
      what: 'the commit to revert, the target branch and any branch or merge request made for it before',
      read: (ctx, input) => readRevertPlan(ctx, input, finder(operations)),
      refuse: (_input, plan: RevertPlan) => plan.existing,
      pin: (_input, plan: RevertPlan) => ({ sha: plan.commit.id, target_branch: plan.target }),
    },
    steps: (input) => {
      const branch = revertBranchName(input.sha);
      const target = input.target_branch ?? 'the default branch';
      return [
        `create branch ${branch} from ${target} with one commit reverting ${input.sha}`,
        `open a merge request ${branch} → ${target}`,
      ];
    },
    present: presentRevert,
    run: (ctx, input) => revertAsMergeRequest(ctx, input, () => operation, operations),
    // A branch, a revert commit on it and a merge request, all undone by closing and deleting; the target branch is
    // untouched. It runs at once on the facts it reads (the commit in full and the target, pinned; an earlier press's
    // branch or merge request refuses it), proven in test/contract/revert-as-merge-request.test.ts; judged without
    // them, as here, it never runs unasked.
    decisions: { runs: [], asks: [{ id: 'acme/web', sha: 'abc1234' }] },
  });
  return operation;
}
