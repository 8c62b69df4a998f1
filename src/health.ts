// Liveness and readiness for a load balancer or an orchestrator: /healthz answers while the process does; /readyz
// answers 200 only while this replica can do its work now (the service answers, the shared state store answers, it is
// not shutting down, watching is not paused), else 503 with each reason in words.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiTransport } from './http/types.js';
import type { OpenedStore } from './state/store.js';
import { withoutCredentials } from './text/shown-url.js';

/** A readiness probe: undefined when fine, else why not, in words. */
interface ReadinessCheck {
  name: string;
  check(): Promise<string | undefined>;
}

export interface Readiness {
  ready: boolean;
  /** Each check by name: "ok", or why it is not. */
  checks: Record<string, string>;
}

/** A probe answer is reused this long: a balancer probing every second must not become load on the service. */
const READINESS_CACHE_MS = 1000;
/** The service gets this long to answer a probe. */
const PROBE_TIMEOUT_MS = 2000;
/** An answer from the service this recent stands for a probe. */
const RECENT_ANSWER_MS = 5000;

/**
 * The one request that asks whether the service answers: an anonymous read of one project (no credential is sent, so
 * a probe never spends or shows one). Readiness and doctor both send it.
 */
export function probeService(client: Pick<ApiTransport, 'request'>, timeoutMs: number) {
  return client.request({
    method: 'GET',
    path: '/projects',
    query: { per_page: 1 },
    idempotent: true,
    token: '',
    timeoutMs,
  });
}

/** The service answers at all: any HTTP answer counts (a private instance may refuse anonymous reads). */
export function serviceCheck(client: ApiTransport, address: string): ReadinessCheck {
  return {
    name: 'service',
    async check() {
      // Under load a probe waits in the same connection pool as the calls, and a balancer whose check times out takes
      // a busy replica out: an answer seconds ago already proves the service is reachable.
      if (client.lastAnswerAt !== undefined && Date.now() - client.lastAnswerAt < RECENT_ANSWER_MS) return undefined;
      try {
        await probeService(client, PROBE_TIMEOUT_MS);
        return undefined;
      } catch (error) {
        const { kind, message } = error as { kind?: string; message?: string };
        return kind === 'http' ? undefined : `${address} does not answer: ${message ?? String(error)}`;
      }
    },
  };
}

export function storeCheck(state: OpenedStore): ReadinessCheck {
  return { name: 'state', check: async () => ((await state.ready()) ? undefined : `${state.where} does not answer`) };
}

/** Watching runs: not paused by a state store that cannot be reached (the watch hub says why in words). */
export function watchCheck(watches: { readonly paused: string | undefined }): ReadinessCheck {
  return { name: 'watching', check: async () => watches.paused };
}

/** Readiness from its checks (run together, answer cached briefly) and a drain switch. */
export class ReadinessProbe {
  private cached?: { at: number; answer: Readiness };
  private draining = false;

  private readonly checks: ReadinessCheck[];

  constructor(
    checks: readonly ReadinessCheck[],
    private readonly now: () => number = Date.now,
  ) {
    this.checks = [...checks];
  }

  /** One more check, for what starts after the probe is made (the watch hub). */
  add(check: ReadinessCheck): void {
    this.checks.push(check);
    this.cached = undefined;
  }

  /** From now on not ready: the balancer sends new work elsewhere while calls in flight finish. */
  drain(): void {
    this.draining = true;
  }

  async current(): Promise<Readiness> {
    if (this.draining) return { ready: false, checks: { drain: 'shutting down; new work goes to another replica' } };
    if (this.cached && this.now() - this.cached.at < READINESS_CACHE_MS) return this.cached.answer;
    // Anyone may ask /readyz: a reason quoting an address never shows its credentials.
    const results = await Promise.all(
      this.checks.map(
        async (c) => [c.name, withoutCredentials((await c.check().catch((e: unknown) => String(e))) ?? 'ok')] as const,
      ),
    );
    const answer = { ready: results.every(([, result]) => result === 'ok'), checks: Object.fromEntries(results) };
    this.cached = { at: this.now(), answer };
    return answer;
  }
}

/** Answers GET /healthz and /readyz; false for any other request (the caller serves it). */
export async function answerHealth(
  req: IncomingMessage,
  res: ServerResponse,
  probe: ReadinessProbe | undefined,
): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz') {
    res
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify({ ok: true }));
    return true;
  }
  if (path === '/readyz') {
    const answer = probe ? await probe.current() : { ready: true, checks: {} };
    res
      .writeHead(answer.ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(answer));
    return true;
  }
  return false;
}

/** Operation calls running in this process now: what a draining server waits for. */
let running = 0;

export function callsInFlight(): number {
  return running;
}

/** Runs one operation call, counted while it runs. */
export async function countedCall<T>(call: () => Promise<T>): Promise<T> {
  running += 1;
  try {
    return await call();
  } finally {
    running -= 1;
  }
}
