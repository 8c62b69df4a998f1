// The incident loop against the sandbox, through the registry's operations and the sandbox's clock: acme/web's main
// is red; a retry fails again, so triage calls it broken, not flaky; the culprit (found by its title) is reverted as a
// merge request set to merge when its pipeline succeeds; that pipeline passes, auto-merge merges it, main's pipeline
// runs and passes, and triage says green. Every pipeline and job read on the way has sane times.
import { describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/sandbox/core/clock.js';
import { commitsOf, commitTitled, TIME_ZONE_CULPRIT, WEB } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite();

type Pipeline = {
  id: number;
  sha: string;
  ref: string;
  status: string;
  created_at: string;
  started_at?: string | null;
  finished_at?: string | null;
  duration?: number | null;
};
type Job = {
  id: number;
  name: string;
  status: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration: number | null;
  queued_duration: number | null;
};
type Triage = {
  verdict: string;
  head_pipeline?: { id: number; status: string };
  failure?: { kind: string; evidence: string };
};
type MergeRequest = {
  iid: number;
  state: string;
  merge_when_pipeline_succeeds: boolean;
  merge_commit_sha: string | null;
  sha: string;
};

const clock = () => suite.sandbox.store.clock as ManualClock;

/** Moves the sandbox's clock on (every job of a pipeline ends within a minute of it) and lets the runner catch up. */
async function runFor(seconds: number): Promise<void> {
  clock().advance(seconds * 1000);
  await suite.data('get_pipeline', { id: WEB, pipeline_id: (await pipelines('main'))[0].id });
}

/** A time the sandbox answered: never after its own now; a duration: never negative. */
function expectSaneTimes(item: {
  created_at: string;
  started_at?: string | null;
  finished_at?: string | null;
  duration?: number | null;
  queued_duration?: number | null;
}): void {
  const now = clock().now();
  for (const at of [item.created_at, item.started_at, item.finished_at])
    if (at) expect(Date.parse(at)).toBeLessThanOrEqual(now);
  if (item.started_at) expect(Date.parse(item.started_at)).toBeGreaterThanOrEqual(Date.parse(item.created_at));
  if (item.started_at && item.finished_at)
    expect(Date.parse(item.finished_at)).toBeGreaterThanOrEqual(Date.parse(item.started_at));
  for (const span of [item.duration, item.queued_duration])
    if (span !== undefined && span !== null) expect(span).toBeGreaterThanOrEqual(0);
}

async function pipelines(ref: string): Promise<Pipeline[]> {
  const list = await suite.data<Pipeline[]>('list_pipelines', { id: WEB, ref });
  return Promise.all(
    list.slice(0, 3).map(async (p) => {
      const full = await suite.data<Pipeline>('get_pipeline', { id: WEB, pipeline_id: p.id });
      expectSaneTimes(full);
      return full;
    }),
  );
}

async function jobsOf(pipelineId: number): Promise<Job[]> {
  const jobs = await suite.data<Job[]>('list_pipeline_jobs', {
    id: WEB,
    pipeline_id: pipelineId,
    include_retried: true,
  });
  for (const job of jobs) expectSaneTimes(job);
  return jobs;
}

const triage = () => suite.data<Triage>('triage_project', { id: WEB });

// A story, deliberately in order (red, retry, revert, green): each step starts where the one before left acme/web.
// Unlike the other contract files it is not shuffled, and shuffle: false keeps it so under --sequence.shuffle too.
describe('the incident loop on acme/web', { shuffle: false }, () => {
  let red: number;

  it('a fresh sandbox finds main red', async () => {
    const report = await triage();
    expect(report.verdict).toBe('red');
    red = report.head_pipeline!.id;
    expect((await suite.data<Pipeline>('get_pipeline', { id: WEB, pipeline_id: red })).status).toBe('failed');
  });

  it('a retry runs test again, it fails again, and triage judges main broken, not flaky', async () => {
    const retried = await suite.data<Pipeline>('retry_pipeline', { id: WEB, pipeline_id: red });
    expect(retried.status).toMatch(/^(pending|running)$/);
    await runFor(60);
    expect((await suite.data<Pipeline>('get_pipeline', { id: WEB, pipeline_id: red })).status).toBe('failed');
    const runs = (await jobsOf(red)).filter((j) => j.name === 'test');
    expect(runs.map((j) => j.status)).toEqual(['failed', 'failed']);
    // The retry really ran, on the sandbox's clock: started and finished after the first run ended.
    const [latest, first] = runs;
    expect(Date.parse(latest.started_at!)).toBeGreaterThanOrEqual(Date.parse(first.finished_at!));

    const report = await triage();
    expect(report.verdict).toBe('red');
    expect(report.failure?.kind).toBe('broken');
  });

  it('the culprit, reverted as a merge request set to auto-merge, merges when its pipeline passes; main turns green', async () => {
    const commits = await commitsOf(suite, WEB);
    const culprit = commitTitled(commits, TIME_ZONE_CULPRIT);
    const mainBefore = commits[0].id;
    const made = await suite.data<{ branch: string; merge_request: { iid: number }; revert_commit: { id: string } }>(
      'revert_as_merge_request',
      { id: WEB, sha: culprit.id },
      'developer',
    );
    expect(made.branch).toBe(`revert-${culprit.id.slice(0, 8)}`);

    // The revert's pipeline has started; auto-merge is set before it ends.
    const [onBranch] = await pipelines(made.branch);
    expect(onBranch).toMatchObject({ sha: made.revert_commit.id, status: 'pending' });
    const set = await suite.data<MergeRequest>('merge_merge_request', {
      id: WEB,
      merge_request_iid: made.merge_request.iid,
      merge_when_pipeline_succeeds: true,
    });
    expect(set).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    // Said in words, as the vendor answers it: still opened, waiting for the branch's pipeline.
    const { outcomeSentence } = await import('../../src/operations/engine/outcome.js');
    expect(
      outcomeSentence(
        suite.operation('merge_merge_request'),
        { id: WEB, merge_request_iid: made.merge_request.iid },
        set,
      )?.text,
    ).toBe(
      `Merge request !${made.merge_request.iid} will merge when pipeline #${onBranch.id} passes (into main of ${WEB})`,
    );
    expect((await pipelines('main'))[0].sha).toBe(mainBefore);

    await runFor(60);
    const [passed] = await pipelines(made.branch);
    expect(passed).toMatchObject({ id: onBranch.id, status: 'success' });
    expect((await jobsOf(passed.id)).find((j) => j.name === 'test')?.status).toBe('success');
    const merged = await suite.data<MergeRequest>('get_merge_request', {
      id: WEB,
      merge_request_iid: made.merge_request.iid,
    });
    expect(merged).toMatchObject({ state: 'merged', merge_when_pipeline_succeeds: false });

    // The merge is main's new head, and its pipeline runs: triage waits for it, then says green.
    const [onMain] = await pipelines('main');
    expect(onMain).toMatchObject({ sha: merged.merge_commit_sha, status: 'pending' });
    await runFor(60);
    const [green] = await pipelines('main');
    expect(green).toMatchObject({ id: onMain.id, status: 'success' });
    expect(green.duration).toBeGreaterThan(0);
    await jobsOf(green.id);
    const report = await triage();
    expect(report.verdict).toBe('green');
    expect(report.head_pipeline).toMatchObject({ id: green.id, status: 'success' });
    expect(report.failure).toBeUndefined();
  });
});
