// POST /hooks/pipeline on serve's port: the service's Pipeline Hook events (and Deployment events, whose deploy job
// moved its pipeline too), each making the watch of its project check at once (on whichever replica polls it)
// instead of at its next interval. Answered at once, before any check runs;
// a webhook only says "look now", so many for one project within the spacing become one check after it.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { recordWebhook } from '../metrics.js';
import { type Clock, realClock } from '../clock.js';
import { SpacedNudges } from './spaced-nudges.js';

export const PIPELINE_HOOK_PATH = '/hooks/pipeline';
/** A pipeline event with its jobs is a few KiB; far larger is not the service's. */
export const MAX_WEBHOOK_BYTES = 256 * 1024;
const TOKEN_HEADER = 'x-gitlab-token';

interface PipelineWebhookOptions {
  /** FORGEOPS_WEBHOOK_SECRET: the hook's "Secret token" in the service's settings. */
  secret: string;
  /** The hub: `nudge` makes the replica holding a project's lease check it now (its number in digits, else its path). */
  watches: { nudge(project: string): Promise<void> };
  log: Logger;
  maxBytes?: number;
  clock?: Clock;
  /** The least time between two checks of one project that webhooks ask for (FORGEOPS_WEBHOOK_SPACING_MS). */
  spacingMs?: number;
}

/** Compared as digests, so neither the time taken nor a length mismatch tells anything about the secret. */
function sameSecret(given: string, secret: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(secret));
}

function answer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers })
    .end(`${text}\n`);
}

/** The body up to `max` bytes; undefined when it is larger (the rest is not read). */
function readCapped(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** The events that have a watch check now: a pipeline's, and a deployment's (its deploy job moved its pipeline). */
const CHECKED_KINDS = new Set(['pipeline', 'deployment']);

/**
 * The project a Pipeline Hook (or Deployment) event names, by its number when the event carries it (as the service's
 * do: watches are kept by number, so a project renamed since is still the one checked), else its path; undefined for
 * any other event (the service sends every kind it is set to).
 */
export function pipelineEventProject(body: unknown): string | undefined {
  const event = body as { object_kind?: unknown; project?: { id?: unknown; path_with_namespace?: unknown } } | null;
  if (typeof event?.object_kind !== 'string' || !CHECKED_KINDS.has(event.object_kind)) return undefined;
  const id = event.project?.id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return String(id);
  const path = event.project?.path_with_namespace;
  return typeof path === 'string' && path !== '' ? path : undefined;
}

export function pipelineWebhook(options: PipelineWebhookOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const max = options.maxBytes ?? MAX_WEBHOOK_BYTES;
  // After the answer: the service waits for nobody's check, and a slow state store delays no delivery.
  const nudges = new SpacedNudges(
    (project) =>
      void options.watches
        .nudge(project)
        .catch((error: Error) => options.log.warn(`webhook: could not have ${project} checked: ${error.message}`)),
    options.clock ?? realClock,
    options.spacingMs,
  );
  return (req, res) => {
    void handle(req, res).catch((error: Error) => {
      options.log.warn(`webhook: ${error.message}`);
      if (!res.headersSent) answer(res, 400, 'The request could not be read.');
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      answer(res, 405, "Send the service's pipeline events with POST.", { allow: 'POST' });
      return;
    }
    const given = req.headers[TOKEN_HEADER];
    if (typeof given !== 'string' || !sameSecret(given, options.secret)) {
      recordWebhook('unauthorized');
      // Nothing of what was sent is repeated: the answer may be read by whoever guesses.
      answer(res, 401, 'Unauthorized.', { connection: 'close' });
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    const body = declared > max ? undefined : await readCapped(req, max);
    if (!body) {
      recordWebhook('too_large');
      answer(res, 413, `The event is larger than ${max} bytes.`, { connection: 'close' });
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(body.toString('utf8'));
    } catch {
      recordWebhook('malformed');
      answer(res, 400, 'The body is not JSON.');
      return;
    }
    const project = pipelineEventProject(event);
    // Other events are answered 2xx all the same: the service disables a hook that keeps failing.
    if (!project) {
      recordWebhook('ignored');
      answer(res, 200, 'Ignored: not a pipeline or deployment event.');
      return;
    }
    recordWebhook('nudged');
    answer(res, 200, 'OK');
    nudges.ask(project);
  }
}

/** The receiver and where serve mounts it, as the approval page and Slack are mounted. */
export function mountedPipelineWebhook(options: PipelineWebhookOptions) {
  return { path: PIPELINE_HOOK_PATH, handle: pipelineWebhook(options) };
}

/**
 * serve's receiver as configured: none without FORGEOPS_WEBHOOK_SECRET (nobody could tell the service's events from a
 * stranger's), its checks spaced by FORGEOPS_WEBHOOK_SPACING_MS.
 */
export function configuredPipelineWebhook(
  settings: Pick<Config['watch'], 'webhookSecret' | 'webhookSpacingMs'>,
  options: Pick<PipelineWebhookOptions, 'watches' | 'log' | 'clock'>,
) {
  if (!settings.webhookSecret) return undefined;
  return mountedPipelineWebhook({ ...options, secret: settings.webhookSecret, spacingMs: settings.webhookSpacingMs });
}
