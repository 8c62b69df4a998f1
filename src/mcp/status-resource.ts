// A project's status as an MCP resource: the triage report of its default branch, read as the session reads, and
// subscriptions that tell the client when it changes (through the watch hub, which polls or hears webhooks).
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import type { CompletionKind } from './completions.js';
import type { ReadOutcome, ServiceRead } from './service-reads.js';

/** The project is one percent-encoded segment ("group%2Fapp"), as in the file resources. */
export const STATUS_URI_TEMPLATE = 'forgeops://projects/{project}/status';

export const STATUS_TEMPLATE_VARIABLES: Readonly<Record<string, CompletionKind>> = { project: 'project' };

/** Statuses one session may follow at once: each keeps a watch of a branch running while it lasts. */
export const MAX_STATUS_SUBSCRIPTIONS = 20;

/**
 * Changes heard this close together make one notification: a check that tells a transition is heard twice (the
 * transition, then the new pipeline), and each notification costs the client a triage read.
 */
export const NOTIFY_COALESCE_MS = 200;

/** JSON-RPC code the MCP spec gives to a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

const STATUS_URI = /^forgeops:\/\/projects\/([^/?#]+)\/status$/;

export function statusUri(project: string): string {
  return `forgeops://projects/${encodeURIComponent(project)}/status`;
}

/** The project of a status URI; undefined when the URI is not one (it may be a file URI, or nothing of ours). */
export function parseStatusUri(uri: string): { project: string } | undefined {
  const match = STATUS_URI.exec(uri);
  if (!match) return undefined;
  try {
    return { project: decodeURIComponent(match[1]) };
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `Resource URI ${JSON.stringify(uri)} has a malformed %-escape`);
  }
}

/** A failed read in the service's own words: a project the session cannot see is a resource that does not exist. */
export function readFailure(outcome: Extract<ReadOutcome, { ok: false }>, uri: string): McpError {
  const notFound = (outcome.error as { status?: unknown } | undefined)?.status === 404;
  return new McpError(notFound ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, outcome.message, { uri });
}

type Limits = { signal?: AbortSignal; timeoutMs: number };

/** A project as a watch knows it: its number (what the watch is kept by) and its full path (what it shows). */
export interface WatchedProject {
  id: number;
  path: string;
}

/**
 * Reads the project as the session does first: triage tells an unreadable project as a line of its report, while
 * a client that may not see the project must get the service's refusal. Returns its number and full path, which a
 * watch knows it by however the URI names it (its path in any case, its number, a path it had before a rename); the
 * name as given when the service sends neither.
 */
async function checkReadable(
  project: string,
  uri: string,
  read: ServiceRead,
  limits: Limits,
): Promise<WatchedProject | string> {
  const outcome = await read('get_project', { id: project }, limits);
  if (!outcome.ok) throw readFailure(outcome, uri);
  const data = outcome.result.data as { id?: unknown; path_with_namespace?: unknown } | undefined;
  const path = data?.path_with_namespace;
  if (typeof path !== 'string' || path === '') return project;
  return typeof data?.id === 'number' ? { id: data.id, path } : path;
}

export async function readStatusResource(
  uri: string,
  project: string,
  read: ServiceRead,
  limits: Limits,
): Promise<ReadResourceResult> {
  await checkReadable(project, uri, read, limits);
  const outcome = await read('triage_project', { id: project }, limits);
  if (!outcome.ok) throw readFailure(outcome, uri);
  // Commit titles, job logs and names in the report come from the repository and its people: untrusted data.
  return {
    contents: [
      {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify(outcome.result.data),
        _meta: { 'forgeops/untrusted': true },
      },
    ],
  };
}

/** What a session needs of the watch hub: to hear a project's changes while it listens. */
export interface StatusWatches {
  /** A project named by its number and path, or by a name the hub resolves. */
  listen(project: WatchedProject | string, listener: () => void): Promise<() => Promise<void>>;
}

