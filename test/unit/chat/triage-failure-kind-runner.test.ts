// Flaky, broken or infrastructure from histories the sandbox's runner made, on a clock the test drives: acme/web's test
// fails again after a retry (broken since bob's commit), payments-api's flaky test passes and fails on the same commit
// (flaky), and infra's plan loses its runner, then passes on the retry (infrastructure, then green).
import { describe, expect, it } from 'vitest';
import { INFRASTRUCTURE_REASONS } from '../../../src/operations/composed/failure-kind.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

const clock = new ManualClock();
const env = useSandbox({ clock });

const dispatcher = () => testDispatcher(() => env.client);

type Row = Record<string, unknown>;

async function data<T = Row[]>(name: string, input: Row): Promise<T> {
  const reply = await dispatcher().call(name, input);
  if (reply.kind !== 'message' || !reply.outcome?.ok)
    throw new Error(`${name} failed: ${reply.kind === 'message' ? JSON.stringify(reply.message) : reply.kind}`);
  return reply.outcome.result.data as T;
}

/** The report, and the failure line of the chat message a person reads. */
async function triage(project: string) {
  const report = await data<TriageReport>('triage_project', { id: project });
  const reply = await dispatcher().dispatch(`triage ${project}`);
  if (reply.kind !== 'message' || !reply.ok) throw new Error('triage failed');
  return { report, failure: reply.message.fields.find(([k]) => k === 'failure')?.[1] };
}

const sha8 = (sha: unknown) => String(sha).slice(0, 8);
const asPipeline = (job: Row) => (job.pipeline as Row).id;
const FINISHED = ['success', 'failed', 'canceled', 'skipped'];

/** Runs the sandbox's clock a second at a time (a read between steps lets the runner act) until the pipeline ends. */
async function runToEnd(project: string, pipelineId: number): Promise<Row> {
  for (let second = 0; second < 180; second++) {
    const pipeline = await data<Row>('get_pipeline', { id: project, pipeline_id: pipelineId });
    if (FINISHED.includes(String(pipeline.status))) return pipeline;
    clock.advance(1000);
  }
  throw new Error(`pipeline #${pipelineId} of ${project} did not end in 180 s of its clock`);
}

/** Every run of `name` (retried ones too) in the given pipelines, read the plain way. */
async function runsOf(project: string, pipelines: Row[], name: string): Promise<Row[]> {
  const lists = await Promise.all(
    pipelines.map((p) =>
      data('list_pipeline_jobs', { id: project, pipeline_id: p.id, include_retried: true, per_page: 100 }),
    ),
  );
  return lists.flat().filter((job) => job.name === name);
}

describe("verdicts from runs the sandbox's runner made", () => {
  it("acme/web: the retried test fails again, so broken since bob's commit, counting the retry", async () => {
    const project = 'acme/web';
    const commits = await data('list_commits', { id: project, ref_name: 'main', per_page: 100 });
    const culprit = commits.find((c) => c.title === "Show order dates in the store's time zone")!;
    const before = await triage(project);
    expect(before.report.failure?.evidence).toBe(`test failed on 2 of 2 runs since ${sha8(culprit.id)}`);
    const head = before.report.head_pipeline!;
    await data('retry_pipeline', { id: project, pipeline_id: head.id });
    expect((await runToEnd(project, head.id)).status).toBe('failed');
    const red = (await data('list_pipelines', { id: project, ref: 'main', status: 'failed' })).filter(
      (p) => Number(p.id) >= before.report.red_since!.first_red.pipeline,
    );
    const runs = await runsOf(project, red, 'test');
    expect(runs.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    const after = await triage(project);
    expect(after.report.failure).toMatchObject({
      kind: 'broken',
      evidence: `test failed on 3 of 3 runs since ${sha8(culprit.id)}`,
    });
    expect(after.report.failure?.jobs[0].since).toMatchObject({ sha: culprit.id, author: 'Bob Chen' });
    expect(after.failure).toBe(`broken: test failed on 3 of 3 runs since ${sha8(culprit.id)}`);
  });

  it('payments-api: its test passes and fails on the same commit, so flaky, and Retry comes first', async () => {
    const project = 'acme/platform/payments-api';
    const created = await data<Row>('create_pipeline', { id: project, ref: 'main' });
    let last = await runToEnd(project, Number(created.id));
    // The test job retried until it has passed and then failed on this commit (the runner's dice are fixed).
    for (let i = 0; i < 20; i++) {
      const runs = (await runsOf(project, [last], 'test')).sort((a, b) => Number(a.id) - Number(b.id));
      if (runs.some((r) => r.status === 'success') && runs.at(-1)!.status === 'failed') break;
      await data('retry_job', { id: project, job_id: runs.at(-1)!.id });
      last = await runToEnd(project, Number(created.id));
    }
    expect(last.status).toBe('failed');
    // Every finished run of test on this commit, any ref, oldest first, read the plain way.
    const ofCommit = await data('list_pipelines', { id: project, sha: last.sha });
    const runs = (await runsOf(project, ofCommit, 'test'))
      .filter((r) => r.status === 'success' || r.status === 'failed')
      .sort((a, b) => Number(a.id) - Number(b.id));
    const firstPass = runs.findIndex((r) => r.status === 'success');
    const oneOfThis = runs.every((r) => asPipeline(r) === created.id);
    const evidence =
      oneOfThis && firstPass > 0
        ? `test passed on retry ${firstPass} of this commit`
        : `test passed on ${runs.filter((r) => r.status === 'success').length} of ${runs.length} runs of ${sha8(last.sha)}`;
    const { report, failure } = await triage(project);
    expect(report.head_pipeline?.id).toBe(created.id);
    expect(report.failure).toMatchObject({ kind: 'flaky', evidence });
    expect(failure).toBe(`flaky: ${evidence}`);
    expect(report.actions[0]).toMatchObject({ operation: 'retry_pipeline', input: { pipeline_id: created.id } });
  });

  it('infra: plan loses its runner, so infrastructure with Retry first; the retry passes and triage says green', async () => {
    const project = 'acme/platform/infra';
    const created = await data<Row>('create_pipeline', { id: project, ref: 'main' });
    expect((await runToEnd(project, Number(created.id))).status).toBe('failed');
    const [plan] = await data('list_pipeline_jobs', { id: project, pipeline_id: created.id, scope: ['failed'] });
    expect(plan).toMatchObject({ name: 'plan', failure_reason: 'runner_system_failure' });
    const { report, failure } = await triage(project);
    const evidence = `plan failed with runner_system_failure: ${INFRASTRUCTURE_REASONS.runner_system_failure}, not the code`;
    expect(report.failure).toMatchObject({ kind: 'infrastructure', evidence });
    expect(failure).toBe(`infrastructure: ${evidence}`);
    expect(report.actions[0]).toMatchObject({ operation: 'retry_pipeline', input: { pipeline_id: created.id } });
    await data('retry_pipeline', { id: project, pipeline_id: created.id });
    expect((await runToEnd(project, Number(created.id))).status).toBe('success');
    const green = await triage(project);
    expect(green.report.verdict).toBe('green');
    expect(green.report.failure).toBeUndefined();
    expect(green.failure).toBeUndefined();
  });
});
