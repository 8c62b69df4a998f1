// Sending hook events: each hook has its own queue, sent in order one at a time, so a receiver sees a pipeline's
// statuses in the order they happened. Sending never holds up the request whose change caused the event; each POST
// has a deadline and a failure is only noted on the hook (its last delivery), not logged. Bounded: a hook keeps at
// most QUEUE_LIMIT events waiting (the oldest go first), and closing the sandbox stops every delivery at once.
// A hook's test is the one event sent at once, outside the queue, with the receiver's answer given back.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ProjectHook } from './state.js';

const DELIVERY_TIMEOUT_MS = 5000;
const QUEUE_LIMIT = 50;
/** What of a receiver's answer is kept to say why it refused an event. */
const ANSWER_LIMIT = 4096;

/** A receiver's answer to one event: its status and the start of its body. */
interface Answer {
  status: number;
  body: string;
}

/** How a test event went: whether the receiver took it (a 2xx), and otherwise why not, in words. */
export type TestDelivery = { ok: true; status: number } | { ok: false; message: string };

interface Pending {
  event: string;
  body: Promise<unknown>;
}

export class HookDeliveries {
  private readonly queues = new Map<ProjectHook, Pending[]>();
  private readonly sending = new Set<ProjectHook>();
  private readonly inFlight = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly instanceUrl: () => string,
    private readonly now: () => number,
  ) {}

  /** Queues an event for the hook; `body` may still be in the making (its commit read). */
  enqueue(hook: ProjectHook, event: string, body: Promise<unknown>): void {
    if (this.closed) return;
    const queue = this.queues.get(hook) ?? [];
    queue.push({ event, body });
    if (queue.length > QUEUE_LIMIT) queue.shift();
    this.queues.set(hook, queue);
    if (!this.sending.has(hook)) void this.drain(hook);
  }

  /**
   * Sends one event now, outside the hook's queue, and waits for the receiver's answer (within the delivery
   * deadline): how a hook's test goes. A 2xx took it; otherwise the message is the receiver's body (what the
   * service answers with), its status when the body is empty, or why no answer came (refused, timed out).
   */
  async sendNow(hook: ProjectHook, event: string, body: unknown): Promise<TestDelivery> {
    if (this.closed) return { ok: false, message: 'the sandbox is closing' };
    const at = new Date(this.now());
    try {
      const answer = await this.post(hook, event, JSON.stringify(body));
      hook.last_delivery = { at, event, status: answer.status, error: null };
      if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
      const said = answer.body.trim();
      return { ok: false, message: said || `${answer.status} ${STATUS_CODES[answer.status] ?? 'Unknown'}` };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      hook.last_delivery = { at, event, status: null, error: message };
      return { ok: false, message: `Failed to reach ${new URL(hook.url).host}: ${message}` };
    }
  }

  /** Stops sending: what is in flight is aborted, what waits is dropped. */
  close(): void {
    this.closed = true;
    this.queues.clear();
    for (const abort of this.inFlight) abort();
  }

  private async drain(hook: ProjectHook): Promise<void> {
    this.sending.add(hook);
    try {
      for (let next = this.queues.get(hook)?.shift(); next && !this.closed; next = this.queues.get(hook)?.shift()) {
        const json = JSON.stringify(await next.body);
        if (this.closed) return;
        const at = new Date(this.now());
        try {
          const { status } = await this.post(hook, next.event, json);
          hook.last_delivery = { at, event: next.event, status, error: null };
        } catch (error) {
          hook.last_delivery = {
            at,
            event: next.event,
            status: null,
            error: error instanceof Error ? error.message : String(error),
          };
        }
      }
    } finally {
      this.sending.delete(hook);
      if (this.queues.get(hook)?.length === 0) this.queues.delete(hook);
    }
  }

  /** One POST: the receiver's answer, or an error when it did not answer in time or could not be reached. */
  private post(hook: ProjectHook, event: string, json: string): Promise<Answer> {
    const url = new URL(hook.url);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(json)),
      'User-Agent': 'GitLab/sandbox',
      'X-Gitlab-Event': event,
      'X-Gitlab-Event-UUID': randomUUID(),
      'X-Gitlab-Instance': this.instanceUrl(),
    };
    if (hook.token) headers['X-Gitlab-Token'] = hook.token;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Answer>((resolve, reject) => {
      // No keep-alive (agent: false): a delivery leaves no connection open behind it.
      const req = send(
        url,
        { method: 'POST', headers, agent: false, rejectUnauthorized: hook.enable_ssl_verification },
        (res: IncomingMessage) => {
          // The start of the body is kept (a refusal's reason); the rest is read and dropped.
          const kept: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < ANSWER_LIMIT) kept.push(chunk.subarray(0, ANSWER_LIMIT - size));
            size += chunk.length;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(kept).toString('utf8') }));
          res.on('error', reject);
        },
      );
      const abort = (reason: string) => req.destroy(new Error(reason));
      const timer = setTimeout(() => abort(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`), DELIVERY_TIMEOUT_MS);
      timer.unref();
      const stop = () => abort('the sandbox closed');
      this.inFlight.add(stop);
      req.on('close', () => {
        clearTimeout(timer);
        this.inFlight.delete(stop);
      });
      req.on('error', reject);
      req.end(json);
    });
  }
}
