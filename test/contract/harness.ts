// Shared set-up of the contract suites: a sandbox per file, operations run as front ends run them, route, paging and coverage checks.
import { afterAll, beforeAll, expect, it, type RunnerTestSuite } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { executeOperation } from '../../src/operations/engine/execute.js';
import type { Area, AreaDefinition, Operation, OperationResult } from '../../src/operations/engine/define.js';
import { findOperation, operationsInArea } from '../../src/operations/index.js';
import { InputError, validateInput } from '../../src/operations/engine/validate.js';
import type { RequestRecord } from '../../src/sandbox/faults.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

export type Role = 'admin' | 'maintainer' | 'developer' | 'reporter' | 'guest' | 'outsider' | 'anonymous';

export interface CallOptions {
  /** Whose token the call carries (default maintainer). */
  as?: Role;
}

export interface ContractSuite {
  /** The running sandbox (set in beforeAll). */
  readonly sandbox: Sandbox;
  /**
   * Validates `raw` with the operation's schema and runs it; throws InputError or ApiError as a front end would
   * see them. `name` may be an operation object that is not in the registry (a test's own).
   */
  call(name: string | Operation, raw: unknown, options?: CallOptions): Promise<OperationResult>;
  /** The operation of that name; fails the test when the registry has none. */
  operation(name: string): Operation;
  /** Requests the sandbox received, in order (paths after /api/v4, still percent-encoded). */
  requests(): RequestRecord[];
  /** The data a call answers, made as `as` (default: the maintainer). */
  data<T>(name: string, input: Record<string, unknown>, as?: Role): Promise<T>;
  /** The ApiError a call fails with, made as `as` (default: the maintainer); the test fails if it succeeds. */
  refusal(name: string, input: Record<string, unknown>, as?: Role): Promise<ApiError>;
  /** A name no other test of the file uses (letters, digits and dashes), for what a test makes for itself. */
  freshName(prefix: string): string;
  /**
   * A new branch of `project` (default from main) with one commit of its own (a new file), so that it is ahead of
   * where it started. Made as the maintainer through the registry, outside the suite's coverage.
   */
  freshBranch(project: string, from?: string): Promise<FreshBranch>;
  /**
   * A new open merge request of `project`, from a fresh branch into `target` (default main), made as the maintainer
   * (or `as`) with `extra` input; its data, as create_merge_request answers.
   */
  freshMergeRequest<T = FreshMergeRequest>(
    project: string,
    extra?: Record<string, unknown>,
    as?: Role,
  ): Promise<T & FreshMergeRequest>;
  /** A new open issue of `project` with `extra` input, made as the maintainer (or `as`); its data. */
  freshIssue<T = FreshIssue>(project: string, extra?: Record<string, unknown>, as?: Role): Promise<T & FreshIssue>;
}

export interface FreshBranch {
  name: string;
  /** The head commit: the branch's own commit. */
  sha: string;
}

export interface FreshMergeRequest {
  iid: number;
  title: string;
  sha: string;
  source_branch: string;
  target_branch: string;
}

export interface FreshIssue {
  iid: number;
  title: string;
}

/** A list's input, or a function that makes what the list is to hold (two results or more) and gives the input. */
export type PagingInput = Record<string, unknown> | (() => Promise<Record<string, unknown>>);

/** A bad input case: what is wrong, the operation, the input, and the field the error must name ('' = the input itself). */
export type BadInputCase = [what: string, operation: string, raw: unknown, field: string];

