// The flaky / broken / infrastructure judge over a table of job histories: each row is the runs a job list would give
// (retried runs included), the job's latest run in the judged pipeline, and the verdict and one-line evidence expected.
import { describe, expect, it } from 'vitest';
import type { FollowUp } from '../../../src/operations/engine/define.js';
import {
  combine,
  failingRuns,
  failureText,
  INFRASTRUCTURE_REASONS,
  judgeJob,
  orderActions,
  pingAction,
  type JobRun,
} from '../../../src/operations/composed/failure-kind.js';

const A = 'aaaaaaaa11111111111111111111111111111111';
const B = 'bbbbbbbb22222222222222222222222222222222';
const C = 'cccccccc33333333333333333333333333333333';

let nextId = 100;
/** A run of `name` in pipeline `pipeline` at commit `sha`; ids grow in the order runs are made. */
function run(pipeline: number, sha: string, status: string, o: Partial<JobRun> = {}): JobRun {
  return {
    id: nextId++,
    name: 'test',
    status,
    pipeline,
    sha,
    ...(status === 'failed' ? { failure_reason: 'script_failure' } : {}),
    ...o,
  };
}

interface Row {
  title: string;
  runs: () => JobRun[];
  complete?: boolean;
  kind: string;
  evidence: string;
  counts?: { runs: number; failed: number };
  since?: string;
}

const table: Row[] = [
  {
    title: 'a pass on a retry of the same pipeline: flaky, "passed on retry 1 of this commit"',
    // The pass was retried again and failed (a job's own retry works on a passed job too).
    runs: () => [run(1, A, 'failed'), run(1, A, 'success'), run(1, A, 'failed')],
    kind: 'flaky',
    evidence: 'test passed on retry 1 of this commit',
    counts: { runs: 3, failed: 2 },
  },
  {
    title: "a pass in another pipeline of the same commit: flaky, counted over the commit's runs",
    runs: () => [run(1, A, 'success'), run(2, A, 'failed'), run(3, A, 'failed')],
    kind: 'flaky',
    evidence: 'test passed on 1 of 3 runs of aaaaaaaa',
    counts: { runs: 3, failed: 2 },
  },
  {
    title: 'failed on every run since a commit, back to a pass on the commit before: broken since that commit',
    runs: () => [
      run(1, A, 'success'),
      run(2, B, 'failed', { author: 'Bob Chen', title: 'Change time zones' }),
      run(2, B, 'failed'),
      run(3, C, 'failed'),
      run(3, C, 'failed'),
    ],
    kind: 'broken',
    evidence: 'test failed on 4 of 4 runs since bbbbbbbb',
    counts: { runs: 4, failed: 4 },
    since: B,
  },
  {
    title: 'a retry that failed again on the same commit: broken, not flaky',
    runs: () => [run(1, A, 'success'), run(2, B, 'failed'), run(2, B, 'failed')],
    kind: 'broken',
    evidence: 'test failed on 2 of 2 runs since bbbbbbbb',
    since: B,
  },
  {
    title:
      'failures back to the oldest run read, with no pass and the history cut: broken, saying older runs were not read',
    runs: () => [run(2, B, 'failed'), run(3, C, 'failed')],
    complete: false,
    kind: 'broken',
    evidence: 'test failed on 2 of 2 runs since bbbbbbbb (older runs not read)',
    since: B,
  },
  {
    title: 'one failure after a pass on an older commit: unknown, saying too few runs',
    runs: () => [run(1, A, 'success'), run(2, B, 'failed')],
    kind: 'unknown',
    evidence:
      'test failed on its only run of bbbbbbbb; it passed at aaaaaaaa before: too few runs to tell flaky from broken (a retry tells)',
  },
  {
    title: 'a single run and nothing else: unknown',
    runs: () => [run(2, B, 'failed')],
    kind: 'unknown',
    evidence: 'test failed on its only run of bbbbbbbb: too few runs to tell flaky from broken (a retry tells)',
  },
  {
    title: 'runner failures earlier in the streak judge no code: one script failure left is unknown',
    runs: () => [
      run(1, A, 'success'),
      run(2, B, 'failed', { failure_reason: 'runner_system_failure' }),
      run(2, B, 'failed'),
    ],
    kind: 'unknown',
    evidence:
      'test failed on its only run of bbbbbbbb; it passed at aaaaaaaa before: too few runs to tell flaky from broken (a retry tells)',
  },
  {
    title: 'a canceled run and a running one count for nothing',
    runs: () => [
      run(1, A, 'success'),
      run(2, B, 'canceled'),
      run(2, B, 'running'),
      run(3, B, 'failed'),
      run(3, B, 'failed'),
    ],
    kind: 'broken',
    evidence: 'test failed on 2 of 2 runs since bbbbbbbb',
  },
  {
    title: "runs of other jobs are not this job's",
    runs: () => [run(1, A, 'success', { name: 'lint' }), run(2, A, 'failed'), run(2, A, 'failed')],
    kind: 'broken',
    evidence: 'test failed on 2 of 2 runs since aaaaaaaa',
  },
  // Every infrastructure reason the service documents, on the latest run, whatever came before it.
  ...Object.keys(INFRASTRUCTURE_REASONS).map(
    (reason): Row => ({
      title: `the latest run failed with ${reason}: infrastructure`,
      runs: () => [run(2, B, 'failed'), run(2, B, 'failed'), run(3, B, 'failed', { failure_reason: reason })],
      kind: 'infrastructure',
      evidence: `test failed with ${reason}: ${INFRASTRUCTURE_REASONS[reason]}, not the code`,
    }),
  ),
];

