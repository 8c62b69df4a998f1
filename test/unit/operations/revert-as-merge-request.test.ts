// The revert's merge request description and triage's revert step, from reports of every shape: red with the
// culprit first red, red with another commit reverted, not red, and no report at all.
import { describe, expect, it } from 'vitest';
import {
  revertAction,
  revertBranchName,
  revertDescription,
  type RevertPlan,
} from '../../../src/operations/composed/revert-as-merge-request.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';

const CULPRIT = 'eb4870be0123456789abcdef0123456789abcdef';
const plan: RevertPlan = {
  target: 'main',
  branch: revertBranchName(CULPRIT),
  commit: { id: CULPRIT, title: 'Show order dates', author_name: 'Bob Chen' },
};

function report(o: Partial<TriageReport> = {}): TriageReport {
  return {
    project: 'acme/web',
    default_branch: 'main',
    verdict: 'red',
    because: "the head's latest finished pipeline #9 failed",
    head_pipeline: { id: 9, status: 'failed', web_url: 'http://svc/acme/web/-/pipelines/9' },
    red_since: {
      first_red: { pipeline: 8, sha: CULPRIT },
      last_green: { pipeline: 3, sha: 'aaaa1111' },
      suspects: [],
      more_suspects: false,
      ping: ['Bob Chen'],
    },
    failed_jobs: [
      {
        id: 27,
        name: 'test',
        stage: 'test',
        failing_section: 'step_script',
        excerpt: 'Expected: "2024-03-10"\n```\nReceived: "2024-03-09"',
      },
    ],
    actions: [],
    unread: [],
    as_of: '2026-11-27T00:00:00.000Z',
    ...o,
  };
}

describe('the revert merge request description', () => {
  it('names the culprit as the first red commit, the red pipeline and its link, the failing job and its lines, preformatted', () => {
    const text = revertDescription(plan, report());
    expect(text.split('\n')[0]).toBe('Reverts eb4870be "Show order dates" by Bob Chen, the first red commit of main.');
    expect(text).toContain(
      'main of acme/web is red: pipeline `#9` failed (http://svc/acme/web/-/pipelines/9); red since pipeline `#8` at eb4870be.',
    );
    expect(text).toContain('Failed job test (`#27`) in step_script.');
    const judged = revertDescription(
      plan,
      report({ failure: { kind: 'broken', evidence: 'test failed on 2 of 2 runs since eb4870be', jobs: [] } }),
    );
    expect(judged).toContain('\n\nJudged broken: test failed on 2 of 2 runs since eb4870be.\n\n');
    // The lines as they are, in a pre block: a fence inside the log closes nothing.
    expect(text).toContain('\n\n<pre>\nExpected: "2024-03-10"\n```\nReceived: "2024-03-09"\n</pre>\n\n');
    expect(text.endsWith(`This reverts commit ${CULPRIT}.`)).toBe(true);
  });

  it('does not call another commit the first red one; a branch no longer red says what it was; no report, the revert alone', () => {
    const other = { ...plan, commit: { id: 'ccc22222ccc22222', title: 'Other' } };
    expect(revertDescription(other, report()).split('\n')[0]).toBe('Reverts ccc22222 "Other".');
    const green = revertDescription(
      plan,
      report({ verdict: 'green', because: "the head's latest finished pipeline #12 passed", failed_jobs: [] }),
    );
    expect(green).toContain(
      "main of acme/web was green when this was opened: the head's latest finished pipeline `#12` passed.",
    );
    expect(green).not.toContain('Failed job');
    expect(revertDescription(plan, undefined)).toBe(
      `Reverts eb4870be "Show order dates" by Bob Chen.\n\nThis reverts commit ${CULPRIT}.`,
    );
  });
});

describe("triage's revert step", () => {
  it('is offered only while red with a green pipeline before the first red one (a known culprit), by its short SHA', () => {
    expect(revertAction('acme/web', report())).toEqual({
      label: 'Revert eb4870be as a merge request',
      operation: 'revert_as_merge_request',
      input: { id: 'acme/web', sha: 'eb4870be' },
    });
    const since = report().red_since!;
    expect(revertAction('acme/web', report({ red_since: { ...since, last_green: undefined } }))).toBeUndefined();
    expect(revertAction('acme/web', report({ verdict: 'running' }))).toBeUndefined();
    expect(revertAction('acme/web', report({ red_since: undefined }))).toBeUndefined();
  });
});
