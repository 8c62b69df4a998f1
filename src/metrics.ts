// Prometheus metrics on /metrics (serve, and the Slack bot's own port): calls by operation, front end and outcome,
// their latency, the service's retries and 429s, approvals, MCP sessions, state store errors and watching. The front ends
// record through the functions below, which do nothing until enableMetrics() ran: `forgeops mcp` and the terminal
// chat never load prom-client.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

type Front = 'mcp' | 'slack' | 'chat';
/** ok: the service did it; failed: the service refused or failed; refused: forgeops refused before sending; declined: a human said no; asked: a stateless client was asked for approval (it calls again). */
export type CallOutcome = 'ok' | 'failed' | 'refused' | 'declined' | 'asked';
type ApprovalEvent = 'asked' | 'approved' | 'declined' | 'expired';
/** What became of a POST to /hooks/pipeline. */
type WebhookResult = 'nudged' | 'ignored' | 'unauthorized' | 'too_large' | 'malformed';

interface Sink {
  registry: Registry;
  calls: Counter<'operation' | 'front' | 'outcome'>;
  duration: Histogram<'operation' | 'front'>;
  retries: Counter<'reason'>;
  approvals: Counter<'front' | 'event'>;
  storeErrors: Counter;
  sessions: Gauge;
  watches: Gauge<'role'>;
  watchChecks: Counter<'result'>;
  watchRequests: Counter;
  watchEvents: Counter<'kind'>;
  webhooks: Counter<'result'>;
}

let sink: Sink | undefined;
let sessionCounter: (() => number) | undefined;
let watchCounter: (() => WatchCounts) | undefined;

/** One call of an operation, as its front end saw it. */
export function recordCall(front: Front, operation: string, outcome: CallOutcome, seconds: number): void {
  if (!sink) return;
  sink.calls.inc({ operation, front, outcome });
  sink.duration.observe({ operation, front }, seconds);
}

/** A request to the service that is retried: after a 429 (rate_limited) or another retryable failure. */
export function recordServiceRetry(status: number | undefined): void {
  sink?.retries.inc({ reason: status === 429 ? 'rate_limited' : status === undefined ? 'network' : `http_${status}` });
}

export function recordApproval(front: Front, event: ApprovalEvent): void {
  sink?.approvals.inc({ front, event });
}

export function recordStoreError(): void {
  sink?.storeErrors.inc();
}

export function recordWebhook(result: WebhookResult): void {
  sink?.webhooks.inc({ result });
}

/** What the sessions gauge reads when scraped (serve's live MCP sessions). */
export function countSessionsWith(count: () => number): void {
  sessionCounter = count;
}

/** What the watches gauge reads when scraped (the watch hub's counts). */
export function countWatchesWith(count: () => WatchCounts): void {
  watchCounter = count;
}

/** The branches this replica runs a watch for: polling (it holds the lease) or standing by. */
export interface WatchCounts {
  polling: number;
  standingBy: number;
}

/**
 * What watching reports for /metrics, in words the metrics need (a check's result, a transition's kind): declared
 * here, so that the watch hub takes this recorder without the metrics knowing the hub.
 */
export interface WatchRecorder {
  /** A watch's check here: what it found ('unchanged', 'not-holder', …), or that it failed. */
  checked(result: string): void;
  /** One request sent to the service by a watch here. */
  requested(): void;
  /** A transition (or a watch's first state) told by this replica, once for all replicas. */
  told(kind: string): void;
}

/** The watch hub reports through these: checks by result ('not-holder' as not_holder), requests, transitions told. */
export const watchRecorder: WatchRecorder = {
  checked: (result) => sink?.watchChecks.inc({ result: result.replace('-', '_') }),
  requested: () => sink?.watchRequests.inc(),
  told: (kind) => sink?.watchEvents.inc({ kind }),
};

/** Loads prom-client and starts recording; idempotent. */
export async function enableMetrics(): Promise<void> {
  if (sink) return;
  const loaded = await import('prom-client');
  // Node's ESM gives the named exports; the bundle's CommonJS interop may only give the default.
  const client = loaded.Registry ? loaded : (loaded as unknown as { default: typeof loaded }).default;
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'forgeops_' });
  // Every metric is registered on this registry alone (never prom-client's global one).
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new client.Counter({ name, help, labelNames, registers: [registry] });
  sink = {
    registry,
    calls: counter('forgeops_calls_total', 'Operation calls by operation, front end and outcome.', [
      'operation',
      'front',
      'outcome',
    ]),
    duration: new client.Histogram({
      name: 'forgeops_call_duration_seconds',
      help: 'Time from a call received to its answer, approval wait included.',
      labelNames: ['operation', 'front'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    retries: counter(
      'forgeops_service_retries_total',
      'Requests to the service retried, by why (rate_limited is a 429).',
      ['reason'],
    ),
    // The metric keeps its name: dashboards and alerts already query it.
    approvals: counter('forgeops_confirmations_total', 'Approvals asked of a human, and how they ended.', [
      'front',
      'event',
    ]),
    storeErrors: counter('forgeops_state_store_errors_total', 'Calls the shared state store (Redis) failed.'),
    sessions: new client.Gauge({
      name: 'forgeops_mcp_sessions',
      help: 'Live MCP sessions of this replica.',
      registers: [registry],
      collect() {
        this.set(sessionCounter?.() ?? 0);
      },
    }),
    watches: new client.Gauge({
      name: 'forgeops_watches',
      help: 'Branches this replica watches: polling (it holds the lease) or standing_by.',
      labelNames: ['role'],
      registers: [registry],
      collect() {
        const counts = watchCounter?.() ?? { polling: 0, standingBy: 0 };
        this.set({ role: 'polling' }, counts.polling);
        this.set({ role: 'standing_by' }, counts.standingBy);
      },
    }),
    watchChecks: counter(
      'forgeops_watch_checks_total',
      'Watch checks by result: unchanged, changed, not_holder (another replica polls), failed, paused (state store unreachable), deferred (the service asked to wait).',
      ['result'],
    ),
    watchRequests: counter(
      'forgeops_watch_service_requests_total',
      'Requests watching sent to the service, retries included.',
    ),
    watchEvents: counter(
      'forgeops_watch_events_total',
      'Watch transitions told by this replica (once across replicas), by kind.',
      ['kind'],
    ),
    webhooks: counter(
      'forgeops_webhooks_total',
      'Pipeline events received on /hooks/pipeline, by what became of them.',
      ['result'],
    ),
  };
}

/** Answers GET /metrics in Prometheus's text format; false for any other request, or before enableMetrics(). */
export async function answerMetrics(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if (!sink || req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') return false;
  const text = await sink.registry.metrics();
  res.writeHead(200, { 'content-type': sink.registry.contentType, 'cache-control': 'no-store' }).end(text);
  return true;
}

/** Forgets everything recorded (tests). */
export function resetMetrics(): void {
  sink?.registry.resetMetrics();
}
