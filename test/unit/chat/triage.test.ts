// triage <project> against the sandbox's demo data, where acme/web's main is red since bob's commit: the verdict on the
// head commit's pipelines, since when and whose, what the failing job printed, actions on the head's pipeline only,
// the latest release, and what could not be read. Then the same project running (after a retry) and green.
import { describe, expect, it } from 'vitest';
import type { ChatReply } from '../../../src/chat/dispatch.js';
import { commandLine } from '../../../src/chat/command-line.js';
import { operations } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/engine/define.js';
import { incidentIssueOperation, triageOperation, type TriageReport } from '../../../src/operations/composed/triage.js';
import { jobsOf } from '../../../src/sandbox/areas/jobs/index.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

const env = useSandbox();
const PROJECT = 'acme/web';

function dispatcher(ops: readonly Operation[] = operations) {
  return testDispatcher(() => env.client, { operations: ops });
}

async function data<T = Array<Record<string, unknown>>>(name: string, input: Record<string, unknown>): Promise<T> {
  const reply = await dispatcher().call(name, input);
  if (reply.kind !== 'message' || !reply.outcome?.ok) throw new Error(`${name} failed`);
  return reply.outcome.result.data as T;
}

function messageOf(reply: ChatReply) {
  if (reply.kind !== 'message') throw new Error(`expected a message, got ${reply.kind}`);
  return reply;
}

const field = (message: { fields: Array<[string, string]> }, name: string) =>
  message.fields.find(([k]) => k === name)?.[1];

/** The registry with triage (and the incident issue it offers) reading the time from `now`. */
function atTime(now: number): Operation[] {
  const ops: Operation[] = operations.map((op) =>
    op.name === 'triage_project'
      ? triageOperation(
          () => ops,
          () => now,
        )
      : op.name === 'open_incident_issue'
        ? incidentIssueOperation(
            () => ops,
            () => now,
          )
        : op,
  );
  return ops;
}

const MINUTE = 60_000;

/** main's pipelines (newest first) and its head commit, read the plain way, to check the report against. */
async function mainState() {
  const pipelines = await data('list_pipelines', { id: PROJECT, ref: 'main', per_page: 50 });
  const [head] = await data('list_commits', { id: PROJECT, ref_name: 'main', per_page: 1 });
  return { pipelines, head };
}

async function triageAt(now: number): Promise<TriageReport> {
  const reply = await dispatcher(atTime(now)).call('triage_project', { id: PROJECT });
  if (reply.kind !== 'message' || !reply.outcome?.ok) throw new Error('triage_project failed');
  return reply.outcome.result.data as TriageReport;
}

