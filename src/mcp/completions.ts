// Argument completion (completion/complete) for prompt arguments and resource template variables, answered from
// the service: project paths, branches and tags, pipeline ids, file paths and usernames.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CompleteRequestSchema, type CompleteResult, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { itemsOf, type ServiceRead } from './service-reads.js';

/** The protocol's own limit on one answer. */
export const MAX_COMPLETION_VALUES = 100;
/** A completion answers a person typing: if the service is slower than this, they get nothing rather than a wait. */
export const COMPLETION_TIMEOUT_MS = 5_000;
/**
 * Completions of one session being answered at once. A client asks on every keystroke and each answer costs up to
 * three service reads: past this, a request is answered empty at once rather than queued against the service.
 */
export const MAX_CONCURRENT_COMPLETIONS = 4;
/** Items asked of the service per list read: one page, the most the service gives at once. */
const PAGE = 100;

export type CompletionKind = 'project' | 'ref' | 'pipeline' | 'file_path' | 'user';

/** What a completer found: candidate values, and whether that is all the service has (no further page). */
interface Candidates {
  values: string[];
  complete: boolean;
}

interface CompletionInput {
  prefix: string;
  /** The other arguments already chosen (context.arguments): the project whose branches to offer, say. */
  context: Record<string, string>;
  read: ServiceRead;
  limits: { signal?: AbortSignal; timeoutMs: number };
}

type Completer = (input: CompletionInput) => Promise<Candidates>;

const NONE: Candidates = { values: [], complete: true };
const EMPTY: CompleteResult['completion'] = { values: [], total: 0, hasMore: false };

/** One list read → values; a failed read offers nothing (the person can still type the value). */
async function listValues(
  input: CompletionInput,
  name: string,
  args: Record<string, unknown>,
  value: (item: Record<string, unknown>) => unknown,
): Promise<Candidates> {
  const outcome = await input.read(name, { ...args, per_page: PAGE }, input.limits);
  if (!outcome.ok) return NONE;
  const items = itemsOf(outcome.result);
  const values = items
    .map(value)
    .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
    .map(String);
  return { values, complete: items.length < PAGE };
}

function startsWithFolded(value: string, prefix: string): boolean {
  return value.toLowerCase().startsWith(prefix.toLowerCase());
}

const projectPaths: Completer = async (input) => {
  // The service searches names and paths, not "group/sub/app" as a whole: search by what follows the last slash.
  const term = input.prefix.slice(input.prefix.lastIndexOf('/') + 1);
  const args = term ? { search: term, simple: true } : { simple: true, order_by: 'last_activity_at' };
  const found = await listValues(input, 'list_projects', args, (p) => p.path_with_namespace);
  // "app" finds "group/app" too: people type the name they know, not always the namespace.
  const matching = found.values.filter(
    (path) =>
      startsWithFolded(path, input.prefix) ||
      (!input.prefix.includes('/') && path.split('/').some((segment) => startsWithFolded(segment, input.prefix))),
  );
  // Whole-path matches first, in the service's order.
  matching.sort((a, b) => Number(startsWithFolded(b, input.prefix)) - Number(startsWithFolded(a, input.prefix)));
  return { values: matching, complete: found.complete };
};

/**
 * The API has no branch or tag list, so refs come from three reads: the branches and tags containing the default
 * branch's tip (the default branch among them), release tags, and the refs pipelines ran for.
 */
const refs: Completer = async (input) => {
  const id = input.context.project;
  if (!id) return NONE;
  const found = await Promise.all([
    listValues(input, 'list_commit_refs', { id, sha: 'HEAD' }, (r) => r.name),
    listValues(input, 'list_releases', { id }, (r) => r.tag_name),
    listValues(input, 'list_pipelines', { id }, (p) => p.ref),
  ]);
  return { values: found.flatMap((f) => f.values), complete: false };
};

const pipelineIds: Completer = async (input) => {
  const id = input.context.project;
  if (!id) return NONE;
  return listValues(input, 'list_pipelines', { id }, (p) => p.id);
};

/** One directory at a time, the one the typed path is in: cheap, and what a person types next. */
const filePaths: Completer = async (input) => {
  const id = input.context.project;
  if (!id) return NONE;
  const directory = input.prefix.slice(0, Math.max(0, input.prefix.lastIndexOf('/')));
  const args = {
    id,
    ...(directory ? { path: directory } : {}),
    ...(input.context.ref ? { ref: input.context.ref } : {}),
  };
  return listValues(input, 'list_repository_tree', args, (entry) =>
    typeof entry.path === 'string' ? (entry.type === 'tree' ? `${entry.path}/` : entry.path) : undefined,
  );
};

const usernames: Completer = async (input) =>
  listValues(input, 'list_users', input.prefix ? { search: input.prefix } : {}, (u) => u.username);

const COMPLETERS: Record<CompletionKind, Completer> = {
  project: projectPaths,
  ref: refs,
  pipeline: pipelineIds,
  file_path: filePaths,
  user: usernames,
};

/** Candidates → the answer: typed prefix kept, duplicates dropped, at most MAX_COMPLETION_VALUES. */
function completionAnswer(found: Candidates, prefix: string, prefiltered = false): CompleteResult['completion'] {
  const matching = [...new Set(found.values)].filter((value) => prefiltered || startsWithFolded(value, prefix));
  const values = matching.slice(0, MAX_COMPLETION_VALUES);
  const hasMore = matching.length > values.length || !found.complete;
  return { values, ...(found.complete ? { total: matching.length } : {}), hasMore };
}

/** Values for one argument; never throws: a completion that fails is an empty list, not an error in a person's face. */
async function completeArgument(
  kind: CompletionKind,
  input: CompletionInput,
  log: Logger,
): Promise<CompleteResult['completion']> {
  try {
    const found = await COMPLETERS[kind](input);
    return completionAnswer(found, input.prefix, kind === 'project');
  } catch (error) {
    log.debug(`mcp completion of ${kind} failed: ${(error as Error).message}`);
    return EMPTY;
  }
}

/** Which kind of value an argument takes: of a prompt (by name) or of a resource template (by its URI template). */
export type CompletionLookup = (
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
  argument: string,
) => CompletionKind | undefined;

export function registerCompletions(
  server: Server,
  options: { lookup: CompletionLookup; read: ServiceRead; timeoutMs: number; log: (requestId: RequestId) => Logger },
): void {
  let inFlight = 0;
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref, argument, context } = request.params;
    const kind = options.lookup(ref, argument.name);
    // An argument we do not know (another server's prompt, a free-text argument) has no suggestions: an empty
    // list, so a client that asks on every keystroke is not answered with errors.
    if (!kind) return { completion: EMPTY };
    // The person has typed on since the answers still pending were asked for: they are what is stale, not this.
    if (inFlight >= MAX_CONCURRENT_COMPLETIONS) return { completion: { ...EMPTY, hasMore: true } };
    inFlight += 1;
    try {
      const completion = await completeArgument(
        kind,
        {
          prefix: argument.value,
          context: context?.arguments ?? {},
          read: options.read,
          limits: { signal: extra.signal, timeoutMs: options.timeoutMs },
        },
        options.log(extra.requestId),
      );
      return { completion };
    } finally {
      inFlight -= 1;
    }
  });
}
