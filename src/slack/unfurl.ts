// Unfurls: which registry read a pasted service link stands for (pipeline, commit, file, release), and the rule for
// what may be shown: an unfurl is seen by everyone in the conversation, so only what is public on the service.
import type { ChatReply } from '../chat/dispatch.js';
import { readServiceUrl } from '../chat/urls.js';
import { asList } from '../operations/engine/present.js';

/** Links unfurled from one message at most (Slack sends a handful; each costs service calls). */
export const MAX_UNFURLS = 5;

interface UnfurlCall {
  /** The link exactly as Slack sent it: chat.unfurl keys its answer by it. */
  url: string;
  project: string;
  operation: string;
  input: Record<string, unknown>;
}

/**
 * The read a link of the service stands for, or undefined for a link to anything else (another host, a project
 * page, an issue: those are not unfurled). A file link reads the file's metadata, not its content: a preview in a
 * channel names the file and its last commit; the content is one click (or `/forge file get`) away.
 */
export function unfurlCall(url: string, baseUrl: string): UnfurlCall | undefined {
  let target: ReturnType<typeof readServiceUrl>;
  try {
    target = readServiceUrl(url, baseUrl);
  } catch {
    return undefined;
  }
  if (!target) return undefined;
  const { project } = target;
  const id = { id: project };
  const call = (operation: string, input: Record<string, unknown>) => ({
    url,
    project,
    operation,
    input: { ...id, ...input },
  });
  if (target.pipeline_id !== undefined) return call('get_pipeline', { pipeline_id: target.pipeline_id });
  if (target.sha !== undefined) return call('get_commit', { sha: target.sha });
  if (target.tag_name !== undefined) return call('get_release', { tag_name: target.tag_name });
  if (target.ref !== undefined && target.path !== undefined)
    return call('get_file_metadata', { file_path: target.path, ref: target.ref });
  return undefined;
}

/** Runs a registry call as the one who shared the link (the dispatcher's `call`). */
export type CallAs = (operation: string, args: Record<string, unknown>) => Promise<ChatReply>;

/**
 * Whether a project is public on the service, asked as the sharer: among the public projects matching its name, the
 * one with exactly its path. The rule: the sharer must be able to read it (the call runs with their token) AND it must
 * be public, because everyone in the conversation sees the unfurl and forgeops cannot know who of them may read a
 * private or internal project. Anything it cannot establish counts as not public.
 */
export async function isPublicProject(project: string, callAs: CallAs): Promise<boolean> {
  const search = project.split('/').at(-1);
  if (!search) return false;
  const reply = await callAs('list_projects', { search, visibility: 'public', simple: true, per_page: 100 });
  if (reply.kind !== 'message' || !reply.outcome?.ok) return false;
  return asList(reply.outcome.result.data).some(
    (p) => typeof p.path_with_namespace === 'string' && p.path_with_namespace.toLowerCase() === project.toLowerCase(),
  );
}