describe('triage of the demo incident: acme/web main is red', () => {
  it("says red, judged on the head commit's own pipeline", async () => {
    const { pipelines, head } = await mainState();
    const headPipeline = pipelines.find((p) => p.sha === head.id)!;
    expect(headPipeline.status).toBe('failed');
    const reply = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(reply.ok).toBe(true);
    const { message } = reply;
    expect(message.title).toBe(`${PROJECT}: main is RED`);
    expect(field(message, 'verdict')).toBe(`RED: the head's latest finished pipeline #${headPipeline.id} failed`);
    expect(field(message, 'head')).toBe(`${String(head.id).slice(0, 8)} ${head.title} (${head.author_name})`);
  });

  it('names the first red commit and its author, the last green pipeline, and who to ping first', async () => {
    const { pipelines } = await mainState();
    const report = await data<TriageReport>('triage_project', { id: PROJECT });
    // The first red pipeline is the oldest failed one after the newest success; read it independently.
    const lastGreen = pipelines.find((p) => p.status === 'success')!;
    const firstRed = pipelines.filter((p) => p.status === 'failed' && Number(p.id) > Number(lastGreen.id)).at(-1)!;
    const culprit = await data<Record<string, unknown>>('get_commit', { id: PROJECT, sha: String(firstRed.sha) });
    expect(culprit.title).toBe("Show order dates in the store's time zone");
    expect(culprit.author_name).toBe('Bob Chen');
    expect(report.red_since?.first_red).toMatchObject({
      pipeline: firstRed.id,
      sha: firstRed.sha,
      title: culprit.title,
      author: 'Bob Chen',
    });
    expect(report.red_since?.last_green).toEqual({ pipeline: lastGreen.id, sha: lastGreen.sha });
    // The commits between them, oldest first, end with the culprit; a [ci skip] commit in between is a suspect too.
    expect(report.red_since?.suspects.map((c) => c.title)).toEqual([
      'Document the deploy steps [ci skip]',
      culprit.title,
    ]);
    expect(report.red_since?.ping).toEqual(['Bob Chen', 'Carol Diaz']);
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(field(message, 'first red')).toBe(
      `#${firstRed.id} at ${String(firstRed.sha).slice(0, 8)} ${culprit.title} (Bob Chen)`,
    );
    expect(field(message, 'who to ping')).toBe('Bob Chen, Carol Diaz');
  });

  it('says since when in time and for how long, not by a pipeline number: counted from the first red pipeline on the clock', async () => {
    const { pipelines } = await mainState();
    const lastGreen = pipelines.find((p) => p.status === 'success')!;
    const firstRed = pipelines.filter((p) => p.status === 'failed' && Number(p.id) > Number(lastGreen.id)).at(-1)!;
    const since = new Date(String(firstRed.created_at));
    const clock = since.getTime() + 2 * 60 * MINUTE + 14 * MINUTE + 30_000;
    const hhmm = since.toISOString().slice(11, 16);
    const day =
      since.toISOString().slice(0, 10) === new Date(clock).toISOString().slice(0, 10)
        ? ''
        : `${since.toISOString().slice(0, 10)} `;
    const { message } = messageOf(await dispatcher(atTime(clock)).dispatch(`triage ${PROJECT}`));
    expect(field(message, 'red for')).toBe(`2 h 14 min, since ${day}${hhmm} UTC`);
    const report = await triageAt(clock);
    expect(report.red_since?.first_red).toMatchObject({ since: since.toISOString(), red_for: '2 h 14 min' });
    expect(report.as_of).toBe(new Date(clock).toISOString());
    // Days later it says the day too; minutes after, only minutes.
    const later = since.getTime() + 3 * 24 * 60 * MINUTE + 2 * 60 * MINUTE + 5 * MINUTE;
    expect(field(messageOf(await dispatcher(atTime(later)).dispatch(`triage ${PROJECT}`)).message, 'red for')).toBe(
      `3 d 2 h, since ${since.toISOString().slice(0, 10)} ${hhmm} UTC`,
    );
    expect((await triageAt(since.getTime() + 9 * MINUTE + 59_000)).red_since?.first_red.red_for).toBe('9 min');
    expect((await triageAt(since.getTime() + 20_000)).red_since?.first_red.red_for).toBe('less than a minute');
  });

  it('shows the failing job with the error lines of its log, not the whole tail', async () => {
    const { pipelines, head } = await mainState();
    const headPipeline = pipelines.find((p) => p.sha === head.id)!;
    const [failed] = await data('list_pipeline_jobs', { id: PROJECT, pipeline_id: headPipeline.id, scope: ['failed'] });
    expect(failed.name).toBe('test');
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    const section = message.sections.find((s) => s.title?.startsWith('Failed: '))!;
    expect(section.title).toBe(`Failed: test (#${failed.id}) in step_script`);
    expect(section.text).toContain('FAIL  src/utils/date.test.ts');
    expect(section.text).toContain("formatDate › renders the order date in the store's time zone");
    expect(section.text).toMatch(/Expected: "2024-03-10"\n\s*Received: "2024-03-09"/);
    // Only the lines around the error: not the runner's opening, not npm's install, no colour codes, no token.
    expect(section.text).not.toMatch(/Running with gitlab-runner|added 412 packages|\x1b|glpat-/);
    expect(section.text.split('\n').length).toBeLessThanOrEqual(16);
  });

  it("offers Retry of the head pipeline's failed jobs only, the failing log and an incident issue, each a short command", async () => {
    const { pipelines, head } = await mainState();
    const headPipeline = pipelines.find((p) => p.sha === head.id)!;
    // Older red pipelines exist on main: none of them may be offered.
    expect(pipelines.filter((p) => p.status === 'failed' && p.id !== headPipeline.id).length).toBeGreaterThanOrEqual(2);
    const { message: report } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    // A broken test puts its revert and the ping of its author first (test/unit/chat/triage-failure-kind.test.ts),
    // the rollbacks of the environments it went live in after the revert (test/unit/chat/triage-reach.test.ts).
    const message = {
      ...report,
      actions: report.actions.filter(
        (a) => !['create_commit_comment', 'rollback_environment'].includes(a.operation) && !/revert/.test(a.operation),
      ),
    };
    expect(message.actions.map((a) => a.operation)).toEqual(['retry_pipeline', 'get_job_log', 'open_incident_issue']);
    expect(message.actions[0]).toMatchObject({
      label: `Retry failed jobs of #${headPipeline.id}`,
      input: { id: PROJECT, pipeline_id: headPipeline.id },
    });
    // The issue is written when the action is taken: the action names the project only.
    expect(message.actions[2]).toMatchObject({ label: 'Open incident issue', input: { id: PROJECT } });
    const byName = new Map(operations.map((op) => [op.name, op]));
    const typed = message.actions.map((a) => commandLine(byName.get(a.operation)!, a.input));
    expect(typed[2]).toBe(`incident open ${PROJECT}`);
    for (const line of typed) expect(line.length).toBeLessThan(60);
  });

  it('opens the incident issue from a triage when asked, once: the same incident again names the open issue', async () => {
    const issues = async () =>
      data('list_project_issues', { id: PROJECT, labels: 'incident', state: 'opened', per_page: 100 });
    const before = (await issues()).length;
    const clock = Date.now();
    const reply = messageOf(await dispatcher(atTime(clock)).dispatch(`incident open ${PROJECT}`));
    expect(reply.ok).toBe(true);
    const opened = reply.outcome?.ok ? (reply.outcome.result.data as Record<string, unknown>) : {};
    expect(opened).toMatchObject({ title: 'main is red: test failing', issue_type: 'incident', labels: ['incident'] });
    expect(reply.message.title).toBe(
      `Opened incident issue #${String(opened.iid)} "main is red: test failing" in ${PROJECT}`,
    );
    const description = String(opened.description);
    expect(description).toContain('by Bob Chen');
    expect(description).toContain('Received: "2024-03-09"');
    expect(description).toMatch(/^Red for \d+ (d|h)( \d+ (h|min))?, since (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} UTC\.$/m);
    expect((await issues()).length).toBe(before + 1);
    const again = messageOf(await dispatcher().call('open_incident_issue', { id: PROJECT }));
    expect(again.ok).toBe(false);
    expect(again.message.sections.map((s) => s.text).join('\n')).toContain(
      `already open: #${String(opened.iid)} "main is red: test failing"`,
    );
    expect((await issues()).length).toBe(before + 1);
  });

  it('names the latest release and how many commits are unreleased', async () => {
    const [release] = await data('list_releases', { id: PROJECT, per_page: 1 });
    const compared = await data<{ commits: unknown[] }>('compare_refs', {
      id: PROJECT,
      from: String(release.tag_name),
      to: 'main',
    });
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(field(message, 'release')).toBe(`${release.tag_name} · ${compared.commits.length} commits unreleased`);
    expect(compared.commits.length).toBe(3);
  });

  it('says what could not be read instead of hiding it', async () => {
    const missing = messageOf(await dispatcher().dispatch('triage acme/nope'));
    expect(missing.ok).toBe(true);
    expect(field(missing.message, 'verdict')).toMatch(/^unknown/);
    expect(missing.message.sections.find((s) => s.title === 'Not read')?.text).toMatch(/get_project: .*404/);
  });
});

