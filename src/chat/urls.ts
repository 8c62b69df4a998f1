// Links pasted from the service's web pages (pipelines, commits, files, releases, issues, …) read as the fields they name.
import { ChatError } from './errors.js';

/** What a link points at, in the service's own terms. */
export interface LinkTarget {
  /** Full path of the project, e.g. "acme/platform/payments-api". */
  project: string;
  sha?: string;
  ref?: string;
  path?: string;
  pipeline_id?: number;
  tag_name?: string;
  issue_iid?: number;
  merge_request_iid?: number;
}

// Slack wraps links as <https://…> or <https://…|label>.
const SLACK_LINK = /^<(https?:\/\/[^|>]+)(?:\|[^>]*)?>$/i;

export function looksLikeUrl(text: string): boolean {
  return /^<?https?:\/\//i.test(text);
}

function numberOf(segment: string | undefined): number | undefined {
  return segment !== undefined && /^\d+$/.test(segment) ? Number(segment) : undefined;
}

function joined(segments: string[]): string | undefined {
  return segments.length > 0 ? segments.join('/') : undefined;
}

/** The page a link's segments after "/-/" name. A ref with a slash is ambiguous in these links; its first segment is taken. */
function pageTarget(page: string | undefined, rest: string[]): Omit<LinkTarget, 'project'> {
  switch (page) {
    case 'pipelines':
      return { pipeline_id: numberOf(rest[0]) };
    case 'commit':
      return { sha: rest[0] };
    case 'commits':
    case 'blob':
    case 'raw':
    case 'tree':
      return { ref: rest[0], path: joined(rest.slice(1)) };
    case 'releases':
    case 'tags':
      return { tag_name: joined(rest) };
    case 'issues':
      return { issue_iid: numberOf(rest[0]) };
    case 'merge_requests':
      return { merge_request_iid: numberOf(rest[0]) };
    default:
      return {};
  }
}

/**
 * What a link names. With `baseUrl`, only links to that service are read (anything else is an error); without it,
 * any host is taken to be the service. Returns undefined when `text` is not a link at all.
 */
export function readServiceUrl(text: string, baseUrl?: string): LinkTarget | undefined {
  if (!looksLikeUrl(text)) return undefined;
  const raw = SLACK_LINK.exec(text)?.[1] ?? text;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ChatError(`${raw} is not a valid link.`);
  }
  let pathname = url.pathname;
  if (baseUrl) {
    const base = new URL(baseUrl);
    const basePath = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || !(pathname === basePath || pathname.startsWith(`${basePath}/`))) {
      throw new ChatError(`${raw} is not a link to ${base.origin}${basePath}.`);
    }
    pathname = pathname.slice(basePath.length);
  }
  let segments: string[];
  try {
    segments = pathname
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
  } catch {
    throw new ChatError(`${raw} is not a valid link.`);
  }
  const dash = segments.indexOf('-');
  const projectSegments = dash < 0 ? segments : segments.slice(0, dash);
  // A clone URL (…/web.git) names the project too.
  const project = projectSegments.join('/').replace(/\.git$/, '');
  if (!project) throw new ChatError(`${raw} names no project.`);
  const target = dash < 0 ? {} : pageTarget(segments[dash + 1], segments.slice(dash + 2));
  const defined = Object.entries(target).filter(([, v]) => v !== undefined);
  return { project, ...Object.fromEntries(defined) };
}

/** Which input field of an operation each part of a link fills, in order of preference. */
const FIELDS_FOR: Record<keyof LinkTarget, string[]> = {
  project: ['id'],
  sha: ['sha'],
  // A link to a file or tree at "main" means that branch: the one to read, list, or commit to.
  ref: ['ref', 'ref_name', 'sha', 'branch'],
  path: ['file_path', 'path'],
  pipeline_id: ['pipeline_id'],
  tag_name: ['tag_name'],
  issue_iid: ['issue_iid'],
  merge_request_iid: ['merge_request_iid'],
};

/** The input a link gives an operation with these fields: only fields it has, each filled once. */
export function linkInput(target: LinkTarget, fieldNames: ReadonlySet<string>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [part, value] of Object.entries(target) as Array<[keyof LinkTarget, unknown]>) {
    const field = FIELDS_FOR[part].find((name) => fieldNames.has(name) && !(name in input));
    if (field) input[field] = value;
  }
  return input;
}

/** A link to what `target` names (the inverse of readServiceUrl), for help examples; only its most specific page. */
export function serviceUrl(baseUrl: string, target: LinkTarget): string {
  const { project, sha, ref, path, pipeline_id, tag_name, issue_iid, merge_request_iid } = target;
  const page =
    pipeline_id !== undefined
      ? `pipelines/${pipeline_id}`
      : issue_iid !== undefined
        ? `issues/${issue_iid}`
        : merge_request_iid !== undefined
          ? `merge_requests/${merge_request_iid}`
          : tag_name !== undefined
            ? `releases/${tag_name}`
            : sha !== undefined
              ? `commit/${sha}`
              : ref !== undefined
                ? `${path !== undefined ? 'blob' : 'tree'}/${ref}${path !== undefined ? `/${path}` : ''}`
                : undefined;
  return `${baseUrl.replace(/\/+$/, '')}/${project}${page ? `/-/${page}` : ''}`;
}
