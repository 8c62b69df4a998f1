// Contract: every pipelines operation against the sandbox — filters, the create→retry→cancel→delete life cycle,
// variables, on-call presentation, permissions and bad input.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { executeCall } from '../../src/run/call.js';
import { executeOperation } from '../../src/operations/engine/execute.js';
import { operations } from '../../src/operations/index.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { WEB, PAYMENTS, answered } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('pipelines');

type Pipeline = Record<string, unknown> & { id: number; status: string };

/**
 * The pauses of wait_for_pipeline, skipped instead of slept while `on`, and a Date.now that moves only by what was
 * skipped: a wait keeps its schedule without the test waiting for it, every answer comes within the same
 * millisecond, and how many checks a wait makes cannot depend on how fast the machine answers.
 */
const pauses = vi.hoisted(() => ({ on: false, skippedMs: 0 }));
vi.mock('node:timers/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:timers/promises')>();
  const setTimeout = ((ms?: number, value?: unknown, options?: Parameters<typeof real.setTimeout>[2]) => {
    if (!pauses.on) return real.setTimeout(ms, value, options);
    pauses.skippedMs += ms ?? 0;
    return Promise.resolve(value);
  }) as typeof real.setTimeout;
  return { ...real, setTimeout };
});

/** In the describe it is called in: each test's waits skip their pauses, and Date.now moves by what they skipped. */
function skipPausesInEachTest(): void {
  beforeEach(() => {
    const startedAt = Date.now();
    Object.assign(pauses, { on: true, skippedMs: 0 });
    vi.spyOn(Date, 'now').mockImplementation(() => startedAt + pauses.skippedMs);
  });
  afterEach(() => {
    pauses.on = false;
    vi.restoreAllMocks();
  });
}

/** How many times the sandbox was asked for this pipeline. */
function readsOf(pipeline: Pipeline): number {
  return suite.requests().filter((r) => r.method === 'GET' && r.path.endsWith(`/pipelines/${pipeline.id}`)).length;
}

