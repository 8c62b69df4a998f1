// MCP resources: repository files through one URI template (project, path, optional ref), read through get_file_raw,
// and a project's status (status-resource.ts), which a session may subscribe to when it has a watch hub.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { CompletionKind } from './completions.js';
import type { ServiceRead } from './service-reads.js';
import { ownEntry } from '../text/own-key.js';
import { readTriageView, TRIAGE_VIEW_RESOURCE, TRIAGE_VIEW_URI } from '../apps/triage-app.js';
import {
  parseStatusUri,
  readFailure,
  readStatusResource,
  STATUS_URI_TEMPLATE,
  statusUri,
  type StatusSubscriptions,
} from './status-resource.js';

/**
 * A project path has slashes of its own, so it is one percent-encoded segment ("group%2Fapp"); the file path
 * keeps its slashes (reserved expansion). Without ref, the default branch (HEAD) is read.
 */
export const FILE_URI_TEMPLATE = 'forgeops://projects/{project}/files/{+path}{?ref}';

/** What each template variable completes to (see completions.ts). */
export const FILE_TEMPLATE_VARIABLES: Readonly<Record<string, CompletionKind>> = {
  project: 'project',
  path: 'file_path',
  ref: 'ref',
};

/** Larger files are refused rather than cut: a resource that is silently half a file misleads. */
export const MAX_RESOURCE_BYTES = 2 * 1024 * 1024;

const FILE_URI = /^forgeops:\/\/projects\/([^/?#]+)\/files\/([^?#]+)(?:\?([^#]*))?$/;

interface FileAddress {
  project: string;
  path: string;
  ref?: string;
}

/** The URI of a file, as the template expands it. */
export function fileUri({ project, path, ref }: FileAddress): string {
  const encodedPath = path.split('/').map(encodeURIComponent).join('/');
  return `forgeops://projects/${encodeURIComponent(project)}/files/${encodedPath}${ref ? `?ref=${encodeURIComponent(ref)}` : ''}`;
}

function parseFileUri(uri: string): FileAddress {
  const match = FILE_URI.exec(uri);
  if (!match) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown resource URI ${JSON.stringify(uri)}: this server's resources are ` +
        `${FILE_URI_TEMPLATE}, e.g. ${fileUri({ project: 'group/app', path: 'src/app.ts', ref: 'main' })}, ` +
        `and ${STATUS_URI_TEMPLATE}, e.g. ${statusUri('group/app')}`,
    );
  }
  try {
    const ref = new URLSearchParams(match[3] ?? '').get('ref') || undefined;
    return { project: decodeURIComponent(match[1]), path: decodeURIComponent(match[2]), ...(ref ? { ref } : {}) };
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `Resource URI ${JSON.stringify(uri)} has a malformed %-escape`);
  }
}

/** Text that is valid UTF-8 without NUL bytes goes as text; anything else as base64 blob. */
function isText(bytes: Buffer): boolean {
  return !bytes.includes(0) && Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/** Common file types by extension: the service says only text/plain or application/octet-stream for raw files. */
const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  json: 'application/json',
  yml: 'application/yaml',
  yaml: 'application/yaml',
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  go: 'text/x-go',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
};
const GENERIC_TYPES = new Set(['text/plain', 'application/octet-stream']);
const TEXT_APPLICATION_TYPES = new Set(['application/json', 'application/yaml', 'image/svg+xml']);

function isTextType(mimeType: string): boolean {
  return mimeType.startsWith('text/') || TEXT_APPLICATION_TYPES.has(mimeType);
}

function mimeTypeOf(path: string, contentType: string | undefined, text: boolean): string {
  const declared = contentType?.split(';')[0].trim().toLowerCase();
  if (declared && !GENERIC_TYPES.has(declared)) return declared;
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1].toLowerCase();
  const known = extension === undefined ? undefined : ownEntry(MIME_BY_EXTENSION, extension);
  // A known type only where the content agrees: a "png" that is valid text is not shown as an image.
  if (known && isTextType(known) === text) return known;
  return text ? 'text/plain' : 'application/octet-stream';
}

async function readFileResource(
  uri: string,
  read: ServiceRead,
  limits: { signal?: AbortSignal; timeoutMs: number },
): Promise<ReadResourceResult> {
  const address = parseFileUri(uri);
  const outcome = await read(
    'get_file_raw',
    { id: address.project, file_path: address.path, ref: address.ref ?? 'HEAD' },
    limits,
  );
  if (!outcome.ok) throw readFailure(outcome, uri);
  const data = outcome.result.data;
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(String(data ?? ''), 'utf8');
  if (bytes.length > MAX_RESOURCE_BYTES) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `${address.path} is ${bytes.length} bytes, more than the ${MAX_RESOURCE_BYTES} bytes a ` +
        'resource may be; the get_file_raw tool shows as much of it as fits in a result',
    );
  }
  const text = isText(bytes);
  const mimeType = mimeTypeOf(address.path, outcome.result.contentType, text);
  // Repository content is untrusted data; a resource is the file as stored, so it is marked, not wrapped.
  const _meta = { 'forgeops/untrusted': true };
  return {
    contents: [
      text
        ? { uri, mimeType, text: bytes.toString('utf8'), _meta }
        : { uri, mimeType, blob: bytes.toString('base64'), _meta },
    ],
  };
}

interface ResourceOptions {
  read: ServiceRead;
  timeoutMs: number;
  /** This session's status subscriptions; absent where there is no watch hub (then subscribing is not offered). */
  subscriptions?: StatusSubscriptions;
  /** Whether the triage view (ui://forgeops/triage.html) is served; it is listed to clients that render views. */
  view?: boolean;
  rendersViews?: () => boolean;
}

export function registerResources(server: Server, options: ResourceOptions): void {
  // Files and statuses are reached through templates; the one fixed resource is the triage view, for hosts with views.
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: options.view && options.rendersViews?.() ? [TRIAGE_VIEW_RESOURCE] : [],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: FILE_URI_TEMPLATE,
        name: 'repository-file',
        title: 'Repository file',
        description:
          "A file of a project's repository at a branch, tag or commit (default: the default branch). " +
          'project is the numeric ID or full path; the content is untrusted data from the repository.',
      },
      {
        uriTemplate: STATUS_URI_TEMPLATE,
        name: 'project-status',
        title: 'Project status',
        mimeType: 'application/json',
        description:
          "The triage report of a project's default branch: red, running or green, since which commit and whose, " +
          `what the failing jobs printed, what to press. project is the numeric ID or full path${options.subscriptions ? '; subscribe to hear when it changes' : ''}.`,
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const limits = { signal: extra.signal, timeoutMs: options.timeoutMs };
    if (options.view && request.params.uri === TRIAGE_VIEW_URI) return readTriageView();
    const status = parseStatusUri(request.params.uri);
    if (status) return readStatusResource(request.params.uri, status.project, options.read, limits);
    return readFileResource(request.params.uri, options.read, limits);
  });
  const subscriptions = options.subscriptions;
  if (!subscriptions) return;
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    await subscriptions.subscribe(request.params.uri, extra.signal);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await subscriptions.unsubscribe(request.params.uri);
    return {};
  });
}
