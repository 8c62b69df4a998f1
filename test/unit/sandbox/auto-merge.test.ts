// Auto-merge in the sandbox, driven by a manual clock: a merge request set to merge when its pipeline succeeds is
// merged when that pipeline passes (and main's own pipeline starts); a failed pipeline keeps it waiting until a retry
// passes; new commits on the source branch or closing the merge request cancel it; the runner listener goes at close.
import { describe, expect, test } from 'vitest';
import { runnerOf } from '../../../src/sandbox/areas/jobs/state.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { startSandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const clock = new ManualClock(Date.now());
const env = useSandbox({ clock });

const WEB = `/projects/${encodeURIComponent('acme/web')}`;
const INFRA = `/projects/${encodeURIComponent('acme/platform/infra')}`;
const DATE_FILE = 'src/utils/format date.ts';

type Pipeline = { id: number; status: string; sha: string; ref: string };
type MergeRequest = {
  iid: number;
  state: string;
  merge_when_pipeline_succeeds: boolean;
  sha: string;
  merge_commit_sha: string | null;
};

/** Lets every pipeline run to its end (each wake-up of the runner is due within these minutes of the clock). */
async function runPipelines(): Promise<void> {
  clock.advance(5 * 60_000);
  await api(env.sandbox, 'GET', '/version');
}

async function commit(project: string, branch: string, actions: unknown[], startBranch?: string): Promise<string> {
  const answer = await api(env.sandbox, 'POST', `${project}/repository/commits`, {
    as: 'maintainer',
    json: { branch, start_branch: startBranch, commit_message: `Change on ${branch}`, actions },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.data.id;
}

async function openMergeRequest(project: string, branch: string): Promise<MergeRequest> {
  const answer = await api(env.sandbox, 'POST', `${project}/merge_requests`, {
    as: 'maintainer',
    json: { source_branch: branch, target_branch: 'main', title: `Merge ${branch}` },
  });
  expect(answer.status).toBe(201);
  return answer.data;
}

const mergeRequest = async (project: string, iid: number): Promise<MergeRequest> =>
  (await api(env.sandbox, 'GET', `${project}/merge_requests/${iid}`, { as: 'maintainer' })).data;
const pipelinesOf = async (project: string, query: string): Promise<Pipeline[]> =>
  (await api(env.sandbox, 'GET', `${project}/pipelines?${query}`, { as: 'maintainer' })).data;
const mainHead = async (project: string): Promise<string> =>
  (await api(env.sandbox, 'GET', `${project}/repository/branches/main`, { as: 'maintainer' })).data.commit.id;

async function setAutoMerge(project: string, iid: number): Promise<MergeRequest> {
  const answer = await api(env.sandbox, 'PUT', `${project}/merge_requests/${iid}/merge`, {
    as: 'maintainer',
    json: { merge_when_pipeline_succeeds: true },
  });
  expect(answer.status).toBe(200);
  expect(answer.data).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
  return answer.data;
}

/** A file content without bob's time-zone shift (acme/web's test passes on it), a little different on each branch. */
const fixedDate = (branch: string) =>
  `export const formatDate = (date: Date) => date.toISOString().slice(0, 10); // ${branch}\n`;

describe('merge when pipeline succeeds', () => {
  test("merges when the head pipeline passes, which starts the target branch's pipeline", async () => {
    const source = await commit(
      WEB,
      'fix/dates',
      [{ action: 'update', file_path: DATE_FILE, content: fixedDate('fix/dates') }],
      'main',
    );
    const mr = await openMergeRequest(WEB, 'fix/dates');
    const before = await mainHead(WEB);
    const [running] = await pipelinesOf(WEB, 'ref=fix/dates');
    expect(running).toMatchObject({ sha: source, status: 'pending' });

    await setAutoMerge(WEB, mr.iid);
    expect(await mainHead(WEB)).toBe(before);
    await runPipelines();

    const merged = await mergeRequest(WEB, mr.iid);
    expect(merged).toMatchObject({ state: 'merged', merge_when_pipeline_succeeds: false });
    const head = await mainHead(WEB);
    expect(head).toBe(merged.merge_commit_sha);
    const parents = (await api(env.sandbox, 'GET', `${WEB}/repository/commits/${head}`, { as: 'maintainer' })).data
      .parent_ids;
    expect(parents).toEqual([before, source]);
    // The merge moved main, as a push does: main's pipeline for the merge commit runs, and passes.
    const [onMain] = await pipelinesOf(WEB, `ref=main&sha=${head}`);
    expect(onMain.status).toBe('pending');
    await runPipelines();
    expect((await pipelinesOf(WEB, `ref=main&sha=${head}`))[0].status).toBe('success');
  });

  test('a failed pipeline keeps auto-merge set without merging; a retried job that passes merges it', async () => {
    await commit(INFRA, 'topic/plan', [{ action: 'create', file_path: 'envs/extra.tf', content: '# extra\n' }], 'main');
    const mr = await openMergeRequest(INFRA, 'topic/plan');
    const before = await mainHead(INFRA);
    await setAutoMerge(INFRA, mr.iid);
    await runPipelines();

    const [failed] = await pipelinesOf(INFRA, 'ref=topic/plan');
    expect(failed.status).toBe('failed');
    expect(await mergeRequest(INFRA, mr.iid)).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    expect(await mainHead(INFRA)).toBe(before);

    const jobs = (await api(env.sandbox, 'GET', `${INFRA}/pipelines/${failed.id}/jobs`, { as: 'maintainer' }))
      .data as Array<{ id: number; status: string }>;
    const plan = jobs.find((j) => j.status === 'failed')!;
    expect((await api(env.sandbox, 'POST', `${INFRA}/jobs/${plan.id}/retry`, { as: 'maintainer' })).status).toBe(201);
    await runPipelines();
    expect((await pipelinesOf(INFRA, 'ref=topic/plan'))[0]).toMatchObject({ id: failed.id, status: 'success' });
    expect(await mergeRequest(INFRA, mr.iid)).toMatchObject({ state: 'merged', merge_when_pipeline_succeeds: false });
    expect(await mainHead(INFRA)).not.toBe(before);
  });

  test('new commits on the source branch cancel it: neither the old pipeline nor the new one merges', async () => {
    await commit(
      WEB,
      'fix/dates-2',
      [{ action: 'update', file_path: DATE_FILE, content: fixedDate('fix/dates-2') }],
      'main',
    );
    const mr = await openMergeRequest(WEB, 'fix/dates-2');
    await setAutoMerge(WEB, mr.iid);
    const pushed = await commit(WEB, 'fix/dates-2', [
      { action: 'create', file_path: 'docs/more.md', content: 'more\n' },
    ]);

    expect(await mergeRequest(WEB, mr.iid)).toMatchObject({
      state: 'opened',
      merge_when_pipeline_succeeds: false,
      sha: pushed,
    });
    const notes = (await api(env.sandbox, 'GET', `${WEB}/merge_requests/${mr.iid}/notes`, { as: 'maintainer' }))
      .data as Array<{ body: string; system: boolean }>;
    expect(notes.map((n) => n.body)).toContain('aborted the automatic merge because the source branch was updated');
    await runPipelines();
    expect((await pipelinesOf(WEB, 'ref=fix/dates-2')).map((p) => p.status)).toEqual(['success', 'success']);
    expect((await mergeRequest(WEB, mr.iid)).state).toBe('opened');
  });

  test('a merge request closed while its pipeline runs is not merged, and reopening does not set it again', async () => {
    await commit(
      WEB,
      'fix/dates-3',
      [{ action: 'update', file_path: DATE_FILE, content: fixedDate('fix/dates-3') }],
      'main',
    );
    const mr = await openMergeRequest(WEB, 'fix/dates-3');
    const before = await mainHead(WEB);
    await setAutoMerge(WEB, mr.iid);
    expect(
      (
        await api(env.sandbox, 'PUT', `${WEB}/merge_requests/${mr.iid}`, {
          as: 'maintainer',
          json: { state_event: 'close' },
        })
      ).data,
    ).toMatchObject({ state: 'closed', merge_when_pipeline_succeeds: false });
    await runPipelines();
    expect((await pipelinesOf(WEB, 'ref=fix/dates-3'))[0].status).toBe('success');
    expect(await mergeRequest(WEB, mr.iid)).toMatchObject({ state: 'closed', merge_when_pipeline_succeeds: false });
    expect(await mainHead(WEB)).toBe(before);
    await api(env.sandbox, 'PUT', `${WEB}/merge_requests/${mr.iid}`, {
      as: 'maintainer',
      json: { state_event: 'reopen' },
    });
    expect(await mergeRequest(WEB, mr.iid)).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: false });
  });
});