describe.shuffle('pipelines, in any order', () => {
  describe('check_button_premise', () => {
    it('says a button drawn on an older pipeline no longer applies, in words, and runs nothing', async () => {
      const listed = (await suite.call('list_pipelines', { id: WEB, ref: 'main', per_page: 100 })).data as Pipeline[];
      const oldest = listed[listed.length - 1];
      expect(listed.length).toBeGreaterThan(1);
      const stale = await suite.call('check_button_premise', {
        id: WEB,
        kind: 'retry',
        ref: 'main',
        pipeline_id: oldest.id,
        sha: 'd67589d9',
      });
      expect(stale.status).toBe(200);
      expect(stale.data).toEqual({
        holds: false,
        said: expect.stringMatching(/(no longer main's latest|green again).*; nothing was retried\.$/),
      });
    });

    it('says a Merge when green drawn on a merge request that is no longer open applies no more', async () => {
      const merged = (await suite.call('list_project_merge_requests', { id: WEB, state: 'merged', per_page: 1 }))
        .data as Array<{ iid: number }>;
      expect(merged).toHaveLength(1);
      const stale = await suite.call('check_button_premise', {
        id: WEB,
        kind: 'merge',
        ref: 'main',
        merge_request_iid: merged[0].iid,
      });
      expect(stale.data).toEqual({
        holds: false,
        said: `merge request !${merged[0].iid} is merged now; nothing was run.`,
      });
    });
  });

  describe('check_button_premise of a rollback', () => {
    it('holds while production still runs the deployment it was drawn on (an unplayed manual deploy aside), and not after another', async () => {
      const [production] = (await suite.call('list_environments', { id: WEB, name: 'production' })).data as Array<{
        id: number;
      }>;
      const environment = (await suite.call('get_environment', { id: WEB, environment_id: production.id })).data as {
        last_deployment: { id: number };
      };
      const current = environment.last_deployment.id;
      const drawnOn = (deployment_id: number) =>
        suite.call('check_button_premise', {
          id: WEB,
          kind: 'rollback',
          ref: 'main',
          deployment_id,
          environment: 'production',
        });
      expect((await drawnOn(current)).data).toEqual({ holds: true, said: '' });
      const earlier = (
        (await suite.call('list_deployments', { id: WEB, environment: 'production', status: 'success' }))
          .data as Array<{
          id: number;
        }>
      ).find((d) => d.id < current)!;
      expect((await drawnOn(earlier.id)).data).toEqual({
        holds: false,
        said: expect.stringMatching(
          new RegExp(
            `^deployment #\\d+ to production came after #${earlier.id} \\(it is success\\); nothing was rolled back\\.$`,
          ),
        ),
      });
    });
  });

  describe('list_pipelines', () => {
    it('lists pipelines in the list form, newest first, with offset page info', async () => {
      const result = await suite.call('list_pipelines', { id: WEB, per_page: 3 });
      expect(result.status).toBe(200);
      const pipelines = result.data as Pipeline[];
      expect(pipelines).toHaveLength(3);
      for (const p of pipelines) {
        expect(p).toEqual(
          expect.objectContaining({
            id: expect.any(Number),
            status: expect.any(String),
            ref: expect.any(String),
            sha: expect.stringMatching(/^[0-9a-f]{40}$/),
            web_url: expect.any(String),
            created_at: expect.any(String),
            updated_at: expect.any(String),
          }),
        );
      }
      expect(pipelines.map((p) => p.id)).toEqual([...pipelines.map((p) => p.id)].sort((a, b) => b - a));
      expect(result.page).toMatchObject({ page: 1, per_page: 3, next_page: 2, has_more: true, pages_fetched: 1 });
    });

    it('filters by status, ref and order, and reads every page with all_pages', async () => {
      const failed = await suite.call('list_pipelines', { id: WEB, status: 'failed', ref: 'main' });
      expect((failed.data as Pipeline[]).length).toBeGreaterThan(0);
      for (const p of failed.data as Pipeline[]) expect(p).toMatchObject({ status: 'failed', ref: 'main' });

      const all = await suite.call('list_pipelines', {
        id: WEB,
        per_page: 2,
        all_pages: true,
        order_by: 'id',
        sort: 'asc',
      });
      const ids = (all.data as Pipeline[]).map((p) => p.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      expect(all.page?.has_more).toBe(false);
      expect(all.page?.pages_fetched).toBe(Math.ceil(ids.length / 2));
    });

    it('filters by scope and yaml_errors', async () => {
      const everything = (await suite.call('list_pipelines', { id: WEB, per_page: 100 })).data as Pipeline[];
      expect(new Set(everything.map((p) => p.status)).size).toBeGreaterThan(2);

      const running = (await suite.call('list_pipelines', { id: WEB, scope: 'running', per_page: 100 }))
        .data as Pipeline[];
      expect(running.length).toBeGreaterThan(0);
      expect(running.map((p) => p.status)).toEqual(running.map(() => 'running'));

      // The list form has no yaml_errors field: read each pipeline to see that only broken ones came back.
      const broken = (await suite.call('list_pipelines', { id: WEB, yaml_errors: true, per_page: 100 }))
        .data as Pipeline[];
      expect(broken.length).toBeGreaterThan(0);
      expect(broken.length).toBeLessThan(everything.length);
      for (const p of broken) {
        const full = (await suite.call('get_pipeline', { id: WEB, pipeline_id: p.id })).data as Pipeline;
        expect(full.yaml_errors, `pipeline ${p.id}`).toEqual(expect.any(String));
      }
    });

    it('filters by sha, name and the user who triggered the pipeline', async () => {
      const everything = (await suite.call('list_pipelines', { id: WEB, per_page: 100 })).data as Pipeline[];
      const sha = everything[0].sha as string;
      const ofSha = (await suite.call('list_pipelines', { id: WEB, sha, per_page: 100 })).data as Pipeline[];
      expect(ofSha.length).toBeGreaterThan(0);
      expect(ofSha.length).toBeLessThan(everything.length);
      expect(ofSha.map((p) => p.sha)).toEqual(ofSha.map(() => sha));

      const named = (await suite.call('list_pipelines', { id: WEB, name: 'Deploy to production' })).data as Pipeline[];
      expect(named).toEqual([expect.objectContaining({ ref: 'v1.1.0', status: 'running' })]);

      // The list form has no user either: the full form says who triggered each one.
      const byCarol = (await suite.call('list_pipelines', { id: WEB, username: 'carol', per_page: 100 }))
        .data as Pipeline[];
      expect(byCarol.length).toBeGreaterThan(0);
      expect(byCarol.length).toBeLessThan(everything.length);
      for (const p of byCarol) {
        const full = (await suite.call('get_pipeline', { id: WEB, pipeline_id: p.id })).data as {
          user: { username: string };
        };
        expect(full.user.username).toBe('carol');
      }
    });

    it("filters by update time on either side of a pipeline's updated_at", async () => {
      const everything = (
        await suite.call('list_pipelines', { id: WEB, per_page: 100, order_by: 'updated_at', sort: 'asc' })
      ).data as Pipeline[];
      const times = everything.map((p) => Date.parse(p.updated_at as string));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const pivot = everything[Math.floor(everything.length / 2)].updated_at as string;
      expect(Date.parse(pivot)).toBeGreaterThan(times[0]);
      expect(Date.parse(pivot)).toBeLessThan(times.at(-1)!);
      const after = (await suite.call('list_pipelines', { id: WEB, updated_after: pivot, per_page: 100 }))
        .data as Pipeline[];
      const before = (await suite.call('list_pipelines', { id: WEB, updated_before: pivot, per_page: 100 }))
        .data as Pipeline[];
      expect(after.length).toBeGreaterThan(0);
      expect(before.length).toBeGreaterThan(0);
      for (const p of after) expect(Date.parse(p.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(pivot));
      for (const p of before) expect(Date.parse(p.updated_at as string)).toBeLessThanOrEqual(Date.parse(pivot));
    });

    it('orders by ref when asked', async () => {
      const byRef = (await suite.call('list_pipelines', { id: WEB, order_by: 'ref', sort: 'asc', per_page: 100 }))
        .data as Pipeline[];
      const refs = byRef.map((p) => p.ref as string);
      expect(new Set(refs).size).toBeGreaterThan(2);
      expect(refs).toEqual([...refs].sort());
    });

    it('presents a list as one line per pipeline', async () => {
      const result = await suite.call('list_pipelines', { id: WEB, status: 'failed' });
      const shown = suite.operation('list_pipelines').present!(result.data, { id: WEB });
      const pipelines = result.data as Pipeline[];
      expect(shown.title).toBe(`${pipelines.length} pipeline${pipelines.length === 1 ? '' : 's'}`);
      expect(shown.fields?.[0][0]).toBe(`#${pipelines[0].id}`);
      expect(shown.fields?.[0][1]).toContain('failed');
    });

    it('keeps scope=running as the service defines it, and says in the answer that pending ones are left out', async () => {
      const running = await suite.call('list_pipelines', { id: WEB, scope: 'running' });
      const statuses = (running.data as Pipeline[]).map((p) => p.status);
      expect(statuses.length).toBeGreaterThan(0);
      expect(new Set(statuses)).toEqual(new Set(['running']));
      const pending = (await suite.call('list_pipelines', { id: WEB, scope: 'pending' })).data as Pipeline[];
      expect(pending.length).toBeGreaterThan(0);

      const present = suite.operation('list_pipelines').present!;
      const count = `${statuses.length} pipeline${statuses.length === 1 ? '' : 's'}`;
      expect(present(running.data, { id: WEB, scope: 'running' }).title).toBe(
        `${count} running (pending ones are not included: scope=pending lists them)`,
      );
      expect(present(running.data, { id: WEB, status: 'running' }).title).toBe(
        `${count} running (pending ones are not included: status=pending lists them)`,
      );
      expect(present(pending, { id: WEB, scope: 'pending' }).title).not.toContain('not included');
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_pipelines', { id: WEB });

    it('sends a per_page above 100 (the spec states no maximum) and the service answers at most 100 a page', async () => {
      const before = suite.requests().length;
      const result = await suite.call('list_pipelines', { id: WEB, per_page: 500 });
      expect(
        suite
          .requests()
          .slice(before)
          .map((r) => [r.method, r.path, r.status]),
      ).toEqual([['GET', '/projects/acme%2Fweb/pipelines', 200]]);
      expect(result.page?.per_page).toBe(100);
      expect((result.data as unknown[]).length).toBeLessThanOrEqual(100);
    });
  });

  describe('get_pipeline', () => {
    it('reads the full form and offers Retry on a failed pipeline', async () => {
      const [failed] = (await suite.call('list_pipelines', { id: WEB, status: 'failed' })).data as Pipeline[];
      const pipeline = await answered<Pipeline>(suite, 'get_pipeline', { id: WEB, pipeline_id: failed.id });
      expect(pipeline).toMatchObject({ id: failed.id, status: 'failed', ref: failed.ref, sha: failed.sha });
      for (const key of [
        'before_sha',
        'tag',
        'yaml_errors',
        'user',
        'started_at',
        'finished_at',
        'committed_at',
        'duration',
        'coverage',
      ]) {
        expect(pipeline).toHaveProperty(key);
      }
      const shown = suite.operation('get_pipeline').present!(pipeline, { id: WEB, pipeline_id: failed.id });
      expect(shown.title).toBe(`Pipeline #${failed.id}: failed`);
      expect(shown.fields?.map(([label]) => label)).toEqual(['ref', 'sha', 'duration', 'coverage']);
      expect(shown.actions).toEqual([
        { label: 'Retry', operation: 'retry_pipeline', input: { id: WEB, pipeline_id: failed.id }, style: 'primary' },
      ]);
    });

    it('offers Cancel on a running pipeline and nothing on a successful one', async () => {
      const [running] = (await suite.call('list_pipelines', { id: WEB, status: 'running' })).data as Pipeline[];
      const shownRunning = suite.operation('get_pipeline').present!(running, { id: WEB, pipeline_id: running.id });
      expect(shownRunning.actions?.map((a) => a.operation)).toEqual(['cancel_pipeline']);
      const [success] = (await suite.call('list_pipelines', { id: WEB, status: 'success' })).data as Pipeline[];
      const full = (await suite.call('get_pipeline', { id: WEB, pipeline_id: success.id })).data as Pipeline;
      const shown = suite.operation('get_pipeline').present!(full, { id: WEB, pipeline_id: success.id });
      expect(shown.actions).toEqual([]);
      expect(shown.fields).toContainEqual(['coverage', full.coverage]);
    });

    it("is a 404 with the service's words for a pipeline that does not exist", async () => {
      const error = await suite.call('get_pipeline', { id: WEB, pipeline_id: 999_999 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 404, serviceMessage: '404 Pipeline Not Found' });
    });
  });

  describe('wait_for_pipeline', () => {
    skipPausesInEachTest();

    it('returns a finished pipeline after one check, shown as get_pipeline shows it', async () => {
      const [failed] = (await suite.call('list_pipelines', { id: WEB, status: 'failed' })).data as Pipeline[];
      const result = await suite.call('wait_for_pipeline', { id: WEB, pipeline_id: failed.id });
      expect(result.data).toMatchObject({
        id: failed.id,
        status: 'failed',
        before_sha: expect.any(String),
        wait: { finished: true, checks: 1 },
      });
      expect(pauses.skippedMs).toBe(0);
      const shown = suite.operation('wait_for_pipeline').present!(result.data, { id: WEB, pipeline_id: failed.id });
      expect(shown.title).toBe(`Pipeline #${failed.id}: failed`);
      expect(shown.actions).toEqual([
        { label: 'Retry', operation: 'retry_pipeline', input: { id: WEB, pipeline_id: failed.id }, style: 'primary' },
      ]);
    });

    it('stops at its timeout with the running pipeline and finished: false', async () => {
      const [running] = (await suite.call('list_pipelines', { id: WEB, status: 'running' })).data as Pipeline[];
      const before = readsOf(running);
      const result = await suite.call('wait_for_pipeline', { id: WEB, pipeline_id: running.id, timeout_seconds: 1 });
      // One check, however fast the first answer came: a second one within the 1 s floor would tell nothing new.
      expect(result.data).toMatchObject({ id: running.id, status: 'running', wait: { finished: false, checks: 1 } });
      expect(readsOf(running) - before).toBe(1);
      const shown = suite.operation('wait_for_pipeline').present!(result.data, { id: WEB, pipeline_id: running.id });
      expect(shown.title).toMatch(
        new RegExp(`^Pipeline #${running.id}: running \\(still not finished after \\d+ s\\)$`),
      );
    });

    it('waits as long as it was told: a 3 s wait checks until the last check that keeps one second from the one before', async () => {
      const [running] = (await suite.call('list_pipelines', { id: WEB, status: 'running' })).data as Pipeline[];
      const before = readsOf(running);
      const result = await suite.call('wait_for_pipeline', { id: WEB, pipeline_id: running.id, timeout_seconds: 3 });
      // Checks at 0, 1 and 2.5 s, not just the first: the next, at 3 s, would come sooner than the 1 s floor after
      // the last.
      expect(result.data).toMatchObject({ status: 'running', wait: { finished: false, checks: 3 } });
      expect(readsOf(running) - before).toBe(3);
      expect(pauses.skippedMs).toBe(2_500);
    });

    it("ends with the service's own error for a pipeline that does not exist", async () => {
      await expect(suite.call('wait_for_pipeline', { id: WEB, pipeline_id: 999_999 })).rejects.toMatchObject({
        status: 404,
      });
    });
  });

  describe('wait_until_settled', () => {
    // The same skipped pauses as wait_for_pipeline's; the sandbox's clock stands still, so nothing moves meanwhile.
    skipPausesInEachTest();

    it('answers a finished pipeline of a branch named by id after one check, in words', async () => {
      const [failed] = (await suite.call('list_pipelines', { id: WEB, ref: 'main', status: 'failed' }))
        .data as Pipeline[];
      const result = await suite.call('wait_until_settled', {
        id: WEB,
        ref: 'main',
        pipeline_id: failed.id,
        timeout_seconds: 1,
      });
      expect(result.data).toMatchObject({
        outcome: 'failed',
        ref: 'main',
        pipeline: { id: failed.id, status: 'failed' },
        wait: { finished: true, checks: 1, timeout_seconds: 1 },
      });
      expect((result.data as { summary: string }).summary).toMatch(
        new RegExp(`^main is red: pipeline #${failed.id} failed at jobs? `),
      );
      expect(pauses.skippedMs).toBe(0);
    });

    it("answers where an open merge request's pending pipeline stands when its time runs out", async () => {
      const mr = await suite.freshMergeRequest(WEB);
      const result = await suite.call('wait_until_settled', { id: WEB, merge_request_iid: mr.iid, timeout_seconds: 1 });
      expect(result.data).toMatchObject({
        outcome: 'waiting',
        ref: mr.source_branch,
        pipeline: { status: 'pending', sha: mr.sha },
        merge_request: { iid: mr.iid, state: 'opened', merge_when_pipeline_succeeds: false },
        wait: { finished: false, checks: 1 },
      });
      expect((result.data as { summary: string }).summary).toMatch(
        new RegExp(
          `^Not settled yet \\(waited 0 s\\): !${mr.iid}'s ${mr.source_branch}: pipeline #\\d+ pending: 0 of \\d+ jobs done; !${mr.iid} is open, not set to merge$`,
        ),
      );
    });
  });

  describe('pipeline life cycle', () => {
    it('says which jobs a retry re-queued, by name, in its data and its readable answer', async () => {
      const { id } = (await suite.call('create_pipeline', { id: WEB, ref: 'main' }, { as: 'developer' }))
        .data as Pipeline;
      await suite.call('cancel_pipeline', { id: WEB, pipeline_id: id }, { as: 'developer' });
      const jobs = (await suite.call('list_pipeline_jobs', { id: WEB, pipeline_id: id })).data as Array<{
        id: number;
        name: string;
        status: string;
      }>;
      const canceled = jobs.filter((job) => job.status === 'canceled');
      expect(canceled.length).toBeGreaterThan(0);

      // Through the path every front end takes: the jobs are read before and after the retry.
      const client = new HttpClient({ baseUrl: suite.sandbox.url, token: suite.sandbox.tokens.developer });
      const retried = await executeCall(
        suite.operation('retry_pipeline'),
        { id: WEB, pipeline_id: id },
        { client },
        {
          operations,
        },
      ).finally(() => client.close());
      if (!retried.ok) throw new Error(retried.message);
      expect(
        suite.sandbox.requests.filter({ method: 'POST', path: `/projects/acme%2Fweb/pipelines/${id}/retry` }),
      ).toHaveLength(1);
      const requeued = (retried.result.data as { requeued_jobs: Array<{ id: number; name: string }> }).requeued_jobs;
      expect(requeued.map((job) => job.name).sort()).toEqual(canceled.map((job) => job.name).sort());
      // New jobs: the service runs a job again as a new one.
      expect(requeued.some((job) => canceled.some((old) => old.id === job.id))).toBe(false);
      const shown = suite.operation('retry_pipeline').present!(retried.result.data, { id: WEB, pipeline_id: id });
      const count = `${requeued.length} job${requeued.length === 1 ? '' : 's'}`;
      expect(shown.title).toBe(
        `Retried pipeline #${id}: re-queued ${requeued.map((job) => job.name).join(', ')} (${count})`,
      );
      await suite.call('cancel_pipeline', { id: WEB, pipeline_id: id }, { as: 'developer' });
    });

    it('creates with variables, lists them, retries, cancels and deletes', async () => {
      const created = await suite.call(
        'create_pipeline',
        {
          id: WEB,
          ref: 'main',
          variables: [
            { key: 'DEPLOY_ENV', value: 'staging' },
            { key: 'CONFIG', value: 'a: 1\n', variable_type: 'file' },
          ],
        },
        { as: 'developer' },
      );
      expect(created.status).toBe(201);
      const pipeline = created.data as Pipeline;
      expect(pipeline).toMatchObject({ status: 'pending', ref: 'main', before_sha: '0'.repeat(40), tag: false });
      expect(
        suite.operation('create_pipeline').present!(pipeline, { id: WEB, ref: 'main' }).actions?.[0].operation,
      ).toBe('cancel_pipeline');

      const variables = await suite.call(
        'list_pipeline_variables',
        { id: WEB, pipeline_id: pipeline.id },
        { as: 'developer' },
      );
      expect(variables.data).toEqual([
        { key: 'DEPLOY_ENV', variable_type: 'env_var', value: 'staging' },
        { key: 'CONFIG', variable_type: 'file', value: 'a: 1\n' },
      ]);

      const canceled = await suite.call('cancel_pipeline', { id: WEB, pipeline_id: pipeline.id }, { as: 'developer' });
      expect(canceled.data).toMatchObject({ id: pipeline.id, status: 'canceled' });
      expect(
        suite.operation('cancel_pipeline').present!(canceled.data, { id: WEB, pipeline_id: pipeline.id }).actions?.[0]
          .label,
      ).toBe('Retry');

      const retried = await suite.call('retry_pipeline', { id: WEB, pipeline_id: pipeline.id }, { as: 'developer' });
      expect(retried.data).toMatchObject({ id: pipeline.id, status: 'pending' });

      const deleted = await suite.call('delete_pipeline', { id: WEB, pipeline_id: pipeline.id });
      expect(deleted.status).toBe(204);
      await expect(suite.call('get_pipeline', { id: WEB, pipeline_id: pipeline.id })).rejects.toMatchObject({
        status: 404,
      });
    });

    it("resends neither a DELETE nor a retry of the pipeline's jobs after a 503: an approved call runs once", async () => {
      // The suite's own clients never retry; this one does, as a configured forgeops client would.
      const client = new HttpClient({
        baseUrl: suite.sandbox.url,
        token: suite.sandbox.tokens.maintainer,
        retry: { minDelayMs: 1, maxDelayMs: 2 },
      });
      const run = (name: string, raw: Record<string, unknown>) => {
        const op = suite.operation(name);
        return executeOperation(op, validateInput(op, raw) as Record<string, unknown>, { client });
      };
      try {
        const { id } = (await suite.call('create_pipeline', { id: WEB, ref: 'main' }, { as: 'developer' }))
          .data as Pipeline;
        const path = `/projects/acme%2Fweb/pipelines/${id}`;
        const sent = (method: string, at: string) => suite.sandbox.requests.filter({ method, path: at }).length;

        suite.sandbox.faults.add({ method: 'POST', path: `${path}/retry`, status: 503 });
        const refused = await run('retry_pipeline', { id: WEB, pipeline_id: id }).catch((e: unknown) => e);
        expect(refused).toMatchObject({ status: 503 });
        expect(sent('POST', `${path}/retry`)).toBe(1);

        // What a human approved runs once: a destructive call is never resent, even on a 503.
        suite.sandbox.faults.add({ method: 'DELETE', path, status: 503 });
        const failed = await run('delete_pipeline', { id: WEB, pipeline_id: id }).catch((e: unknown) => e);
        expect(failed).toMatchObject({ status: 503 });
        expect(sent('DELETE', path)).toBe(1);
        const deleted = await run('delete_pipeline', { id: WEB, pipeline_id: id });
        expect(deleted.status).toBe(204);
        expect(sent('DELETE', path)).toBe(2);
        await expect(suite.call('get_pipeline', { id: WEB, pipeline_id: id })).rejects.toMatchObject({ status: 404 });
      } finally {
        suite.sandbox.faults.clear();
        await client.close();
      }
    });

    it("reports an unknown ref with the service's validation message", async () => {
      const error = await suite
        .call('create_pipeline', { id: WEB, ref: 'no-such-branch' }, { as: 'developer' })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 400, fieldErrors: { base: ['Reference not found'] } });
    });
  });

  describe('permissions', () => {
    it("hides a private project from an outsider behind the service's 404", async () => {
      const error = await suite.call('list_pipelines', { id: PAYMENTS }, { as: 'outsider' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(404);
      expect((error as ApiError).message).toBe('404 Project Not Found');
    });

    it('refuses writes below developer with 403', async () => {
      const [failed] = (await suite.call('list_pipelines', { id: WEB, status: 'failed' })).data as Pipeline[];
      await expect(
        suite.call('retry_pipeline', { id: WEB, pipeline_id: failed.id }, { as: 'reporter' }),
      ).rejects.toMatchObject({ status: 403 });
      await expect(suite.call('create_pipeline', { id: WEB, ref: 'main' }, { as: 'guest' })).rejects.toMatchObject({
        status: 403,
      });
      await expect(
        suite.call('delete_pipeline', { id: WEB, pipeline_id: failed.id }, { as: 'developer' }),
      ).rejects.toMatchObject({ status: 403 });
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['a status the API does not have', 'list_pipelines', { id: WEB, status: 'broken' }, 'status'],
      ['a missing ref', 'create_pipeline', { id: WEB }, 'ref'],
      ['an unknown key', 'get_pipeline', { id: WEB, pipeline_id: 1, pipelineid: 2 }, ''],
      ['a wait of no time', 'wait_for_pipeline', { id: WEB, pipeline_id: 1, timeout_seconds: 0 }, 'timeout_seconds'],
      [
        'a variable with an unknown key',
        'create_pipeline',
        { id: WEB, ref: 'main', variables: [{ key: 'A', value: 'b', masked: true }] },
        'variables.0',
      ],
    ]);
  });
});

suite.coverageCase();
