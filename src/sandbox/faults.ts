// Fault injection and the request log, so client tests can provoke 429/5xx/resets and count what was sent.
import { STATUS_CODES } from 'node:http';

interface FaultSpec {
  /** Only requests with this method (any when left out). */
  method?: string;
  /**
   * Only requests whose raw (still percent-encoded) path starts with this; paths are taken after /api/v4,
   * e.g. '/projects/1/pipeline'; SCIM paths and the OAuth provider's keep their full form ('/api/scim/v2/groups/…',
   * '/oauth/token').
   */
  path?: string;
  status: number;
  /** Sent as is; without it the body is {"message": "<status> <reason>"} as JSON. */
  body?: string;
  headers?: Record<string, string>;
  /** How many matching requests get the fault (default 1; Infinity for all). */
  times?: number;
  /** Destroy the connection instead of answering (the client sees a reset / socket hang-up). */
  resetConnection?: boolean;
}

interface FaultAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
  resetConnection: boolean;
}

export class FaultInjector {
  private readonly faults: Array<FaultSpec & { remaining: number }> = [];

  add(fault: FaultSpec): void {
    const times = fault.times ?? 1;
    if (!(times > 0)) throw new Error('times must be a positive number');
    if (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599) {
      throw new Error('status must be an HTTP status code');
    }
    this.faults.push({ ...fault, method: fault.method?.toUpperCase(), remaining: times });
  }

  clear(): void {
    this.faults.length = 0;
  }

  /** Faults still waiting to fire. */
  get pending(): number {
    return this.faults.length;
  }

  /** Consumes and returns the first fault matching the request, if any. */
  take(method: string, path: string): FaultAnswer | undefined {
    const index = this.faults.findIndex(
      (f) => (f.method === undefined || f.method === method) && (f.path === undefined || path.startsWith(f.path)),
    );
    if (index === -1) return undefined;
    const fault = this.faults[index];
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    const defaultBody = fault.body === undefined;
    return {
      status: fault.status,
      body: defaultBody
        ? JSON.stringify({ message: `${fault.status} ${STATUS_CODES[fault.status] ?? 'Error'}` })
        : fault.body!,
      headers: { ...(defaultBody ? { 'content-type': 'application/json' } : {}), ...fault.headers },
      resetConnection: fault.resetConnection ?? false,
    };
  }
}

export interface RequestRecord {
  method: string;
  /** Raw path as in FaultSpec.path, without the query string. */
  path: string;
  /** 0 when the connection was reset by a fault. */
  status: number;
  /**
   * Query and body parameters the sandbox ignored, as the service would, in bracket form ('assets[links][0][bogus]'):
   * names the route does not know, and a path parameter repeated with another value. The contract harness
   * fails on any, so that an operation sending a misspelt parameter still fails its test.
   */
  unknownParams: string[];
}

export class RequestLog {
  private readonly records: RequestRecord[] = [];

  record(entry: RequestRecord): void {
    this.records.push(entry);
  }

  all(): RequestRecord[] {
    return [...this.records];
  }

  /** Records matching the method and/or an exact path. */
  filter(match: { method?: string; path?: string }): RequestRecord[] {
    return this.records.filter(
      (r) =>
        (match.method === undefined || r.method === match.method.toUpperCase()) &&
        (match.path === undefined || r.path === match.path),
    );
  }

  clear(): void {
    this.records.length = 0;
  }
}
