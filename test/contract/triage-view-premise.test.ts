// The triage view's buttons check their premise on the server before they act: a view drawn on a red pipeline that is
// no longer the branch's latest, on a branch green again, or offering a revert whose merge request is open already
// sends no write to the sandbox and says what changed; a fresh premise runs the button's tool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_MIME_TYPE } from '../../src/apps/triage-app.js';
import {
  actOnPremise,
  pipelineView,
  resultData,
  type ToolResultLike,
  triageView,
  type TriageView,
  type ViewAction,
} from '../../src/apps/triage-view/report.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';

const env = useSandbox({ clock: new ManualClock() });
const APPS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [VIEW_MIME_TYPE] } } };
const WEB = 'acme/web';
const GREEN = 'acme/platform/infra';

let host: Awaited<ReturnType<typeof connectInMemory>>;
beforeAll(async () => {
  // The default preset: check_button_premise is not the model's; the host that renders the view may call it.
  host = await connectInMemory({ client: env.client, toolsets: [], clientCapabilities: APPS_CAPABILITY });
});
afterAll(async () => host.close());

const call = async (tool: string, input: Record<string, unknown>) =>
  (await host.client.callTool({ name: tool, arguments: input })) as ToolResultLike;

async function drawTriage(project: string): Promise<TriageView> {
  const result = await call('triage_project', { id: project });
  return triageView(resultData(result)!);
}

function button(view: TriageView, tool: string): ViewAction {
  const action = view.actions.find((a) => a.tool === tool);
  if (!action) throw new Error(`the view offers no ${tool}: ${view.actions.map((a) => a.tool).join(', ')}`);
  return action;
}

/** The writes the sandbox got while `run` ran: a stale button must send none. */
async function writesDuring<T>(run: () => Promise<T>): Promise<{ value: T; writes: string[] }> {
  const before = env.sandbox.requests.all().length;
  const value = await run();
  const writes = env.sandbox.requests
    .all()
    .slice(before)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);
  return { value, writes };
}

async function pipelinesOf(project: string): Promise<Array<{ id: number; status: string }>> {
  const listed = await env.client.request<Array<{ id: number; status: string }>>({
    method: 'GET',
    path: `/projects/${encodeURIComponent(project)}/pipelines`,
    query: { ref: 'main', per_page: 20 },
    idempotent: true,
  });
  return listed.data;
}

describe('the triage view records each write button premise when it is drawn', () => {
  it('names the project, the branch, the pipeline of a retry and the commit of a revert', async () => {
    const view = await drawTriage(WEB);
    const retry = button(view, 'retry_pipeline');
    expect(retry.premise).toEqual({ kind: 'retry', id: WEB, ref: 'main', pipeline_id: retry.input.pipeline_id });
    expect(button(view, 'open_incident_issue').premise).toEqual({ kind: 'incident', id: WEB, ref: 'main' });
    const revert = button(view, 'revert_as_merge_request');
    expect(revert.premise).toEqual({ kind: 'revert', id: WEB, ref: 'main', sha: revert.input.sha });
  });
});

describe('a view drawn while the branch was red, pressed after it is green again', () => {
  // The view as it was drawn when infra's main was red: its buttons' premises name an older pipeline and commit.
  let stale: TriageView;
  beforeAll(async () => {
    const pipelines = await pipelinesOf(GREEN);
    expect(pipelines[0].status).toBe('success');
    const old = pipelines[pipelines.length - 1].id;
    stale = triageView({
      project: GREEN,
      default_branch: 'main',
      verdict: 'red',
      because: `pipeline #${old} failed`,
      actions: [
        { operation: 'retry_pipeline', input: { id: GREEN, pipeline_id: old } },
        { operation: 'revert_as_merge_request', input: { id: GREEN, sha: 'abcdef1234567890' } },
        { operation: 'open_incident_issue', input: { id: GREEN } },
      ],
    });
  });

  for (const [tool, nothing] of [
    ['retry_pipeline', 'nothing was retried.'],
    ['revert_as_merge_request', 'nothing was reverted.'],
    ['open_incident_issue', 'no incident issue was opened.'],
  ] as const) {
    it(`${tool}: the check says main is green again and nothing is written`, async () => {
      const { value, writes } = await writesDuring(() => actOnPremise(button(stale, tool), call));
      expect(writes).toEqual([]);
      expect(value.ran).toBe(false);
      expect(value.ok).toBe(false);
      expect(value.text).toMatch(/^main is green again since .* \(#\d+\); /);
      expect(value.text.endsWith(nothing)).toBe(true);
    });
  }
});

describe('a view of the red branch', () => {
  it('opens the incident issue while its premise holds', async () => {
    const view = await drawTriage(WEB);
    const { value, writes } = await writesDuring(() => actOnPremise(button(view, 'open_incident_issue'), call));
    expect(value).toMatchObject({ ran: true, ok: true });
    expect(writes).toContainEqual(expect.stringMatching(/^POST \/projects\/.*\/issues$/));
  });

  it('reverts as a merge request while none is open, and a second press of the same view reverts nothing', async () => {
    const view = await drawTriage(WEB);
    const revert = button(view, 'revert_as_merge_request');
    const first = await writesDuring(() => actOnPremise(revert, call));
    expect(first.value).toMatchObject({ ran: true, ok: true });
    expect(first.writes.length).toBeGreaterThan(0);
    const again = await writesDuring(() => actOnPremise(revert, call));
    expect(again.writes).toEqual([]);
    expect(again.value.ran).toBe(false);
    expect(again.value.text).toMatch(
      /^merge request !\d+ reverting [0-9a-f]{8} is open already; nothing was reverted\.$/,
    );
  });

  it('retries the pipeline it shows while it is the latest and red; a view of it kept open then retries nothing', async () => {
    const view = await drawTriage(WEB);
    const retry = button(view, 'retry_pipeline');
    const pipelineId = retry.input.pipeline_id as number;
    // The same pipeline drawn as get_pipeline's view too: a second view of the red pipeline, kept open.
    const kept = pipelineView(resultData(await call('get_pipeline', { id: WEB, pipeline_id: pipelineId }))!, WEB);
    const keptRetry = button(kept, 'retry_pipeline');
    expect(keptRetry.premise).toEqual(retry.premise);

    const fresh = await writesDuring(() => actOnPremise(retry, call));
    expect(fresh.value).toMatchObject({ ran: true, ok: true });
    expect(fresh.writes).toContain(`POST /projects/${encodeURIComponent(WEB)}/pipelines/${pipelineId}/retry`);

    // Retried, it is no longer red: the view kept open says so and retries nothing.
    const retried = await writesDuring(() => actOnPremise(keptRetry, call));
    expect(retried.writes).toEqual([]);
    expect(retried.value.ran).toBe(false);
    expect(retried.value.text).toMatch(new RegExp(`^pipeline #${pipelineId} is \\w+ now; nothing was retried\\.$`));

    // A newer pipeline on main: the old one is no longer the branch's latest.
    const newer = await env.client.request<{ id: number }>({
      method: 'POST',
      path: `/projects/${encodeURIComponent(WEB)}/pipeline`,
      query: { ref: 'main' },
      idempotent: false,
    });
    const stale = await writesDuring(() => actOnPremise(keptRetry, call));
    expect(stale.writes).toEqual([]);
    expect(stale.value.ran).toBe(false);
    expect(stale.value.text).toMatch(
      new RegExp(
        `^pipeline #${pipelineId} is no longer main's latest \\(#${newer.data.id} is \\w+\\); nothing was retried\\.$`,
      ),
    );
  });
});
