// Which tools a server offers: API areas, the presets default/all/meta, and single tool names, under read-only mode.
import type { Operation } from '../operations/engine/define.js';
import { AREAS, type Area } from '../operations/engine/area-names.js';
import { META_TOOLS } from './meta-tools.js';

/**
 * The on-call core, from the areas people ask an assistant about when a pipeline fails or a file must change
 * (projects and their triage, repository, files, commits, pipelines and their jobs' logs, releases, issues, merge
 * requests): what they do most, small
 * enough that a conversation does not start 8,000 tokens poorer. The rest of these areas, and every other area,
 * is one find_operations away (the default preset includes the meta tools).
 */
export const DEFAULT_OPERATIONS: readonly string[] = [
  'list_projects',
  'list_repository_tree',
  'compare_refs',
  'get_file',
  'get_file_raw',
  'get_file_blame',
  'create_file',
  'update_file',
  'delete_file',
  'list_commits',
  'get_commit',
  'get_commit_diff',
  'create_commit',
  'cherry_pick_commit',
  'revert_commit',
  'triage_project',
  'list_pipelines',
  'get_pipeline',
  'create_pipeline',
  'retry_pipeline',
  'cancel_pipeline',
  'wait_for_pipeline',
  // Not list_pipeline_jobs (about 240 tokens): triage_project already names the failed jobs and their ids, and
  // the meta tools reach it when all of a pipeline's jobs are wanted.
  'get_job_log',
  'list_releases',
  'get_release',
  'create_release',
  'update_release',
  'list_project_issues',
  'list_project_merge_requests',
];

/**
 * Presets by name. `default` is the on-call core plus the meta tools, so the rest of the API stays one search
 * away; `meta` is the meta tools alone, for clients that pay most for every tool definition; `all` is every area.
 */
const PRESETS: Record<string, { areas: readonly Area[]; operations?: readonly string[]; meta: boolean }> = {
  default: { areas: [], operations: DEFAULT_OPERATIONS, meta: true },
  all: { areas: AREAS, meta: false },
  meta: { areas: [], meta: true },
};

interface ToolSelection {
  /** Area names and presets; none means `default`, unless single tools are named, which then stand alone. */
  toolsets: readonly string[];
  /** Single tool names (operations or meta tools), offered besides the toolsets. */
  tools?: readonly string[];
  readOnly: boolean;
}

/** What choosing needs of a tool: registry facts only, so a catalog built without the zod schemas serves too. */
export type Selectable = Pick<Operation, 'name' | 'area' | 'effect'>;

interface OfferedTools<T extends Selectable = Operation> {
  operations: T[];
  /** Whether find_operations, describe_operation and run_operation are offered. */
  meta: boolean;
}

/** A selection that names nothing that exists; its message lists what does, in the setting's own words. */
export class ToolSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolSelectionError';
  }
}

/** Every tool the mode allows, offered or not (read-only mode: the reads): also what the meta tools reach. */
export function usableTools<T extends Selectable>(all: readonly T[], readOnly: boolean): T[] {
  return all.filter((op) => !readOnly || op.effect === 'read');
}

/** The tools of a selection, in registry order; throws ToolSelectionError naming the unknown or empty parts. */
export function selectTools<T extends Selectable>(all: readonly T[], selection: ToolSelection): OfferedTools<T> {
  const usable = usableTools(all, selection.readOnly);
  const toolsets = selection.toolsets.length === 0 && !selection.tools?.length ? ['default'] : selection.toolsets;
  const areasWithTools = AREAS.filter((area) => usable.some((op) => op.area === area));
  const mode = selection.readOnly ? ' in read-only mode' : '';

  const areas = new Set<string>();
  const names = new Set<string>();
  let meta = false;
  const unknown: string[] = [];
  const empty: string[] = [];
  for (const name of toolsets) {
    const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
    if (preset) {
      for (const area of preset.areas) areas.add(area);
      for (const op of preset.operations ?? []) names.add(op);
      meta ||= preset.meta;
    } else if ((AREAS as readonly string[]).includes(name)) {
      if (areasWithTools.includes(name as Area)) areas.add(name);
      else empty.push(name);
    } else {
      unknown.push(name);
    }
  }
  const known = `known: ${[...Object.keys(PRESETS), ...areasWithTools].join(', ')}`;
  if (unknown.length > 0)
    throw new ToolSelectionError(
      `unknown toolset(s) ${unknown.join(', ')} (FORGEOPS_TOOLSETS or --toolsets); ${known}`,
    );
  if (empty.length > 0)
    throw new ToolSelectionError(
      `toolset(s) ${empty.join(', ')} offer no tools${mode} (FORGEOPS_TOOLSETS or --toolsets); ${known}`,
    );

  const unknownTools: string[] = [];
  for (const name of selection.tools ?? []) {
    if (META_TOOLS.some((tool) => tool.name === name)) meta = true;
    else if (usable.some((op) => op.name === name)) names.add(name);
    else unknownTools.push(name);
  }
  if (unknownTools.length > 0) {
    // Only in read-only mode is a registry name not usable: say so rather than "unknown".
    const why = unknownTools.map((name) =>
      all.some((op) => op.name === name) ? `${name} (changes data; read-only mode offers reads only)` : name,
    );
    throw new ToolSelectionError(
      `unknown tool(s) ${why.join(', ')} (FORGEOPS_TOOLS or --tools); \`forgeops ops\` lists the tools`,
    );
  }
  return { operations: usable.filter((op) => areas.has(op.area) || names.has(op.name)), meta };
}
