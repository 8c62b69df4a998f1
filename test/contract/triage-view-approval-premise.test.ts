// A triage view's write that waits for a human's approval checks the button's premise again once approved: the view
// sends it beside the call (_meta), and the server reads it after the answer. Here every write the view makes asks
// first; while the human is asked, a newer pipeline starts on main, so the approved Retry retries nothing and says
// why; a premise that still holds when approved (the incident issue) runs. Against the sandbox, its clock stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_MIME_TYPE } from '../../src/apps/triage-app.js';
import {
  actOnPremise,
  resultData,
  type ToolResultLike,
  triageView,
  type ViewAction,
} from '../../src/apps/triage-view/report.js';
import type { Operation } from '../../src/operations/engine/define.js';
import { operations } from '../../src/operations/index.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';

const env = useSandbox({ clock: new ManualClock() });
const APPS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [VIEW_MIME_TYPE] } } };
const WEB = 'acme/web';
const ASKS = new Set(['retry_pipeline', 'open_incident_issue']);

/** What the human does while they are asked (before they approve): set by each test. */
let whileAsked: () => Promise<void> = async () => {};
const asked: string[] = [];

let host: Awaited<ReturnType<typeof connectInMemory>>;
beforeAll(async () => {
  const ops = operations.map((op) =>
    ASKS.has(op.name) ? ({ ...op, needsApproval: () => 'This test asks a human before this write.' } as Operation) : op,
  );
  host = await connectInMemory({
    client: env.client,
    operations: ops,
    clientCapabilities: APPS_CAPABILITY,
    elicit: async (message) => {
      asked.push(message);
      await whileAsked();
      return { action: 'accept', content: { confirm: true } };
    },
  });
});
afterAll(async () => host.close());

const call = async (tool: string, input: Record<string, unknown>, meta?: Record<string, unknown>) =>
  (await host.client.callTool({ name: tool, arguments: input, ...(meta ? { _meta: meta } : {}) })) as ToolResultLike;

/** The view as it was drawn while main was red, once: each test presses one of its buttons, in either order. */
let drawn: ViewAction[] = [];
beforeAll(async () => {
  drawn = triageView(resultData(await call('triage_project', { id: WEB }))!).actions;
});

function button(tool: string): ViewAction {
  const action = drawn.find((a) => a.tool === tool);
  if (!action) throw new Error(`the view offers no ${tool}: ${drawn.map((a) => a.tool).join(', ')}`);
  return action;
}

const writes = (from: number) =>
  env.sandbox.requests
    .all()
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);

describe('a view button whose write waits for approval', () => {
  it('retries nothing when a newer pipeline started on main while the human was asked, and says so', async () => {
    const retry = button('retry_pipeline');
    const red = retry.input.pipeline_id as number;
    let newer = 0;
    whileAsked = async () => {
      const started = await env.client.request<{ id: number }>({
        method: 'POST',
        path: `/projects/${encodeURIComponent(WEB)}/pipeline`,
        query: { ref: 'main' },
        idempotent: false,
      });
      newer = started.data.id;
    };
    const before = env.sandbox.requests.all().length;
    const questions = asked.length;
    const said = await actOnPremise(retry, call);
    expect(asked.length).toBe(questions + 1);
    // The only write is the pipeline the test started while the human was asked: no retry reached the service.
    expect(writes(before)).toEqual([`POST /projects/${encodeURIComponent(WEB)}/pipeline`]);
    expect(said.ok).toBe(false);
    expect(said.text).toMatch(
      new RegExp(`^pipeline #${red} is no longer main's latest \\(#${newer} is \\w+\\); nothing was retried\\.$`),
    );
  });

  it('runs the write approved while the premise still holds', async () => {
    whileAsked = async () => {};
    const incident = button('open_incident_issue');
    const before = env.sandbox.requests.all().length;
    const said = await actOnPremise(incident, call);
    expect(said).toMatchObject({ ok: true, ran: true });
    expect(writes(before)).toContainEqual(expect.stringMatching(/^POST \/projects\/.*\/issues$/));
  });
});