interface StatusSubscriptionOptions {
  /** The hub, made on first need where that costs (stdio). */
  watches: () => Promise<StatusWatches>;
  read: ServiceRead;
  timeoutMs: number;
  /** Sends notifications/resources/updated for a URI to this session's client. */
  notify: (uri: string) => Promise<void>;
  log: Logger;
  max?: number;
}

type Stop = () => Promise<void>;

/** One session's status subscriptions, by the URI as the client wrote it (the URI its notifications name). */
export class StatusSubscriptions {
  /** Each entry is set before its listening starts, so the cap and a concurrent unsubscribe see it at once. */
  private readonly active = new Map<string, Promise<Stop>>();
  /** URIs whose notification is waiting out NOTIFY_COALESCE_MS. */
  private readonly due = new Set<string>();
  private closed = false;

  constructor(private readonly o: StatusSubscriptionOptions) {}

  get size(): number {
    return this.active.size;
  }

  /** Subscribes to a status URI; a file URI, an unknown URI, an unreadable project or one too many is refused. */
  async subscribe(uri: string, signal?: AbortSignal): Promise<void> {
    const address = subscribable(uri);
    if (this.closed) throw new McpError(ErrorCode.InvalidRequest, 'This session is closing');
    if (this.active.has(uri)) return;
    const max = this.o.max ?? MAX_STATUS_SUBSCRIPTIONS;
    if (this.active.size >= max) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `This session already follows ${max} statuses, the most it may; unsubscribe from one first`,
      );
    }
    const started = this.start(uri, address.project, signal);
    this.active.set(uri, started);
    try {
      await started;
    } catch (error) {
      if (this.active.get(uri) === started) this.active.delete(uri);
      throw error;
    }
  }

  /** Stops following a URI; one not followed is no error (the client may have raced its own unsubscribe). */
  async unsubscribe(uri: string): Promise<void> {
    const entry = this.active.get(uri);
    if (!entry) return;
    this.active.delete(uri);
    await stopWhenStarted(entry);
  }

  /** The session ended: every listener leaves the hub. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.active.values()];
    this.active.clear();
    await Promise.all(entries.map(stopWhenStarted));
  }

  private async start(uri: string, project: string, signal?: AbortSignal): Promise<Stop> {
    const readable = await checkReadable(project, uri, this.o.read, { signal, timeoutMs: this.o.timeoutMs });
    const hub = await this.o.watches();
    try {
      return await hub.listen(readable, () => this.changed(uri));
    } catch (error) {
      // The hub's cap on branches watched in all, or its store failing: the client is told in those words.
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Cannot follow the status of ${project}: ${(error as Error).message}`,
      );
    }
  }

  private changed(uri: string): void {
    if (this.due.has(uri)) return;
    this.due.add(uri);
    const timer = setTimeout(() => {
      this.due.delete(uri);
      // Unsubscribed (or the session closed) meanwhile: nothing is owed any more.
      if (!this.active.has(uri)) return;
      this.o
        .notify(uri)
        .catch((error: Error) => this.o.log.debug(`mcp: could not tell the client ${uri} changed: ${error.message}`));
    }, NOTIFY_COALESCE_MS);
    timer.unref();
  }
}

async function stopWhenStarted(entry: Promise<Stop>): Promise<void> {
  const stop = await entry.catch(() => undefined);
  await stop?.();
}

/** The project of a URI that can be subscribed to, or the reason it cannot. */
function subscribable(uri: string): { project: string } {
  const address = parseStatusUri(uri);
  if (address) return address;
  const example = statusUri('group/app');
  if (uri.startsWith('forgeops://projects/') && uri.includes('/files/')) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `A file resource sends no updates: read it again when needed. Only a project's status ` +
        `can be subscribed to, ${STATUS_URI_TEMPLATE}, e.g. ${example}`,
    );
  }
  throw new McpError(
    ErrorCode.InvalidParams,
    `Unknown resource URI ${JSON.stringify(uri)}: only a project's status can be subscribed ` +
      `to, ${STATUS_URI_TEMPLATE}, e.g. ${example}`,
  );
}
