// Contract: wait_until_settled against the sandbox, whose clock moves only when the wait pauses: a branch's running
// pipeline is followed to its end (red, at the failing job); a merge request set to merge when its pipeline passes is
// followed through the merge to its target branch's pipeline (main green); a wait that runs out answers where things
// stand; a cancelled wait sends nothing more. Each check is told as progress, in words.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import type { ProgressEvent } from '../../src/http/types.js';
import { executeOperation } from '../../src/operations/engine/execute.js';
import { InputError, validateInput } from '../../src/operations/engine/validate.js';
import type { SettleAnswer } from '../../src/operations/composed/wait-until-settled.js';
import type { ManualClock } from '../../src/sandbox/core/clock.js';
import { commitsOf, commitTitled, TIME_ZONE_CULPRIT, WEB } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite();
const NAME = 'wait_until_settled';

/**
 * The wait's pauses, skipped instead of slept while `on`, each moving the sandbox's clock on by `sandboxMs` (its runner
 * then moves the pipelines as if that time had passed), and a Date.now that moves only by what was skipped: how many
 * checks a wait makes depends on neither the machine's speed nor the test's. A pause asked with an aborted signal
 * rejects, as the real one does.
 */
const pauses = vi.hoisted(() => ({ on: false, skippedMs: 0, sandboxMs: 0, advance: (_ms: number) => {} }));
vi.mock('node:timers/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:timers/promises')>();
  const setTimeout = ((ms?: number, value?: unknown, options?: Parameters<typeof real.setTimeout>[2]) => {
    if (!pauses.on) return real.setTimeout(ms, value, options);
    if (options?.signal?.aborted) return Promise.reject(new DOMException('The operation was aborted', 'AbortError'));
    pauses.skippedMs += ms ?? 0;
    pauses.advance(pauses.sandboxMs);
    return Promise.resolve(value);
  }) as typeof real.setTimeout;
  return { ...real, setTimeout };
});

let client: HttpClient | undefined;
afterAll(() => client?.close());
function maintainer(): HttpClient {
  client ??= new HttpClient({
    baseUrl: suite.sandbox.url,
    token: suite.sandbox.tokens.maintainer,
    retry: { maxRetries: 0 },
  });
  return client;
}

/** Runs the wait as a front end does (validated input, its own signal), keeping every progress message. */
async function waitFor(raw: Record<string, unknown>, options: { signal?: AbortSignal; onProgress?: () => void } = {}) {
  const op = suite.operation(NAME);
  const progress: string[] = [];
  const result = await executeOperation(op, validateInput(op, { id: WEB, ...raw }) as Record<string, unknown>, {
    client: maintainer(),
    signal: options.signal,
    onProgress: (event: ProgressEvent) => {
      if (event.kind === 'poll') progress.push(event.message);
      options.onProgress?.();
    },
  });
  return { answer: result.data as SettleAnswer, progress };
}

type Pipeline = { id: number; status: string; sha: string };

async function latestOf(ref: string): Promise<Pipeline> {
  const [latest] = await suite.data<Pipeline[]>('list_pipelines', { id: WEB, ref, per_page: 1 });
  return latest;
}