/** A route template as a pattern for the raw request path: ':name' is one encoded segment, '[.format]' optional. */
export function routePattern(op: Operation): RegExp {
  const suffix = /\[\.([a-z_]+)\]$/.exec(op.path);
  const base = suffix ? op.path.slice(0, suffix.index) : op.path;
  const body = base
    .split(/(:[a-z_]+)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}${suffix ? '(?:\\.[^/]+)?' : ''}$`);
}

/** The operations no request of `requests` reached with a success, as `name (METHOD path)`: what a client missed. */
export function neverAnsweredWithSuccess(
  ops: readonly Operation[],
  requests: readonly Pick<RequestRecord, 'method' | 'path' | 'status'>[],
): string[] {
  return ops
    .filter(
      (op) =>
        !requests.some(
          (r) => r.method === op.method && routePattern(op).test(r.path) && r.status >= 200 && r.status < 300,
        ),
    )
    .map((op) => `${op.name} (${op.method} ${op.path})`);
}

/**
 * What an interop suite's "reached" rule finds wrong, for one client: an operation beyond the spec neither answered
 * with success nor named in its area's `interop.notYetDriven`, and a named one that was answered with success after all
 * or is not beyond the spec (so the lists only shrink, and never lie).
 */
export function interopGaps(
  areas: readonly AreaDefinition[],
  client: 'pythonGitlab' | 'gitbeaker',
  operations: readonly Operation[],
  requests: readonly Pick<RequestRecord, 'method' | 'path' | 'status'>[],
): string[] {
  const named = new Set(areas.flatMap((area) => area.interop?.notYetDriven?.[client] ?? []));
  const outside = operations.filter((op) => op.outsideSpec !== undefined);
  const missed = new Set(neverAnsweredWithSuccess(outside, requests).map((missing) => missing.split(' ')[0]));
  const list = `its area's interop.notYetDriven.${client}`;
  return [
    ...outside
      .filter((op) => missed.has(op.name) && !named.has(op.name))
      .map(
        (op) => `${op.name} (${op.method} ${op.path}) was never answered with success: drive it, or name it in ${list}`,
      ),
    ...[...named]
      .filter((name) => !missed.has(name))
      .map((name) =>
        outside.some((op) => op.name === name)
          ? `${name} is named in ${list} but was answered with success: take it off the list`
          : `${name} is named in ${list} but is not an operation beyond the spec`,
      ),
  ];
}

/**
 * The operation without its input rules (one_of, at_most_one, requires): a client that has none (curl) reaches the
 * sandbox, so a test can show that the sandbox, too, refuses what the rule refuses.
 */
export function withoutRules(op: Operation): Operation {
  return { ...op, rules: undefined } as Operation;
}

/**
 * Fails when the sandbox ignored a parameter of these requests. The sandbox, like the service, answers a request
 * with an unknown (misspelt, undocumented) parameter as if it were absent and only records it; this is what
 * still makes such a parameter fail the operation's contract test.
 */
export function expectNoUnknownParams(name: string, requests: readonly RequestRecord[]): void {
  for (const request of requests) {
    expect(
      request.unknownParams,
      `${name}: parameters the service does not know (${request.method} ${request.path})`,
    ).toEqual([]);
  }
}

export interface ContractSuiteCases {
  /** One test per case: the input is refused with an InputError naming the field, and nothing is sent. */
  badInputCases(cases: BadInputCase[]): void;
  /**
   * One test that pages through a list operation (at least two results needed): per_page 1, the second page
   * (offset lists), and all_pages with max_items 2 — so page, per_page, all_pages and max_items are each shown
   * to reach the service and change the answer.
   */
  pagingCase(name: string, input: PagingInput, options?: CallOptions): void;
  /**
   * Call once per file, at its top level. After the file's last test (whatever order its tests ran in), fails the
   * file when an operation of the suite's areas was never called, or when one of its input keys was never sent:
   * `call` fails on parameters the sandbox does not know, so only a key that was sent once is known to be spelt and
   * typed as the service reads it. A run that leaves tests out (-t, .only, .skip) is not judged.
   */
  coverageCase(): void;
}

/** Lists the service pages without counting them (no X-Total, X-Total-Pages or rel="last"). */
const UNCOUNTED_LISTS = new Set(['list_project_jobs']);

/** Whether every test under the suite ran (none left out by a name filter, .only or .skip). */
function everyTestRan(suite: RunnerTestSuite): boolean {
  return suite.tasks.every((task) =>
    task.type === 'suite' ? everyTestRan(task) : task.mode === 'run' && task.result?.state !== 'skip',
  );
}