describe('judgeJob over a table of histories', () => {
  for (const row of table) {
    it(row.title, () => {
      const runs = row.runs();
      const current = runs.filter((r) => r.name === 'test').at(-1)!;
      const judged = judgeJob(current, runs, row.complete ?? true);
      expect({ kind: judged.kind, evidence: judged.evidence }).toEqual({ kind: row.kind, evidence: row.evidence });
      if (row.counts) expect({ runs: judged.runs, failed: judged.failed }).toEqual(row.counts);
      if (row.since) expect(judged.since?.sha).toBe(row.since);
    });
  }

  it('a broken job names the commit since which it fails with its title and author, as the job list gave them', () => {
    const runs = [
      run(1, A, 'success'),
      run(2, B, 'failed', { author: 'Bob Chen', title: 'Change time zones' }),
      run(3, C, 'failed', { author: 'Alice' }),
    ];
    expect(judgeJob(runs[2], runs, true).since).toEqual({ sha: B, title: 'Change time zones', author: 'Bob Chen' });
  });

  it('script failures and unknown reasons are not infrastructure', () => {
    for (const reason of [
      'script_failure',
      'unknown_failure',
      'job_execution_timeout',
      'missing_dependency_failure',
      'archived_failure',
    ]) {
      expect(reason in INFRASTRUCTURE_REASONS).toBe(false);
      const only = run(1, A, 'failed', { failure_reason: reason });
      expect(judgeJob(only, [only], true).kind).toBe('unknown');
    }
  });
});