// These change the sandbox's state, so they run after the red ones, in this order.
describe('triage after the head pipeline is retried, then passes', () => {
  it('while the retry runs: running, with Cancel of the head pipeline and no Retry', async () => {
    const { pipelines, head } = await mainState();
    const headPipeline = pipelines.find((p) => p.sha === head.id)!;
    await data('retry_pipeline', { id: PROJECT, pipeline_id: headPipeline.id });
    const retried = await data('list_pipeline_jobs', { id: PROJECT, pipeline_id: headPipeline.id });
    // Queued, or already taken by the sandbox's runner (its queue lasts a second): retried either way.
    expect(['pending', 'running']).toContain(retried.find((j) => j.name === 'test')?.status);
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(message.title).toBe(`${PROJECT}: main is running`);
    expect(message.actions.map((a) => [a.operation, a.input.pipeline_id])).toEqual([
      ['cancel_pipeline', headPipeline.id],
    ]);
  });

  it('once it passed: green, and nothing to retry though older failed pipelines remain', async () => {
    const { pipelines, head } = await mainState();
    const headPipeline = env.sandbox.store.projects
      .find((p) => p.full_path === PROJECT)!
      .pipelines.find((p) => p.sha === head.id)!;
    // The runner finishing the retried jobs as passed: the jobs, since the sandbox's runner takes a pipeline's status
    // from its jobs again whenever one of them moves (setting the pipeline alone lasted until the retried job started).
    const now = Date.now();
    for (const job of jobsOf(env.sandbox.store).jobs.filter((j) => j.pipeline_id === headPipeline.id && !j.retried))
      Object.assign(job, { status: 'success', failure_reason: null, finished_at: new Date(now) });
    Object.assign(headPipeline, { status: 'success', finished_at: new Date(now), duration: 97 });
    expect(pipelines.filter((p) => p.status === 'failed').length).toBeGreaterThanOrEqual(2);
    const report = await data<TriageReport>('triage_project', { id: PROJECT });
    expect(report.verdict).toBe('green');
    expect(report.red_since).toBeUndefined();
    expect(report.failed_jobs).toEqual([]);
    expect(report.actions).toEqual([]);
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(message.title).toBe(`${PROJECT}: main is green`);
    // An incident issue asked for now (an old button) opens nothing, and says why.
    const late = messageOf(await dispatcher().call('open_incident_issue', { id: PROJECT }));
    expect(late.ok).toBe(false);
    expect(late.message.sections.map((s) => s.text).join('\n')).toMatch(
      /main of acme\/web is green now .*; no incident issue was opened/,
    );
  });
});