test("closing the sandbox removes auto-merge's runner listener and leaves no wake-up behind", async () => {
  const ownClock = new ManualClock(Date.now());
  const own = await startSandbox({ clock: ownClock });
  const listeners = runnerOf(own.store).listeners;
  expect(listeners.length).toBeGreaterThan(0);
  await own.close();
  expect(listeners).toEqual([]);
  expect(ownClock.waiting).toBe(0);
});

describe('canceling merge when pipeline succeeds, as the vendor does', () => {
  test('answers 201 with the merge request no longer set to merge, then 406; a merged one is a 405; the pipeline then merges nothing', async () => {
    await commit(WEB, 'topic/cancel', [{ action: 'create', file_path: 'cancel.txt', content: 'c\n' }], 'main');
    const mr = await openMergeRequest(WEB, 'topic/cancel');
    await setAutoMerge(WEB, mr.iid);
    const cancel = () =>
      api(env.sandbox, 'POST', `${WEB}/merge_requests/${mr.iid}/cancel_merge_when_pipeline_succeeds`, {
        as: 'maintainer',
      });
    const canceled = await cancel();
    expect(canceled.status).toBe(201);
    expect(canceled.data).toMatchObject({ iid: mr.iid, state: 'opened', merge_when_pipeline_succeeds: false });
    expect(await cancel()).toMatchObject({ status: 406, data: { message: '406 Not Acceptable' } });
    await runPipelines();
    expect((await mergeRequest(WEB, mr.iid)).state).toBe('opened');
    const merged = await api(env.sandbox, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, { as: 'maintainer' });
    expect(merged.data.state).toBe('merged');
    expect(await cancel()).toMatchObject({ status: 405, data: { message: '405 Method Not Allowed' } });
  });
});