describe("mixed jobs: the pipeline's verdict and its actions", () => {
  const judge = (name: string, runs: JobRun[]) => {
    const named = runs.map((r) => ({ ...r, name }));
    return judgeJob(named.at(-1)!, named, true);
  };
  const broken = () => judge('test', [run(1, A, 'success'), run(2, B, 'failed'), run(3, C, 'failed')]);
  const flaky = () => judge('lint', [run(3, C, 'success'), run(4, C, 'failed')]);
  const infra = () => judge('build', [run(4, C, 'failed', { failure_reason: 'stuck_or_timeout_failure' })]);
  const unknown = () => judge('e2e', [run(4, C, 'failed')]);

  it('broken wins over everything (retrying the others leaves it red), then unknown, then flaky, then infrastructure', () => {
    expect(combine([infra(), flaky(), broken(), unknown()])?.kind).toBe('broken');
    expect(combine([infra(), unknown(), flaky()])?.kind).toBe('unknown');
    expect(combine([infra(), flaky()])).toMatchObject({
      kind: 'flaky',
      evidence: 'lint passed on 1 of 2 runs of cccccccc',
    });
    expect(combine([infra()])?.kind).toBe('infrastructure');
    expect(combine([])).toBeUndefined();
  });

  it('reads as one line for one job, one line per job for several', () => {
    expect(failureText(combine([broken()])!)).toBe('broken: test failed on 2 of 2 runs since bbbbbbbb');
    expect(failureText(combine([flaky(), infra()])!).split('\n')).toEqual([
      'flaky: lint passed on 1 of 2 runs of cccccccc',
      'infrastructure: build failed with stuck_or_timeout_failure: the job got stuck or timed out waiting for a runner, not the code',
    ]);
  });

  const actions: FollowUp[] = [
    {
      label: 'Retry failed jobs of #9',
      operation: 'retry_pipeline',
      input: { id: 'p', pipeline_id: 9 },
      style: 'primary',
    },
    { label: 'Log of test', operation: 'get_job_log', input: { id: 'p', job_id: 1 } },
    { label: 'Revert bbbbbbbb as a merge request', operation: 'revert_as_merge_request', input: { id: 'p' } },
    { label: 'Open incident issue', operation: 'open_incident_issue', input: { id: 'p' } },
  ];

  it("broken puts the revert first, then the ping of the culprit's author (a comment on its commit); retry comes after", () => {
    const verdict = combine([broken(), flaky()])!;
    const ping = pingAction('p', 'main', verdict)!;
    expect(ping).toEqual({
      label: 'Ping the author on bbbbbbbb',
      operation: 'create_commit_comment',
      input: {
        id: 'p',
        sha: B,
        note: 'main is red since this commit: test failed on 2 of 2 runs since bbbbbbbb. Please revert or fix it.',
      },
    });
    const ordered = orderActions(actions, verdict, ping);
    expect(ordered.map((a) => a.operation)).toEqual([
      'revert_as_merge_request',
      'create_commit_comment',
      'retry_pipeline',
      'get_job_log',
      'open_incident_issue',
    ]);
    // The retry, which would stay red, no longer stands out (Slack's primary button).
    expect(ordered.filter((a) => a.style === 'primary')).toEqual([]);
  });

  it('flaky, infrastructure and unknown put the retry first, and offer no ping', () => {
    for (const verdict of [combine([flaky()])!, combine([infra()])!, combine([unknown()])!]) {
      expect(pingAction('p', 'main', verdict)).toBeUndefined();
      const reordered = [actions[2], actions[1], actions[0], actions[3]];
      expect(orderActions(reordered, verdict)[0]).toMatchObject({ operation: 'retry_pipeline', style: 'primary' });
    }
  });
});

describe('failingRuns: the jobs that keep a pipeline red', () => {
  it("takes each job's latest run: a failure a retry passed is not failing, a pass retried and failed is", () => {
    const runs = [
      run(1, A, 'failed'),
      run(1, A, 'success'),
      run(1, A, 'success', { name: 'lint' }),
      run(1, A, 'failed', { name: 'lint' }),
      run(1, A, 'failed', { name: 'e2e' }),
    ];
    expect(failingRuns(runs).map((r) => r.name)).toEqual(['lint', 'e2e']);
  });

  it('leaves out a failure the CI configuration allows (it does not turn the pipeline red)', () => {
    const runs = [run(1, A, 'failed', { name: 'audit', allow_failure: true }), run(1, A, 'failed')];
    expect(failingRuns(runs).map((r) => r.name)).toEqual(['test']);
  });
});
