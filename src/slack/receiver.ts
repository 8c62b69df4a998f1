// The HTTP transport of the Slack bot: POST /slack/events only, body capped, signature and timestamp checked before
// anything runs (401 otherwise); a command, a button or an event is answered 200 at once and handed to Bolt's router
// once that answer is out; a form's submission waits for its listener's ack(), which may carry the form's answer.
import { createListener, readBoundedBody } from '../http/listener.js';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { answerHealth, type ReadinessProbe } from '../health.js';
import { answerMetrics } from '../metrics.js';
import type { AddressInfo } from 'node:net';
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../log.js';
import { prepareFetch } from './replies.js';
import { signatureOf, verifySlackSignature } from './signature.js';

export const EVENTS_PATH = '/slack/events';
/** Slack's payloads are small; a view submission with a long release note is the largest we expect. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Slack gives up after 3 s; a handler that has not acked by then gets an empty 200 so Slack does not retry. */
const ACK_DEADLINE_MS = 2_500;

/** The warm-up request at start is given this long; a start is not held up longer by it. */
const WARM_UP_TIMEOUT_MS = 2_000;
/** Work waits until no Slack request has come in for this long, so that a burst is answered before it is worked on. */
const BURST_QUIET_MS = 3;
/** Nor longer than this after the first of it was answered: under steady traffic the work goes on all the same. */
const BURST_MAX_HOLD_MS = 50;

/**
 * Holds the work of answered requests while more requests keep arriving: a listener's first steps (Bolt's routing,
 * the command's parsing, the first use of an operation's schema) run on the one thread that also reads and answers
 * the rest of a burst, and would stand between those requests and their 200s.
 */
class AfterTheBurst {
  private readonly waiting: Array<() => void> = [];
  private lastArrival = 0;
  private firstWaiting = 0;
  private timer?: NodeJS.Timeout;

  arrived(): void {
    this.lastArrival = performance.now();
  }

  run(work: () => void): void {
    if (this.waiting.length === 0) this.firstWaiting = performance.now();
    this.waiting.push(work);
    this.timer ??= setTimeout(() => this.release(), BURST_QUIET_MS);
  }

  private release(): void {
    this.timer = undefined;
    const now = performance.now();
    const quietFor = now - this.lastArrival;
    if (quietFor < BURST_QUIET_MS && now - this.firstWaiting < BURST_MAX_HOLD_MS) {
      this.timer = setTimeout(() => this.release(), BURST_QUIET_MS - quietFor);
      return;
    }
    // One per turn of the event loop, so that a request arriving now is read between two of them.
    for (const work of this.waiting.splice(0)) setImmediate(work);
  }
}

interface HttpReceiverOptions {
  /** What /readyz checks on the bot's own port. */
  readiness?: ReadinessProbe;
  signingSecret: string;
  log: Logger;
  /** The clock for the timestamp window (tests move it). */
  now?: () => number;
  /** Browser pages on the same port (Connect links and the sign-in callback); true when one answered. */
  pages?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

class PayloadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const body = await readBoundedBody(req, MAX_BODY_BYTES);
  if (!body) throw new PayloadError(413, 'request body too large');
  return body;
}

