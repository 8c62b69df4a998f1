// `triage <project>`: what an on-call engineer wants first, in one message, gathered concurrently from registry
// operations: the default branch's latest pipelines (with Retry/Cancel), the latest release and the recent commits.
import type { Operation, OperationResult } from '../operations/define.js';
import { asList, show, type Fields } from '../operations/present.js';
import { chatMessage, type ChatMessage, type ChatSection, type FollowUp } from './message.js';
import { presentOutcome, statusOf, type PresentOptions } from './present.js';

/** One read through the common run path (validate → policy → execute), or why it could not be made. */
export type ReadOutcome =
  | { ok: true; operation: Operation; input: Record<string, unknown>; result: OperationResult }
  | { ok: false; message: string };

export interface TriageDeps {
  operations: readonly Operation[];
  /** Runs one operation by name with raw arguments, the way every chat call runs. */
  read(operation: string, args: Record<string, unknown>): Promise<ReadOutcome>;
  present?: PresentOptions;
}

/** How many pipelines and commits of the default branch are shown. */
export const TRIAGE_PIPELINES = 5;
export const TRIAGE_COMMITS = 5;
/** The branch assumed when the project's own default cannot be read. */
const FALLBACK_BRANCH = 'main';

/**
 * The project's record, found through list_projects (the registry has no single-project read): by its ID range when
 * it is a number, else by searching its last path segment and matching the full path exactly.
 */
async function findProject(project: string, deps: TriageDeps): Promise<{ ok: true; project: Fields } | { ok: false; message: string }> {
  const id = /^\d+$/.test(project) ? Number(project) : undefined;
  const args = id !== undefined
    ? { id_after: id - 1, id_before: id + 1, simple: true }
    : { search: project.split('/').at(-1)!, simple: true, per_page: 100 };
  const outcome = await deps.read('list_projects', args);
  if (!outcome.ok) return outcome;
  const found = asList(outcome.result.data).find((p) => id !== undefined
    ? p.id === id
    : typeof p.path_with_namespace === 'string' && p.path_with_namespace.toLowerCase() === project.toLowerCase());
  return found ? { ok: true, project: found } : { ok: false, message: `${project} is not among the projects this account can see` };
}

/** A presented list as section lines: "#42  failed · main · 1a2b3c4d". */
function listLines(outcome: Extract<ReadOutcome, { ok: true }>, options: PresentOptions | undefined): string {
  const shown = presentOutcome(outcome.operation, outcome.input, outcome.result, options);
  return shown.fields.length > 0 ? shown.fields.map(([label, value]) => `${label}  ${value}`).join('\n') : 'none';
}

/** Retry/Cancel for each pipeline, as get_pipeline's presenter offers them, labelled with the pipeline they act on. */
function pipelineActions(project: string, pipelines: Fields[], deps: TriageDeps): FollowUp[] {
  const getPipeline = deps.operations.find((op) => op.name === 'get_pipeline');
  if (!getPipeline) return [];
  return pipelines.flatMap((pipeline) => presentOutcome(getPipeline, { id: project, pipeline_id: pipeline.id }, { data: pipeline, status: 200 })
    .actions.map((action) => ({ ...action, label: `${action.label} #${show(pipeline.id)}` })));
}

export async function triage(project: string, deps: TriageDeps): Promise<{ ok: boolean; message: ChatMessage }> {
  const notes: string[] = [];
  const [found, releases] = await Promise.all([
    findProject(project, deps),
    deps.read('list_releases', { id: project, per_page: 1 }),
  ]);
  const record = found.ok ? found.project : {};
  const defaultBranch = typeof record.default_branch === 'string' && record.default_branch ? record.default_branch : undefined;
  if (!found.ok) notes.push(`The project could not be read (${found.message}); assuming the default branch is ${FALLBACK_BRANCH}.`);
  else if (!defaultBranch) notes.push(`The project names no default branch; assuming ${FALLBACK_BRANCH}.`);
  const branch = defaultBranch ?? FALLBACK_BRANCH;
  const [pipelines, commits] = await Promise.all([
    deps.read('list_pipelines', { id: project, ref: branch, per_page: TRIAGE_PIPELINES }),
    deps.read('list_commits', { id: project, ref_name: branch, per_page: TRIAGE_COMMITS }),
  ]);

  const fields: Array<[string, string]> = [['default branch', branch]];
  const sections: ChatSection[] = [];
  let actions: FollowUp[] = [];
  let latestPipeline: Fields | undefined;
  if (pipelines.ok) {
    const items = asList(pipelines.result.data);
    latestPipeline = items[0];
    fields.push(['latest pipeline', latestPipeline ? `#${show(latestPipeline.id)} ${show(latestPipeline.status)}` : 'none']);
    sections.push({ title: `Pipelines on ${branch}`, text: listLines(pipelines, deps.present) });
    actions = pipelineActions(project, items, deps);
  } else {
    notes.push(`Pipelines could not be read: ${pipelines.message}`);
  }
  if (releases.ok) {
    const latest = asList(releases.result.data)[0];
    fields.push(['latest release', latest ? `${show(latest.tag_name)} · ${show(latest.name)} · ${show(latest.released_at)}` : 'none']);
  } else {
    notes.push(`Releases could not be read: ${releases.message}`);
  }
  if (commits.ok) sections.push({ title: `Recent commits on ${branch}`, text: listLines(commits, deps.present) });
  else notes.push(`Commits could not be read: ${commits.message}`);

  const nothingRead = !found.ok && !pipelines.ok && !releases.ok && !commits.ok;
  const shownPath = typeof record.path_with_namespace === 'string' ? record.path_with_namespace : project;
  const message = chatMessage(nothingRead ? `Triage ${shownPath}: nothing could be read` : `Triage ${shownPath}`, {
    status: nothingRead ? 'error' : (latestPipeline && statusOf(latestPipeline)) || 'info',
    ...(typeof record.web_url === 'string' ? { link: record.web_url } : {}),
    fields: nothingRead ? [] : fields,
    sections,
    actions,
    notes,
  });
  return { ok: !nothingRead, message };
}