// A story on one sandbox, in order: the branch tests run while main is red, the merge request turns it green.
describe('wait_until_settled', { shuffle: false }, () => {
  beforeEach(() => {
    const startedAt = Date.now();
    Object.assign(pauses, {
      on: true,
      skippedMs: 0,
      sandboxMs: 20_000,
      advance: (ms: number) => (suite.sandbox.store.clock as ManualClock).advance(ms),
    });
    vi.spyOn(Date, 'now').mockImplementation(() => startedAt + pauses.skippedMs);
  });
  afterEach(() => {
    pauses.on = false;
    vi.restoreAllMocks();
  });

  it('follows a branch pipeline from pending to its end and names the job it failed at', async () => {
    const branch = await suite.freshBranch(WEB);
    const started = await latestOf(branch.name);
    expect(started).toMatchObject({ sha: branch.sha, status: 'pending' });
    const { answer, progress } = await waitFor({ ref: branch.name });
    // Branched from red main: bob's test fails here too.
    expect(answer).toMatchObject({
      outcome: 'failed',
      ref: branch.name,
      pipeline: { id: started.id, status: 'failed', sha: branch.sha, jobs: { failed: [{ name: 'test' }] } },
      wait: { finished: true, timeout_seconds: 600 },
    });
    expect(answer.summary).toBe(`${branch.name} is red: pipeline #${started.id} failed at job test`);
    expect(answer.wait.checks).toBeGreaterThanOrEqual(2);
    expect(progress).toHaveLength(answer.wait.checks);
    expect(progress[0]).toMatch(
      new RegExp(`^${branch.name}: pipeline #${started.id} pending: 0 of [1-9]\\d* jobs done$`),
    );
    expect(progress.at(-1)).toBe(answer.summary);
    const shown = suite.operation(NAME).present!(answer, { id: WEB });
    expect(shown.title).toBe(answer.summary);
    expect(shown.actions?.map((a) => a.operation)).toEqual(['retry_pipeline', 'get_job_log']);
  });

  it('answers where things stand when its time runs out, the pipeline still pending', async () => {
    const branch = await suite.freshBranch(WEB);
    const pending = await latestOf(branch.name);
    // The sandbox's clock stands still: nothing moves while it waits.
    pauses.sandboxMs = 0;
    const { answer } = await waitFor({ ref: branch.name, timeout_seconds: 5 });
    expect(answer).toMatchObject({
      outcome: 'waiting',
      pipeline: { id: pending.id, status: 'pending' },
      wait: { finished: false, timeout_seconds: 5 },
    });
    expect(answer.wait.waited_seconds).toBe(5);
    expect(answer.summary).toMatch(
      new RegExp(
        `^Not settled yet \\(waited 5 s\\): ${branch.name}: pipeline #${pending.id} pending: 0 of \\d+ jobs done$`,
      ),
    );
    const shown = suite.operation(NAME).present!(answer, { id: WEB });
    expect(answer.wait.checks).toBeGreaterThan(1);
    expect(shown.fields).toContainEqual(['waited', `5 s, ${answer.wait.checks} checks (not settled yet)`]);
    // Left for the next test to end: the story goes on with main.
    pauses.advance(60_000);
  });

  it('stops at once when cancelled: no request after the cancellation', async () => {
    const branch = await suite.freshBranch(WEB);
    pauses.sandboxMs = 0;
    const controller = new AbortController();
    let atCancel = -1;
    const waiting = waitFor(
      { ref: branch.name },
      {
        signal: controller.signal,
        onProgress: () => {
          atCancel = suite.requests().length;
          controller.abort();
        },
      },
    );
    await expect(waiting).rejects.toThrow(/abort/i);
    expect(atCancel).toBeGreaterThan(0);
    expect(suite.requests().length).toBe(atCancel);
    pauses.advance(60_000);
  });

  it('refuses a call naming neither a branch nor a merge request, or both, before asking anything', async () => {
    const before = suite.requests().length;
    for (const raw of [{}, { ref: 'main', merge_request_iid: 1 }]) {
      const op = suite.operation(NAME);
      expect(() => validateInput(op, { id: WEB, ...raw })).toThrow(InputError);
    }
    expect(() => validateInput(suite.operation(NAME), { id: WEB, ref: 'main', timeout_seconds: 1801 })).toThrow(
      /timeout_seconds/,
    );
    expect(suite.requests().length).toBe(before);
  });

  it('follows a merge request set to merge when its pipeline passes through the merge to main green', async () => {
    const culprit = commitTitled(await commitsOf(suite, WEB), TIME_ZONE_CULPRIT);
    const made = await suite.data<{ merge_request: { iid: number } }>('revert_as_merge_request', {
      id: WEB,
      sha: culprit.id,
    });
    const iid = made.merge_request.iid;
    await suite.data('merge_merge_request', { id: WEB, merge_request_iid: iid, merge_when_pipeline_succeeds: true });

    const { answer, progress } = await waitFor({ merge_request_iid: iid });
    const merged = await suite.data<{ state: string; merge_commit_sha: string }>('get_merge_request', {
      id: WEB,
      merge_request_iid: iid,
    });
    expect(merged.state).toBe('merged');
    const green = await latestOf('main');
    expect(green).toMatchObject({ sha: merged.merge_commit_sha, status: 'success' });
    expect(answer).toMatchObject({
      outcome: 'success',
      ref: 'main',
      pipeline: { id: green.id, status: 'success', sha: merged.merge_commit_sha, jobs: { failed: [] } },
      merge_request: { iid, state: 'merged', target_branch: 'main', merge_commit_sha: merged.merge_commit_sha },
      wait: { finished: true },
    });
    expect(answer.summary).toMatch(
      new RegExp(`^main is green: pipeline #${green.id} \\(the merge of !${iid}\\) passed at \\d\\d:\\d\\d UTC$`),
    );
    // It was seen open first, set to merge when its own pipeline passes.
    expect(progress[0]).toMatch(
      new RegExp(
        `^!${iid}'s revert-[0-9a-f]{8}: pipeline #\\d+ (pending|running): \\d+ of \\d+ jobs done; !${iid} is open, set to merge into main when a pipeline passes$`,
      ),
    );
    expect(progress.at(-1)).toBe(answer.summary);
    expect(suite.operation(NAME).present!(answer, { id: WEB }).actions).toEqual([]);
  });

  it('answers a merged merge request at once once its target pipeline ended, and a pipeline named by id', async () => {
    const [last] = await suite.data<Array<{ iid: number }>>('list_project_merge_requests', {
      id: WEB,
      state: 'merged',
      per_page: 1,
    });
    const { answer } = await waitFor({ merge_request_iid: last.iid });
    expect(answer).toMatchObject({ outcome: 'success', wait: { finished: true, checks: 1 } });
    const byId = await waitFor({ ref: 'main', pipeline_id: answer.pipeline!.id, timeout_seconds: 30 });
    expect(byId.answer).toMatchObject({
      outcome: 'success',
      pipeline: { id: answer.pipeline!.id },
      wait: { checks: 1 },
    });
  });
});
