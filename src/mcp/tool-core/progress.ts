// Progress notifications for one tool call, when the client asked for them (a progressToken): retries, pages, and a
// heartbeat while it waits, so a client that resets its timeout on progress keeps waiting and a person sees why.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ProgressEvent } from '../../http/types.js';

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface Progress {
  /** What the call waits for now, said by the heartbeat. */
  phase(text: string): void;
  event(event: ProgressEvent): void;
  stop(): void;
}

export function progressReporter(extra: CallExtra, intervalMs: number, status?: (message: string) => void): Progress {
  const token = extra._meta?.progressToken;
  const started = Date.now();
  let progress = 0;
  let phase = 'waiting for the service';
  const send = (message: string) => {
    if (token === undefined) return;
    progress += 1;
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
      .catch(() => undefined);
  };
  const heartbeat =
    token === undefined
      ? undefined
      : setInterval(() => send(`${phase} (${Math.round((Date.now() - started) / 1000)} s)`), intervalMs);
  heartbeat?.unref();
  return {
    phase(text) {
      phase = text;
    },
    event(event) {
      const message =
        event.kind === 'retry'
          ? `retry ${event.retry} in ${Math.ceil(event.waitMs / 1000)} s after: ${event.reason}`
          : event.kind === 'poll'
            ? `check ${event.polls}: ${event.message}`
            : `read page ${event.pages} (${event.items} results so far)`;
      // A task's status line shows what happened last, not the heartbeat's clock.
      status?.(message);
      send(message);
    },
    stop() {
      if (heartbeat) clearInterval(heartbeat);
    },
  };
}