/**
 * Starts a sandbox for the file and returns the suite helpers. Every test makes what it changes, so the suites run
 * under describe.shuffle, in an order other than the written one (the seed is in vitest.config.ts): a test that leans
 * on what another did fails on every run.
 */
export function contractSuite(...areas: Area[]): ContractSuite & ContractSuiteCases {
  let sandbox: Sandbox | undefined;
  const clients = new Map<Role, HttpClient>();
  const called = new Set<string>();
  const usedKeys = new Map<string, Set<string>>();

  beforeAll(async () => {
    // The sandbox's clock stands still: the runner never moves a pipeline between two reads of a case, so what a
    // contract case reads does not depend on how fast the machine is (the runner has tests of its own).
    sandbox = await startSandbox({ port: 0, clock: new ManualClock() });
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
      const anonymous = role === 'anonymous';
      const token = anonymous ? undefined : running().tokens[role];
      // The SCIM token goes with every signed-in role (SCIM paths ignore the user's token); anonymous sends none.
      const scimToken = anonymous ? undefined : running().tokens.scim;
      // No retries: a contract test must see exactly one request per call.
      client = new HttpClient({ baseUrl: running().url, token, scimToken, retry: { maxRetries: 0 } });
      clients.set(role, client);
    }
    return client;
  };

  const operation = (name: string): Operation => {
    const op = findOperation(name);
    if (!op) throw new Error(`no operation named ${name} in the registry`);
    return op;
  };

  // Set-up calls: run as a front end runs them, but left out of the suite's coverage (they prove nothing of it).
  const setUp = async <T>(name: string, raw: Record<string, unknown>, as: Role = 'maintainer'): Promise<T> => {
    const op = operation(name);
    const input = validateInput(op, raw) as Record<string, unknown>;
    return (await executeOperation(op, input, { client: clientFor(as) })).data as T;
  };
  let made = 0;
  const freshName = (prefix: string): string => `${prefix}-${++made}`;
  const freshBranch = async (project: string, from = 'main'): Promise<FreshBranch> => {
    const name = freshName('fresh');
    const commit = await setUp<{ id: string }>('create_commit', {
      id: project,
      branch: name,
      start_branch: from,
      commit_message: `Add ${name}`,
      actions: [{ action: 'create', file_path: `fresh/${name}.txt`, content: `${name}\n` }],
    });
    return { name, sha: commit.id };
  };

  const suite = {
    get sandbox() {
      return running();
    },
    freshName,
    freshBranch,
    async freshMergeRequest<T>(project: string, extra: Record<string, unknown> = {}, as: Role = 'maintainer') {
      const branch = await freshBranch(project, typeof extra.target_branch === 'string' ? extra.target_branch : 'main');
      return setUp<T & FreshMergeRequest>(
        'create_merge_request',
        { id: project, source_branch: branch.name, target_branch: 'main', title: `Change ${branch.name}`, ...extra },
        as,
      );
    },
    async freshIssue<T>(project: string, extra: Record<string, unknown> = {}, as: Role = 'maintainer') {
      return setUp<T & FreshIssue>('create_issue', { id: project, title: freshName('Fresh issue'), ...extra }, as);
    },
    operation,
    requests: () => running().requests.all(),
    async data<T>(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<T> {
      return (await suite.call(name, input, { as })).data as T;
    },
    async refusal(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<ApiError> {
      const error = await suite.call(name, input, { as }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      return error as ApiError;
    },
    async call(nameOrOperation: string | Operation, raw: unknown, options: CallOptions = {}): Promise<OperationResult> {
      const op = typeof nameOrOperation === 'string' ? operation(nameOrOperation) : nameOrOperation;
      const { name } = op;
      const input = validateInput(op, raw) as Record<string, unknown>;
      called.add(name);
      const before = running().requests.all().length;
      try {
        const result = await executeOperation(op, input, { client: clientFor(options.as ?? 'maintainer') });
        // A composed operation answers with its change's status, which a read after it (what it made) may follow.
        const statuses = running()
          .requests.all()
          .slice(before)
          .map((r) => r.status);
        if (op.composedOf) expect(statuses, `${name}: status`).toContain(result.status);
        else expect(result.status, `${name}: status`).toBe(statuses.at(-1));
        // Only an accepted call shows its keys are ones the service knows (a 400 may be the sandbox refusing one).
        const keys = usedKeys.get(name) ?? new Set<string>();
        for (const [key, value] of Object.entries(input)) if (value !== undefined) keys.add(key);
        usedKeys.set(name, keys);
        return result;
      } finally {
        // Whatever the outcome, every request the call made went to this operation's method and route.
        const sent = running().requests.all().slice(before);
        expect(sent.length, `${name} sent no request`).toBeGreaterThan(0);
        // A composed operation (composedOf) reads through other operations' routes; each of those is checked in its own suite.
        for (const request of op.composedOf ? [] : sent) {
          expect(request.method, `${name}: method`).toBe(op.method);
          expect(request.path, `${name}: path`).toMatch(routePattern(op));
        }
        expectNoUnknownParams(name, sent);
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
    pagingCase(name: string, listInput: PagingInput, options: CallOptions = {}): void {
      it(`pages through ${name}`, async () => {
        const op = operation(name);
        expect(op.pagination, `${name} is not a list`).toBeDefined();
        const input = typeof listInput === 'function' ? await listInput() : listInput;
        const read = (extra: Record<string, unknown>) => suite.call(name, { ...input, ...extra }, options);
        const first = await read({ per_page: 1 });
        expect(first.data).toHaveLength(1);
        expect(first.page).toMatchObject({ has_more: true, pages_fetched: 1 });
        // all_pages with max_items 2 must read exactly the first two pages, in order, and stop there.
        const both = await read({ per_page: 1, all_pages: true, max_items: 2 });
        const items = both.data as unknown[];
        expect(items).toHaveLength(2);
        expect(items[0]).toEqual((first.data as unknown[])[0]);
        // Another result on the next page, or per_page (or the cursor) did nothing.
        expect(items[1]).not.toEqual(items[0]);
        expect(both.page?.pages_fetched).toBe(2);
        if (op.pagination === 'offset') {
          const counted = !UNCOUNTED_LISTS.has(name);
          expect(first.page).toMatchObject({
            page: 1,
            per_page: 1,
            next_page: 2,
            ...(counted ? { total: expect.any(Number) } : {}),
          });
          if (!counted) expect(first.page?.total).toBeUndefined();
          const second = await read({ per_page: 1, page: 2 });
          expect(second.page).toMatchObject({ page: 2, per_page: 1 });
          expect(second.data).toEqual([items[1]]);
          // More results than max_items means has_more; X-Total says which it is, or else a third page.
          const more = counted
            ? (first.page?.total ?? 0) > 2
            : ((await read({ per_page: 1, page: 3 })).data as unknown[]).length > 0;
          expect(both.page?.has_more).toBe(more);
        } else {
          expect(first.page?.next_url).toMatch(/^http/);
          expect(first.page?.next_page).toBeUndefined();
        }
      });
    },
    coverageCase(): void {
      // An after-all check, not a test: tests run shuffled, so a test would not see the calls of those after it.
      // biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's fixtures from a destructured first parameter; the suite comes second.
      afterAll(({}, file) => {
        if (!everyTestRan(file)) return;
        const ops = areas.flatMap((area) => operationsInArea(area));
        expect(ops.length).toBeGreaterThan(0);
        const coverage = `calls every operation of ${areas.join(', ')} at least once, with every input key`;
        expect(
          ops.map((op) => op.name).filter((name) => !called.has(name)),
          `${coverage}: operations never called`,
        ).toEqual([]);
        const unsent = ops.flatMap((op) =>
          Object.keys(op.input.shape)
            .filter((key) => !usedKeys.get(op.name)?.has(key))
            .map((key) => `${op.name}.${key}`),
        );
        expect(unsent, `${coverage}: input keys never sent`).toEqual([]);
      });
    },
  };
  return suite;
}
