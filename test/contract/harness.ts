// Shared set-up of the contract suites: one sandbox per file, operations run exactly as the front ends run them
// (registry lookup, validateInput, executeOperation), a check of what reached the service, and a coverage check.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { executeOperation } from '../../src/http/execute.js';
import type { Area, Operation, OperationResult } from '../../src/operations/define.js';
import { findOperation, operationsInArea } from '../../src/operations/index.js';
import { InputError, validateInput } from '../../src/operations/validate.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

export type Role = 'admin' | 'maintainer' | 'developer' | 'reporter' | 'guest' | 'outsider' | 'anonymous';

export interface CallOptions {
  /** Whose token the call carries (default maintainer). */
  as?: Role;
}

export interface ContractSuite {
  /** The running sandbox (set in beforeAll). */
  readonly sandbox: Sandbox;
  /** Validates `raw` with the operation's schema and runs it; throws InputError or ApiError as a front end would see them. */
  call(name: string, raw: unknown, options?: CallOptions): Promise<OperationResult>;
  /** The operation of that name; fails the test when the registry has none. */
  operation(name: string): Operation;
  /** Requests the sandbox received, in order (paths after /api/v4, still percent-encoded). */
  requests(): Array<{ method: string; path: string; status: number }>;
}

/** A bad input case: what is wrong, the operation, the input, and the field the error must name ('' = the input itself). */
export type BadInputCase = [what: string, operation: string, raw: unknown, field: string];

/** A route template as a pattern for the raw request path: ':name' is one encoded segment, '[.format]' optional. */
export function routePattern(op: Operation): RegExp {
  const suffix = /\[\.([a-z_]+)\]$/.exec(op.path);
  const base = suffix ? op.path.slice(0, suffix.index) : op.path;
  const body = base.split(/(:[a-z_]+)/).map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}${suffix ? '(?:\\.[^/]+)?' : ''}$`);
}

/**
 * Starts a sandbox for the file and returns the suite helpers. Call `coverageCase()` last in the file: it fails
 * when an operation of `areas` was never called.
 */
export function contractSuite(...areas: Area[]): ContractSuite & { coverageCase(): void; badInputCases(cases: BadInputCase[]): void } {
  let sandbox: Sandbox | undefined;
  const clients = new Map<Role, HttpClient>();
  const called = new Set<string>();

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
  });
  afterAll(async () => {
    await Promise.all([...clients.values()].map((client) => client.close()));
    await sandbox?.close();
  });

  const running = (): Sandbox => {
    if (!sandbox) throw new Error('the sandbox is not running');
    return sandbox;
  };

  const clientFor = (role: Role): HttpClient => {
    let client = clients.get(role);
    if (!client) {
      const token = role === 'anonymous' ? undefined : running().tokens[role];
      // No retries: a contract test must see exactly one request per call.
      client = new HttpClient({ baseUrl: running().url, token, retry: { maxRetries: 0 } });
      clients.set(role, client);
    }
    return client;
  };

  const operation = (name: string): Operation => {
    const op = findOperation(name);
    if (!op) throw new Error(`no operation named ${name} in the registry`);
    return op;
  };

  const suite = {
    get sandbox() {
      return running();
    },
    operation,
    requests: () => running().requests.all(),
    async call(name: string, raw: unknown, options: CallOptions = {}): Promise<OperationResult> {
      const op = operation(name);
      const input = validateInput(op, raw) as Record<string, unknown>;
      called.add(name);
      const before = running().requests.all().length;
      try {
        return await executeOperation(op, input, { client: clientFor(options.as ?? 'maintainer') });
      } finally {
        // Whatever the outcome, every request the call made went to this operation's method and route.
        const sent = running().requests.all().slice(before);
        expect(sent.length, `${name} sent no request`).toBeGreaterThan(0);
        for (const request of sent) {
          expect(request.method, `${name}: method`).toBe(op.method);
          expect(request.path, `${name}: path`).toMatch(routePattern(op));
        }
      }
    },
    badInputCases(cases: BadInputCase[]): void {
      it.each(cases)('rejects %s before sending anything', async (_what, name, raw, field) => {
        const before = running().requests.all().length;
        const error = await suite.call(name, raw).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InputError);
        expect((error as InputError).issues.map((issue) => issue.field)).toContain(field);
        expect(running().requests.all().length).toBe(before);
      });
    },
    coverageCase(): void {
      it(`calls every operation of ${areas.join(', ')} at least once`, () => {
        const names = areas.flatMap((area) => operationsInArea(area).map((op) => op.name));
        expect(names.length).toBeGreaterThan(0);
        expect(names.filter((name) => !called.has(name))).toEqual([]);
      });
    },
  };
  return suite;
}