/** Slack sends commands and interactions as a form (interactions as one JSON `payload` field), events as JSON. */
function parseSlackBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if ((contentType ?? '').startsWith('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const form = Object.fromEntries(new URLSearchParams(raw));
  if (typeof form.payload === 'string') return JSON.parse(form.payload) as Record<string, unknown>;
  return form;
}

/**
 * Whether Slack's request is answered by an empty 200 whatever its listener does: a slash command, a button (block
 * action) or an event. A form's submission is not: its ack carries the form's errors or its next view.
 */
function ackedEmpty(body: Record<string, unknown>): boolean {
  if (typeof body.command === 'string') return true;
  return body.type === 'block_actions' || body.type === 'event_callback';
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (res.headersSent) return;
  if (body === undefined || body === '') {
    res.writeHead(status).end();
  } else if (typeof body === 'string') {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
  } else {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
  }
}

export class SlackHttpReceiver implements Receiver {
  private app?: App;
  private server?: Server;
  private readonly burst = new AfterTheBurst();

  constructor(private readonly options: HttpReceiverOptions) {}

  init(app: App): void {
    this.app = app;
    // Mounted under forgeops serve, start() is never called: the first reply's fetch is readied from here instead.
    void prepareFetch();
  }

  /** A plain Node request listener, so another server (forgeops serve) can mount the same endpoint. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    void this.dispatch(req, res).catch((error: unknown) => {
      const status = error instanceof PayloadError ? error.status : 500;
      if (status === 500) this.options.log.error(`slack: ${(error as Error).message}`);
      send(res, status, error instanceof PayloadError ? error.message : 'internal error');
    });
  };

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (path !== EVENTS_PATH) {
      if (this.options.pages && (await this.options.pages(req, res))) return;
      return send(res, 404, 'not found');
    }
    if (req.method !== 'POST') return send(res, 405, 'only POST');
    this.burst.arrived();
    const raw = await readBody(req);
    const verdict = verifySlackSignature(
      this.options.signingSecret,
      {
        body: raw,
        timestamp: header(req, 'x-slack-request-timestamp'),
        signature: header(req, 'x-slack-signature'),
      },
      (this.options.now ?? Date.now)(),
    );
    if (!verdict.ok) {
      this.options.log.warn(`slack: refused a request: ${verdict.reason}`);
      return send(res, 401, 'invalid request signature');
    }
    let body: Record<string, unknown>;
    try {
      body = parseSlackBody(raw.toString('utf8'), header(req, 'content-type'));
    } catch {
      throw new PayloadError(400, 'malformed body');
    }
    if (body.ssl_check) return send(res, 200);
    if (body.type === 'url_verification') return send(res, 200, { challenge: body.challenge });
    if (!this.app) throw new Error('the Slack receiver was not initialised');
    const retry = header(req, 'x-slack-retry-num');
    const delivery = {
      retryNum: retry !== undefined ? Number(retry) : undefined,
      retryReason: header(req, 'x-slack-retry-reason'),
      customProperties: {},
    };
    if (ackedEmpty(body)) return this.ackThenProcess(res, { ...delivery, body, ack: async () => {} });

    let acked = false;
    const timer = setTimeout(() => {
      if (acked) return;
      acked = true;
      this.options.log.warn('slack: a handler did not ack within 2.5 s; answered 200 so Slack does not retry');
      send(res, 200);
    }, ACK_DEADLINE_MS);
    const event: ReceiverEvent = {
      ...delivery,
      body,
      ack: async (response?: unknown) => {
        if (acked) return;
        acked = true;
        clearTimeout(timer);
        send(res, 200, response);
      },
    };
    try {
      await this.app.processEvent(event);
    } finally {
      clearTimeout(timer);
      // A listener that threw before acking: Slack gets an answer now rather than retrying into the same error.
      if (!acked) {
        acked = true;
        send(res, 200);
      }
    }
  }

  /**
   * Slack's 200 first, the work after: the listeners (redelivery check, policy, identity, the service call, the reply
   * on the response_url) start only once the answer has left, and after the I/O already waiting (the rest of a burst
   * of requests) has had its turn, so that neither this request's work nor another's holds an ack back.
   */
  private ackThenProcess(res: ServerResponse, event: ReceiverEvent): void {
    let handedOver = false;
    const handOver = () => {
      if (handedOver) return;
      handedOver = true;
      this.burst.run(() => {
        this.app!.processEvent(event).catch((error: unknown) =>
          this.options.log.error(`slack: ${(error as Error).message}`),
        );
      });
    };
    // 'close' too: a client gone before the answer was flushed does not cancel a request that was accepted.
    res.once('finish', handOver);
    res.once('close', handOver);
    send(res, 200);
  }

  async start(port: number, host = '127.0.0.1'): Promise<{ url: string }> {
    // On its own port the bot answers a balancer's probes too (under serve, serve's server does).
    const server = createListener((req, res) => {
      // The probes and /metrics answer GET and HEAD only: Slack's POSTs go straight to the endpoint.
      if (req.method === 'POST') return this.handle(req, res);
      void (async () => (await answerHealth(req, res, this.options.readiness)) || answerMetrics(req, res))().then(
        (answered) => {
          if (!answered) this.handle(req, res);
        },
        () => this.handle(req, res),
      );
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    await this.warmUp(address);
    return { url: `http://${shown}:${address.port}${EVENTS_PATH}` };
  }

  /**
   * One signed ssl_check through the bot's own port before it says it is ready: the first request a process serves
   * compiles the whole path (HTTP parsing, the body, the signature, the answer) and fetch's machinery, and the first
   * burst of commands would otherwise wait on that. An ssl_check is answered 200 and nothing runs. A failure here
   * only means the first burst pays for it after all.
   */
  private async warmUp(address: AddressInfo): Promise<void> {
    await prepareFetch();
    const loopback = address.family === 'IPv6' ? '[::1]' : '127.0.0.1';
    const local = address.address === '0.0.0.0' || address.address === '::' ? loopback : address.address;
    const shown = local.includes(':') && !local.startsWith('[') ? `[${local}]` : local;
    const body = 'ssl_check=1';
    const timestamp = String(Math.floor((this.options.now ?? Date.now)() / 1000));
    try {
      const response = await fetch(`http://${shown}:${address.port}${EVENTS_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': timestamp,
          'x-slack-signature': signatureOf(this.options.signingSecret, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(WARM_UP_TIMEOUT_MS),
      });
      await response.arrayBuffer();
    } catch (error) {
      this.options.log.debug(`slack: the warm-up request failed: ${(error as Error).message}`);
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
