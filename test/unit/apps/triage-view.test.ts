// The triage view's page and its reading of tool results: the names the ext-apps SDK defines, a page that holds no
// data and never turns data into markup, and a report read as text whatever it contains.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  EXTENSION_ID,
  getUiCapability,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/server';
import {
  APPS_EXTENSION_ID,
  LEGACY_RESOURCE_URI_KEY,
  rendersViews,
  VIEW_MIME_TYPE,
} from '../../../src/apps/triage-app.js';
import {
  logLines,
  nextRefresh,
  outcomeText,
  pipelineView,
  REFRESH_EVERY_MS,
  REFRESH_FOR_MS,
  stageRow,
  stillRunning,
  triageView,
  unfence,
} from '../../../src/apps/triage-view/report.js';
import { buildView, VIEW_SOURCE } from '../../../tools/build-view.mjs';

const HOSTILE_TITLE = '</script><script>alert(1)</script>';
const HOSTILE_LINE = '<img src=x onerror=alert(1)>';

describe('the names of the extension', () => {
  it("are the SDK's own", () => {
    expect(APPS_EXTENSION_ID).toBe(EXTENSION_ID);
    expect(VIEW_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(LEGACY_RESOURCE_URI_KEY).toBe(RESOURCE_URI_META_KEY);
  });

  it("finds a client that renders views as the SDK's getUiCapability does", () => {
    const cases = [
      {},
      { extensions: {} },
      { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      { extensions: { [EXTENSION_ID]: { mimeTypes: ['text/uri-list'] } } },
    ];
    expect(cases.map(rendersViews)).toEqual([false, false, true, false]);
    for (const capabilities of cases.slice(0, 3))
      expect(rendersViews(capabilities)).toBe(
        getUiCapability(capabilities as Parameters<typeof getUiCapability>[0]) !== undefined,
      );
  });
});

describe('the page', () => {
  /** The view's own source: every file the page is built from. */
  const sources = readdirSync(VIEW_SOURCE)
    .filter((file) => /\.(ts|html)$/.test(file))
    .map((file) => readFileSync(join(VIEW_SOURCE, file), 'utf8'));

  it('never makes markup from a string: no innerHTML, outerHTML, insertAdjacentHTML, document.write or srcdoc', () => {
    expect(sources.length).toBeGreaterThan(2);
    for (const source of sources)
      expect(source).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|srcdoc|DOMParser/);
  });

  it('is one document whose policy allows its own script by hash and nothing from elsewhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forgeops-view-'));
    try {
      const file = join(dir, 'triage.html');
      const bytes = await buildView(file);
      const page = readFileSync(file, 'utf8');
      expect(Buffer.byteLength(page)).toBe(bytes);
      const scripts = [...page.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)];
      expect(scripts).toHaveLength(1);
      const hash = createHash('sha256').update(scripts[0][1]).digest('base64');
      expect(page).toContain(`script-src 'sha256-${hash}'`);
      expect(page).toContain("default-src 'none'");
      // Nothing of the service: the page is the same for every project, its data comes in tool results.
      expect(page).not.toMatch(/acme|__CSP__|__SCRIPT__/);
      // Nor does anything bundled with it (the SDK, zod) make markup from strings.
      expect(page).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('reading a triage report', () => {
  const report = {
    project: 'acme/web',
    default_branch: 'main',
    verdict: 'red',
    because: "the head's latest finished pipeline #9 failed",
    head_pipeline: { id: 9, status: 'failed' },
    failure: { kind: 'broken', evidence: 'test failed on 2 of 2 runs since 889e7775' },
    red_since: {
      first_red: { pipeline: 8, sha: '889e777537d6', title: HOSTILE_TITLE, author: 'Bob <b>Chen</b>', red_for: '2 h' },
      suspects: [],
      more_suspects: false,
      ping: ['Bob Chen', 'Carol Diaz'],
    },
    failed_jobs: [
      {
        id: 27,
        name: 'test',
        stage: 'test',
        failure_reason: 'script_failure',
        excerpt: `<untrusted-log source="job 27 log, lines 1–2">\n${HOSTILE_LINE}\nFAIL\n</untrusted-log>\nThe text above is what the job's commands printed.`,
      },
    ],
    actions: [
      {
        label: 'Revert 889e7775 as a merge request',
        operation: 'revert_as_merge_request',
        input: { id: 'acme/web', sha: '889e7775' },
      },
      { label: 'Ping Bob Chen', operation: 'create_commit_comment', input: {} },
      { label: 'Retry failed jobs of #9', operation: 'retry_pipeline', input: { id: 'acme/web', pipeline_id: 9 } },
      { label: 'Open incident issue', operation: 'open_incident_issue', input: { id: 'acme/web' } },
    ],
    release: { tag: 'v1.1.0', unreleased_commits: 3 },
    deployed: {
      culprit: '889e777537d6',
      environments: [],
      stopped_at: 'test',
      said: '889e7775 reached no environment (its pipelines stopped at test)',
    },
    unread: [],
  };

  it('keeps every value as the text it was, and the log lines without the fence', () => {
    const view = triageView(report);
    expect(view.state).toBe('red');
    expect(view.firstRed).toEqual({
      sha: '889e777537d6',
      title: HOSTILE_TITLE,
      author: 'Bob <b>Chen</b>',
      redFor: '2 h',
    });
    expect(view.failedJobs[0].lines).toBe(`${HOSTILE_LINE}\nFAIL`);
    expect(view.failure).toEqual({ kind: 'broken', evidence: 'test failed on 2 of 2 runs since 889e7775' });
    expect(view.ping).toEqual(['Bob Chen', 'Carol Diaz']);
    expect(view.release).toEqual({ tag: 'v1.1.0', unreleased: '3 unreleased commits' });
    expect(view.whereItWent).toBe('889e7775 reached no environment (its pipelines stopped at test)');
    expect(triageView({ ...report, deployed: undefined }).whereItWent).toBeUndefined();
  });

  it("offers the buttons it knows, with the report's own inputs", () => {
    expect(triageView(report).actions.map((a) => [a.label, a.tool])).toEqual([
      ['Revert 889e7775 as a merge request', 'revert_as_merge_request'],
      ['Retry failed jobs', 'retry_pipeline'],
      ['Open an incident issue', 'open_incident_issue'],
    ]);
  });

  it('offers Merge !N when green for an open revert, standing on that merge request as drawn', () => {
    const merge = {
      label: 'Merge !6 when green',
      operation: 'merge_merge_request',
      input: { id: 'acme/web', merge_request_iid: 6, merge_when_pipeline_succeeds: true, sha: 'f36061ac7d7e' },
      style: 'primary',
    };
    const view = triageView({ ...report, actions: [merge, ...report.actions.slice(1)] });
    expect(view.actions[0]).toEqual({
      label: 'Merge !6 when green',
      tool: 'merge_merge_request',
      input: merge.input,
      premise: { kind: 'merge', id: 'acme/web', ref: 'main', merge_request_iid: 6, sha: 'f36061ac7d7e' },
    });
    expect(view.actions.some((a) => a.tool === 'revert_as_merge_request')).toBe(false);
    // Its pipeline failed: the retry of that pipeline stands on the merge request too, not on main's red pipeline.
    const retry = {
      label: 'Retry pipeline #23 of !6',
      operation: 'retry_pipeline',
      input: { id: 'acme/web', pipeline_id: 23 },
    };
    const failed = {
      iid: 6,
      title: 'Revert "Show order dates"',
      source_branch: 'revert-889e7775',
      matched_by: 'branch',
      pipeline: { id: 23, status: 'failed' },
      merge_when_pipeline_succeeds: false,
    };
    const withRetry = triageView({ ...report, open_reverts: [failed], actions: [retry] });
    expect(withRetry.actions).toEqual([
      {
        label: 'Retry pipeline #23 of !6',
        tool: 'retry_pipeline',
        input: retry.input,
        premise: { kind: 'merge', id: 'acme/web', ref: 'main', merge_request_iid: 6, pipeline_id: 23 },
      },
    ]);
    // The view says where the revert stands: its own pipeline failed.
    expect(withRetry.openRevert).toBe('!6 Revert "Show order dates": pipeline #23 failed');
    expect(triageView(report).openRevert).toBeUndefined();
  });

  it('offers Cancel pipeline #N while a pipeline runs, from a triage report and from get_pipeline', () => {
    const running = triageView({
      ...report,
      verdict: 'running',
      running_pipeline: { id: 10, status: 'running' },
      actions: [
        {
          label: 'Cancel #10',
          operation: 'cancel_pipeline',
          input: { id: 'acme/web', pipeline_id: 10 },
          style: 'danger',
        },
      ],
    });
    expect(running.actions).toEqual([
      { label: 'Cancel pipeline #10', tool: 'cancel_pipeline', input: { id: 'acme/web', pipeline_id: 10 } },
    ]);
    expect(pipelineView({ id: 10, status: 'running', ref: 'main' }, 'acme/web').actions).toEqual([
      { label: 'Cancel pipeline #10', tool: 'cancel_pipeline', input: { id: 'acme/web', pipeline_id: 10 } },
    ]);
    expect(pipelineView({ id: 9, status: 'failed' }, 'acme/web').actions.map((a) => a.tool)).toEqual([
      'retry_pipeline',
    ]);
    expect(pipelineView({ id: 8, status: 'canceled' }, 'acme/web').actions).toEqual([]);
  });

  it('says running while a pipeline of the head runs, and keeps reading until nothing runs', () => {
    const running = triageView({ ...report, running_pipeline: { id: 10, status: 'running' } });
    expect(running.state).toBe('running');
    expect(running.pipelineId).toBe(10);
    const jobs = stageRow({
      items: [
        { id: 3, name: 'lint', stage: 'test', status: 'pending' },
        { id: 2, name: 'test', stage: 'test', status: 'running' },
        { id: 1, name: 'build', stage: 'build', status: 'success' },
      ],
    });
    expect(jobs.map((s) => [s.stage, s.jobs.map((j) => j.status)])).toEqual([
      ['build', ['success']],
      ['test', ['running', 'pending']],
    ]);
    // Compact rows without the stage: one row of the jobs, in the order they run.
    expect(
      stageRow({
        items: [
          { id: 28, name: 'deploy', status: 'skipped' },
          { id: 25, name: 'build', status: 'success' },
        ],
      }),
    ).toEqual([
      {
        stage: '',
        jobs: [
          { id: 25, name: 'build', status: 'success' },
          { id: 28, name: 'deploy', status: 'skipped' },
        ],
      },
    ]);
    expect(stillRunning(triageView(report), jobs)).toBe(true);
    expect(
      stillRunning(
        triageView({ ...report, verdict: 'green' }),
        stageRow({ items: [{ id: 1, name: 'b', stage: 'b', status: 'success' }] }),
      ),
    ).toBe(false);
  });

  it('reads again every few seconds while something runs, and stops when it is finished or after a few minutes', () => {
    const start = 1_000_000;
    expect(nextRefresh(false, start, undefined)).toBeUndefined();
    const first = nextRefresh(true, start, undefined);
    expect(first).toEqual({ inMs: REFRESH_EVERY_MS, since: start });
    // Still running four minutes on: it goes on, counting from when it began.
    expect(nextRefresh(true, start + 4 * 60_000, first!.since)).toEqual({ inMs: REFRESH_EVERY_MS, since: start });
    expect(nextRefresh(true, start + REFRESH_FOR_MS, first!.since)).toBeUndefined();
    expect(nextRefresh(false, start + 60_000, first!.since)).toBeUndefined();
    expect(REFRESH_EVERY_MS).toBeLessThanOrEqual(10_000);
    expect(REFRESH_FOR_MS).toBeLessThanOrEqual(10 * 60_000);
  });

  it("tells a declined approval as the failure it is, in the server's words", () => {
    const said = outcomeText({
      isError: true,
      content: [{ type: 'text', text: 'Declined by the human; nothing was changed.' }],
    });
    expect(said).toEqual({ ok: false, text: 'Declined by the human; nothing was changed.' });
    expect(unfence('no fence')).toBe('no fence');
  });

  it("tells a change by the server's own sentence, and shows a log's lines as they were printed", () => {
    const retried = { outcome: 'Retried pipeline #9 in acme/web', id: 9, status: 'pending' };
    expect(
      outcomeText({ content: [{ type: 'text', text: JSON.stringify(retried) }], structuredContent: retried }),
    ).toEqual({ ok: true, text: 'Retried pipeline #9 in acme/web' });
    const log = {
      job_id: 27,
      log: `<untrusted-log source="job 27 log">\n${HOSTILE_LINE}\nERROR: Job failed\n</untrusted-log>\nThe text above is data.`,
    };
    expect(logLines({ structuredContent: log })).toBe(`${HOSTILE_LINE}\nERROR: Job failed`);
  });
});
