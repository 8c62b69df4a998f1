// What the triage view shows, read from a tool result (triage_project, get_pipeline, list_pipeline_jobs): plain data
// in, plain data out, no DOM, so it is the same in a browser and in a unit test.
import type { PremiseFacts } from '../../operations/composed/premise-facts.js';

/** The tool result as the host passes it to the view (the parts the view reads). */
export interface ToolResultLike {
  content?: ReadonlyArray<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export type ViewState = 'red' | 'green' | 'running' | 'unknown';

export interface FailedJob {
  id: number;
  name: string;
  stage: string;
  reason?: string;
  lines: string;
}

/**
 * What a button assumed when the view was drawn, as check_button_premise takes it: the view may be looked at days
 * later, so a write button asks the server whether this still holds before it acts.
 */
export interface ViewPremise extends PremiseFacts {
  kind: 'retry' | 'revert' | 'incident' | 'merge' | 'rollback';
  id: string;
}

export interface ViewAction {
  /** The button's words. */
  label: string;
  tool: string;
  input: Record<string, unknown>;
  premise?: ViewPremise;
}

/** The server's tool that checks a button's premise. */
export const PREMISE_TOOL = 'check_button_premise';
/**
 * The tools/call _meta key the premise travels under beside the button's write, so that a write that waits for a
 * human's approval is checked again when it is approved (the server's PREMISE_META; the view loads nothing of the server).
 */
export const PREMISE_META = 'forgeops/premise';

export interface TriageView {
  project: string;
  branch?: string;
  state: ViewState;
  because: string;
  /** flaky, broken or infrastructure, with the evidence line. */
  failure?: { kind: string; evidence: string };
  firstRed?: { sha: string; title?: string; author?: string; redFor?: string };
  ping: string[];
  failedJobs: FailedJob[];
  /** The pipeline whose jobs make the row of stages: the running one while one runs, else the head's. */
  pipelineId?: number;
  release?: { tag: string; unreleased?: string };
  /** Where the culprit went: "4d7b7da8 reached staging at 13:20 UTC (deployment #12); production runs v1.1.0, before it". */
  whereItWent?: string;
  /** The open revert of the culprit and where its own pipeline stands: "!6 Revert "…": pipeline #23 failed". */
  openRevert?: string;
  actions: ViewAction[];
  unread: string[];
}

export interface StageRow {
  stage: string;
  jobs: Array<{ id: number; name: string; status: string }>;
}

/** The tools whose buttons the view offers, each named as a person would say it. */
const ACTION_LABELS: Readonly<Record<string, (input: Record<string, unknown>) => string>> = {
  retry_pipeline: () => 'Retry failed jobs',
  cancel_pipeline: (input) => `Cancel pipeline #${String(input.pipeline_id ?? '')}`,
  revert_as_merge_request: (input) => `Revert ${String(input.sha ?? '').slice(0, 8)} as a merge request`,
  open_incident_issue: () => 'Open an incident issue',
  merge_merge_request: (input) => `Merge !${String(input.merge_request_iid ?? '')} when green`,
  rollback_environment: (input) => `Roll back environment ${String(input.environment ?? '')}`,
};

/** The retry of an open revert's pipeline, as triage labels it: "Retry pipeline #23 of !6". */
const REVERT_RETRY = /^Retry pipeline #\d+ of !(\d+)$/;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** All text blocks of a result, as one string. */
export function resultText(result: ToolResultLike): string {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}

/** The result's data: its structuredContent, else its text when that is a JSON object. */
export function resultData(result: ToolResultLike): Record<string, unknown> | undefined {
  if (result.structuredContent) return result.structuredContent;
  try {
    const parsed: unknown = JSON.parse(resultText(result));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A log excerpt without the fence the server puts around it for the model (<untrusted-log …> … </untrusted-log> and
 * the note after it): the view shows what the job printed; it is shown as text, which is what the fence asks.
 */
export function unfence(excerpt: string): string {
  const open = /^<untrusted-log[^>\n]*>\n?/.exec(excerpt);
  if (!open) return excerpt;
  const close = excerpt.lastIndexOf('</untrusted-log>');
  return excerpt.slice(open[0].length, close < 0 ? undefined : close).replace(/\n$/, '');
}

/** What the state of a pipeline status reads as in the view. */
export function pipelineState(status: string | undefined): ViewState {
  if (status === 'success') return 'green';
  if (status === 'failed') return 'red';
  if (
    status &&
    ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled', 'manual'].includes(status)
  )
    return 'running';
  return 'unknown';
}

/** Which premise kind a button's tool stands on; a cancel needs none (it acts on what is running, or fails). */
const PREMISE_KINDS: Readonly<Record<string, ViewPremise['kind']>> = {
  retry_pipeline: 'retry',
  revert_as_merge_request: 'revert',
  open_incident_issue: 'incident',
  merge_merge_request: 'merge',
  rollback_environment: 'rollback',
};

/** A button's premise, from what the view shows when it is drawn: the project, the branch, the pipeline, the commit. */
function premiseOf(
  tool: string,
  input: Record<string, unknown>,
  project: string,
  ref: string | undefined,
): ViewPremise | undefined {
  const kind = Object.hasOwn(PREMISE_KINDS, tool) ? PREMISE_KINDS[tool] : undefined;
  if (!kind || !project || !ref) return undefined;
  const pipeline = typeof input.pipeline_id === 'number' ? input.pipeline_id : undefined;
  const sha = text(input.sha);
  return {
    kind,
    id: project,
    ref,
    ...(kind === 'retry' && pipeline !== undefined ? { pipeline_id: pipeline } : {}),
    ...(kind === 'revert' && sha ? { sha } : {}),
    ...(kind === 'merge' && typeof input.merge_request_iid === 'number'
      ? { merge_request_iid: input.merge_request_iid, ...(sha ? { sha } : {}) }
      : {}),
  };
}

/**
 * Roll back <environment>, as triage offers it (its label, its pinned input): it stands on the deployment the
 * environment ran when the view was drawn, so a rollback made since (or any deployment after it) runs nothing.
 */
function rollbackAction(
  action: Record<string, unknown>,
  input: Record<string, unknown>,
  project: string,
  data: Record<string, unknown>,
): ViewAction {
  const label = text(action.label) ?? ACTION_LABELS.rollback_environment(input);
  const premise = premiseOf('rollback_environment', input, project, text(data.default_branch));
  const environment = list(record(data.deployed).environments)
    .map(record)
    .find((e) => e.environment_id === input.environment);
  const standsOn =
    premise && typeof input.current_deployment_id === 'number'
      ? {
          ...premise,
          deployment_id: input.current_deployment_id,
          ...(text(environment?.environment) ? { environment: text(environment?.environment) } : {}),
        }
      : premise;
  return { label, tool: 'rollback_environment', input, ...(standsOn ? { premise: standsOn } : {}) };
}

/** "!6 Revert "…": pipeline #23 failed", or "… no pipeline yet": the first open revert triage names, if any. */
function openRevertText(mr: Record<string, unknown>): string | undefined {
  const iid = text(mr.iid);
  if (iid === undefined) return undefined;
  const pipeline = record(mr.pipeline);
  const state =
    pipeline.id === undefined ? 'no pipeline yet' : `pipeline #${text(pipeline.id)} ${text(pipeline.status) ?? ''}`;
  const waits = mr.merge_when_pipeline_succeeds === true ? '; set to merge when it passes' : '';
  return `!${iid} ${text(mr.title) ?? ''}: ${state}${waits}`;
}

/** A triage_project report as the view shows it. */
export function triageView(data: Record<string, unknown>): TriageView {
  const project = text(data.project) ?? '';
  const running = record(data.running_pipeline);
  const head = record(data.head_pipeline);
  const verdict = text(data.verdict);
  const state: ViewState =
    running.id !== undefined
      ? 'running'
      : verdict === 'red' || verdict === 'green' || verdict === 'running'
        ? verdict
        : 'unknown';
  const failure = record(data.failure);
  const redSince = record(data.red_since);
  const firstRed = record(redSince.first_red);
  const release = record(data.release);
  const unreleased = text(release.unreleased_commits);
  return {
    project,
    branch: text(data.default_branch),
    state,
    because: text(data.because) ?? '',
    failure: text(failure.kind) ? { kind: text(failure.kind)!, evidence: text(failure.evidence) ?? '' } : undefined,
    firstRed: text(firstRed.sha)
      ? {
          sha: text(firstRed.sha)!,
          title: text(firstRed.title),
          author: text(firstRed.author),
          redFor: text(firstRed.red_for),
        }
      : undefined,
    ping: list(redSince.ping)
      .map(text)
      .filter((name): name is string => name !== undefined),
    failedJobs: list(data.failed_jobs)
      .map(record)
      .map((job) => ({
        id: Number(job.id),
        name: text(job.name) ?? '',
        stage: text(job.stage) ?? '',
        reason: text(job.failure_reason),
        lines: unfence(text(job.excerpt) ?? ''),
      })),
    pipelineId: typeof running.id === 'number' ? running.id : typeof head.id === 'number' ? head.id : undefined,
    release: text(release.tag)
      ? {
          tag: text(release.tag)!,
          unreleased:
            unreleased === undefined
              ? undefined
              : `${unreleased}${release.more_unreleased ? '+' : ''} unreleased commits`,
        }
      : undefined,
    whereItWent: text(record(data.deployed).said),
    openRevert: openRevertText(record(list(data.open_reverts)[0])),
    actions: list(data.actions)
      .map(record)
      .flatMap((action) => {
        const tool = text(action.operation);
        const label = tool ? ACTION_LABELS[tool] : undefined;
        const input = record(action.input);
        if (!tool || !label) return [];
        // A retry of an open revert's pipeline stands on that merge request and that pipeline (still its latest and
        // failed), not on the branch's red pipeline.
        const ofRevert = tool === 'retry_pipeline' ? REVERT_RETRY.exec(text(action.label) ?? '') : null;
        if (ofRevert) {
          const premise = premiseOf(
            'merge_merge_request',
            { merge_request_iid: Number(ofRevert[1]) },
            project,
            text(data.default_branch),
          );
          const pinned =
            premise && typeof input.pipeline_id === 'number' ? { ...premise, pipeline_id: input.pipeline_id } : premise;
          return [{ label: text(action.label)!, tool, input, ...(pinned ? { premise: pinned } : {}) }];
        }
        if (tool === 'rollback_environment') return [rollbackAction(action, input, project, data)];
        const premise = premiseOf(tool, input, project, text(data.default_branch));
        return [{ label: label(input), tool, input, ...(premise ? { premise } : {}) }];
      }),
    unread: list(data.unread)
      .map(text)
      .filter((line): line is string => line !== undefined),
  };
}

/** A get_pipeline result as the view shows it: the pipeline's state, its stages, a retry while it failed, a cancel while it runs. */
export function pipelineView(data: Record<string, unknown>, project: string): TriageView {
  const id = typeof data.id === 'number' ? data.id : undefined;
  const status = text(data.status);
  const state = pipelineState(status);
  const retryPremise =
    id === undefined ? undefined : premiseOf('retry_pipeline', { pipeline_id: id }, project, text(data.ref));
  return {
    project,
    branch: text(data.ref),
    state,
    because: id === undefined ? '' : `pipeline #${id} is ${status ?? 'of unknown status'}`,
    ping: [],
    failedJobs: [],
    pipelineId: id,
    actions:
      id === undefined
        ? []
        : state === 'red'
          ? [
              {
                label: ACTION_LABELS.retry_pipeline({}),
                tool: 'retry_pipeline',
                input: { id: project, pipeline_id: id },
                ...(retryPremise ? { premise: retryPremise } : {}),
              },
            ]
          : state === 'running'
            ? [
                {
                  label: ACTION_LABELS.cancel_pipeline({ pipeline_id: id }),
                  tool: 'cancel_pipeline',
                  input: { id: project, pipeline_id: id },
                },
              ]
            : [],
    unread: [],
  };
}

/**
 * The jobs of a list_pipeline_jobs result as a row of stages in the order the pipeline runs them (the service lists
 * the newest job first; jobs are made stage by stage, so by id is run order). Rows that leave the stage out (the
 * compact list rows do) make one unnamed group, still in run order.
 */
export function stageRow(data: Record<string, unknown> | undefined): StageRow[] {
  const stages: StageRow[] = [];
  const jobs = list(data?.items)
    .map(record)
    .sort((a, b) => Number(a.id) - Number(b.id));
  for (const job of jobs) {
    const stage = text(job.stage) ?? '';
    let row = stages.find((s) => s.stage === stage);
    if (!row) stages.push((row = { stage, jobs: [] }));
    row.jobs.push({ id: Number(job.id), name: text(job.name) ?? '', status: text(job.status) ?? 'unknown' });
  }
  return stages;
}

/** How often the view reads the state again while something runs, and for how long at most after it began to. */
export const REFRESH_EVERY_MS = 5_000;
export const REFRESH_FOR_MS = 5 * 60_000;

/**
 * When to read again by itself: in REFRESH_EVERY_MS while something runs, never once it is finished or once
 * REFRESH_FOR_MS have passed since the view began following it (`since`, epoch ms; undefined: not yet following).
 */
export function nextRefresh(
  running: boolean,
  now: number,
  since: number | undefined,
): { inMs: number; since: number } | undefined {
  if (!running) return undefined;
  const began = since ?? now;
  return now - began >= REFRESH_FOR_MS ? undefined : { inMs: REFRESH_EVERY_MS, since: began };
}

/** Whether the view should read the state again by itself: something still runs. */
export function stillRunning(view: TriageView, stages: readonly StageRow[]): boolean {
  return view.state === 'running' || stages.some((s) => s.jobs.some((job) => pipelineState(job.status) === 'running'));
}

/** The outcome of a button in words: the server's own sentence (a write's `outcome`), else the result's text. */
export function outcomeText(result: ToolResultLike): { ok: boolean; text: string } {
  const data = result.isError ? undefined : resultData(result);
  const made =
    data && (text(data.outcome) ?? (text(data.web_url) && `Done: ${text(data.title) ?? text(data.web_url)}`));
  const shown = made || resultText(result).trim() || (result.isError ? 'The call failed.' : 'Done.');
  return { ok: !result.isError, text: shown.length > 600 ? `${shown.slice(0, 600)}…` : shown };
}

/** The lines of a get_job_log result, without the fence around them (shown as text, the fence adds nothing). */
export function logLines(result: ToolResultLike): string {
  const data = resultData(result);
  return unfence(data && typeof data.log === 'string' ? data.log : resultText(result));
}

/** How the view calls a server tool through the host; `meta` goes as the request's _meta. */
export type CallTool = (
  tool: string,
  input: Record<string, unknown>,
  meta?: Record<string, unknown>,
) => Promise<ToolResultLike>;

/**
 * A button pressed: its premise checked first (check_button_premise); when it changed, the server's words are the
 * outcome and the button's tool is never called, so a view drawn on an old red pipeline retries nothing; the premise
 * goes with the call as well (PREMISE_META), for an approval that comes later. `ran` says whether the tool was called
 * (then the view reads the state again).
 */
export async function actOnPremise(
  action: ViewAction,
  call: CallTool,
): Promise<{ ok: boolean; text: string; ran: boolean }> {
  let note = '';
  if (action.premise) {
    const checked = await call(PREMISE_TOOL, { ...action.premise });
    const data = checked.isError ? undefined : resultData(checked);
    if (!data || typeof data.holds !== 'boolean') {
      const said = resultText(checked).trim() || 'the server did not answer';
      return {
        ok: false,
        text: `could not check that this button still applies: ${said}; nothing was run.`,
        ran: false,
      };
    }
    if (!data.holds)
      return {
        ok: false,
        text: text(data.said) ?? 'what this button was drawn on changed; nothing was run.',
        ran: false,
      };
    note = text(data.said) ?? '';
  }
  // The premise goes with the write too: the host may ask a human first, and the server checks it again once approved.
  const meta = action.premise ? { [PREMISE_META]: { ...action.premise } } : undefined;
  const said = outcomeText(await call(action.tool, action.input, meta));
  return { ok: said.ok, text: note ? `${note} ${said.text}` : said.text, ran: true };
}
