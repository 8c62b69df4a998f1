// Approval judged by effect, through the real front ends (the MCP tool core, the chat dispatcher) against the
// sandbox: what the service holds decides whether a call asks (a wildcard protection, a retry that starts a manual
// job, a confidential issue made public), an approval runs pinned to the head it showed, inherited access is refused
// in words before anyone is asked, and a question says what the job and pipeline numbers stand for.
import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChatReply } from '../../src/chat/dispatch.js';
import { prepareCall } from '../../src/run/call.js';
import { operations } from '../../src/operations/index.js';
import { jobsOf, type Job } from '../../src/sandbox/areas/jobs/state.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { testDispatcher } from '../helpers/dispatcher.js';

const env = useSandbox();
const P = 'acme/web';
const DECLINE: ElicitResult = { action: 'decline' };
const ACCEPT: ElicitResult = { action: 'accept', content: { confirm: true } };

async function api(
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await env.client.request({ method, path, ...(body ? { body } : {}), idempotent: method === 'GET' });
  return res.data as Record<string, unknown>;
}

const web = () => env.sandbox.store.findProject(P)!;
/** The statuses the sandbox answered to `method` on acme/web's merge request `iid` at its `action` path, in order. */
const statusesSent = (method: string, iid: unknown, action: string) =>
  env.sandbox.requests
    .filter({ method, path: `/projects/acme%2Fweb/merge_requests/${String(iid)}/${action}` })
    .map((r) => r.status);
/** A job of acme/web as the fixture needs it, found by what it is rather than by its number. */
function jobWhere(match: (job: Job) => boolean): Job {
  const found = jobsOf(env.sandbox.store).jobs.find((job) => job.project_id === web().id && !job.retried && match(job));
  if (!found) throw new Error('no such job in the demo data');
  return found;
}
/** A manual job that ended (a gate a person played, or one canceled): from the demo data, or a failed job made one. */
function endedManualJob(): Job {
  const ended = (job: Job) => job.status === 'canceled' || job.status === 'failed';
  try {
    return jobWhere((job) => job.manual && ended(job));
  } catch {
    return Object.assign(
      jobWhere((job) => job.status === 'failed'),
      { manual: true },
    );
  }
}
const pipelineJobs = (pipelineId: number) =>
  jobsOf(env.sandbox.store).jobs.filter((job) => job.pipeline_id === pipelineId);

async function call(
  name: string,
  args: Record<string, unknown>,
  answer: ElicitResult | (() => Promise<ElicitResult>) = DECLINE,
) {
  const mcp = await connectInMemory({
    client: env.client,
    elicit: (typeof answer === 'function' ? answer : () => answer) as () => ElicitResult,
  });
  try {
    const result = await mcp.client.callTool({ name, arguments: args });
    return { text: resultText(result), isError: result.isError === true, prompts: mcp.prompts };
  } finally {
    await mcp.close();
  }
}

describe('protect_branch judged by the rules it joins', () => {
  it('asks before a wildcard that opens a protected branch, saying what it opens (declined, no rule is added); an exact new name runs at once', async () => {
    const { prompts, text } = await call('protect_branch', {
      id: P,
      name: 'mai*',
      push_access_level: 30,
      allow_force_push: true,
    });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('The service applies the most permissive of all rules matching a branch');
    expect(prompts[0]).toContain('On "main" it allows push by developers (now maintainers), force push (now refused).');
    expect(text).toMatch(/nothing was changed/);
    const rules = await env.client.request({
      method: 'GET',
      path: `/projects/${encodeURIComponent(P)}/protected_branches`,
      idempotent: true,
    });
    expect((rules.data as Array<{ name: string }>).map((r) => r.name)).not.toContain('mai*');
    // An exact name no other rule touches only adds a protection: at once.
    const exact = await call('protect_branch', { id: P, name: 'hotfix-effect', push_access_level: 40 });
    expect(exact.prompts).toEqual([]);
    expect(exact.isError).toBe(false);
  });

  it('asks before an exact rule a wildcard already covers', async () => {
    expect((await call('protect_branch', { id: P, name: 'release-effect/*' }, ACCEPT)).isError).toBe(false);
    const { prompts } = await call('protect_branch', { id: P, name: 'release-effect/2.0', push_access_level: 30 });
    expect(prompts[0]).toContain(
      'On "release-effect/2.0" (now under "release-effect/*") it allows push by developers (now maintainers).',
    );
  });
});

describe('retries that start a manual job', () => {
  it('asks before retrying a manual job (the service starts it at once), naming it; a plain job is retried at once', async () => {
    const manual = endedManualJob();
    const before = pipelineJobs(manual.pipeline_id).length;
    const asked = await call('retry_job', { id: P, job_id: manual.id });
    expect(asked.prompts).toHaveLength(1);
    expect(asked.prompts[0]).toContain('It starts a manual job at once');
    expect(asked.prompts[0]).toMatch(
      new RegExp(
        `job_id: ${manual.id} — "${manual.name}" \\(stage "${manual.stage}", pipeline ${manual.pipeline_id} on "[^"]+", ${manual.status}, manual\\)`,
      ),
    );
    expect(pipelineJobs(manual.pipeline_id)).toHaveLength(before);

    const plain = jobWhere((job) => !job.manual && job.status === 'failed');
    const ran = await call('retry_job', { id: P, job_id: plain.id });
    expect(ran.prompts).toEqual([]);
    expect(ran.isError).toBe(false);
  });

  it('a pipeline retry brings a manual job back waiting for a person, without starting it', async () => {
    const manual = endedManualJob();
    const { prompts, isError } = await call('retry_pipeline', { id: P, pipeline_id: manual.pipeline_id });
    expect(prompts).toEqual([]);
    expect(isError).toBe(false);
    const again = pipelineJobs(manual.pipeline_id).filter((job) => job.name === manual.name && !job.retried);
    // It waits for its stage (created), then for a person (manual): the retry never starts it.
    expect(again).toHaveLength(1);
    expect(['created', 'manual']).toContain(again[0].status);
  });

  it('says in a dry run whether the real call would ask, from the job it read', async () => {
    const manual = endedManualJob();
    const plain = jobWhere((job) => !job.manual && job.status === 'failed');
    const preview = async (jobId: number) =>
      JSON.parse((await call('retry_job', { id: P, job_id: jobId, dry_run: true })).text) as Record<string, unknown>;
    expect(await preview(manual.id)).toMatchObject({
      needs_confirmation: true,
      confirm_reason: expect.stringContaining('manual job'),
    });
    expect(await preview(plain.id)).toMatchObject({ needs_confirmation: false });
  });

  it('asks on a path that reads nothing (fail closed), where a path that reads would run a plain retry', () => {
    const retry = operations.find((o) => o.name === 'retry_job')!;
    const prepared = prepareCall(retry, { id: P, job_id: 1 }, { readOnly: false }, { operations });
    expect(prepared.kind).toBe('approve');
  });
});

describe('making a confidential issue public', () => {
  it('asks before it; an issue that is not confidential is updated at once', async () => {
    const secret = await api('POST', `/projects/${encodeURIComponent(P)}/issues`, {
      title: 'Leaked key report',
      confidential: true,
    });
    const { prompts, text } = await call('update_issue', { id: P, issue_iid: secret.iid, confidential: false });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('It makes a confidential issue readable by everyone who can see the project');
    expect(text).toMatch(/nothing was changed/);
    expect((await api('GET', `/projects/${encodeURIComponent(P)}/issues/${String(secret.iid)}`)).confidential).toBe(
      true,
    );

    const open = await api('POST', `/projects/${encodeURIComponent(P)}/issues`, { title: 'Flaky test' });
    const plain = await call('update_issue', { id: P, issue_iid: open.iid, confidential: false });
    expect(plain.prompts).toEqual([]);
    expect(plain.isError).toBe(false);
  });

  it('says when a snippet becomes public', async () => {
    const snippet = await api('POST', `/projects/${encodeURIComponent(P)}/snippets`, {
      title: 'notes',
      file_name: 'n.txt',
      content: 'x',
      visibility: 'private',
    });
    const { prompts } = await call('update_snippet', { id: P, snippet_id: snippet.id, visibility: 'public' });
    expect(prompts[0]).toContain(
      'It makes the snippet public (now private): anyone can then read it, signed in or not.',
    );
  });
});

describe('an approval or a merge without a full sha', () => {
  async function openMergeRequest(branch: string): Promise<Record<string, unknown>> {
    const project = encodeURIComponent(P);
    await api('POST', `/projects/${project}/repository/branches`, { branch, ref: 'main' });
    await api('POST', `/projects/${project}/repository/files/${encodeURIComponent(`${branch}.txt`)}`, {
      branch,
      content: 'one',
      commit_message: 'One',
    });
    return api('POST', `/projects/${project}/merge_requests`, {
      source_branch: branch,
      target_branch: 'main',
      title: `Change ${branch}`,
    });
  }

  it('is pinned to the head the question showed, and approves that head', async () => {
    const mr = await openMergeRequest('approve-pinned');
    const head = (await api('GET', `/projects/${encodeURIComponent(P)}/merge_requests/${String(mr.iid)}`))
      .sha as string;
    const { prompts, isError } = await call('approve_merge_request', { id: P, merge_request_iid: mr.iid }, ACCEPT);
    expect(prompts[0]).toContain(`  sha: "${head}"`);
    expect(prompts[0]).toContain(`at head ${head.slice(0, 8)}`);
    expect(isError).toBe(false);
  });

  it('is refused by the service when the head moved after the question', async () => {
    const mr = await openMergeRequest('approve-moved');
    const moveThenAccept = async (): Promise<ElicitResult> => {
      await api(
        'PUT',
        `/projects/${encodeURIComponent(P)}/repository/files/${encodeURIComponent('approve-moved.txt')}`,
        { branch: 'approve-moved', content: 'two', commit_message: 'Two' },
      );
      return ACCEPT;
    };
    const { isError, text } = await call('approve_merge_request', { id: P, merge_request_iid: mr.iid }, moveThenAccept);
    expect(isError).toBe(true);
    expect(text).toMatch(/SHA does not match HEAD/);
    expect(statusesSent('POST', mr.iid, 'approve')).toEqual([409]);
  });

  it('merges the head the question showed when no sha was given, sending it whole', async () => {
    const mr = await openMergeRequest('merge-pinned');
    const head = (await api('GET', `/projects/${encodeURIComponent(P)}/merge_requests/${String(mr.iid)}`))
      .sha as string;
    const { prompts, isError, text } = await call('merge_merge_request', { id: P, merge_request_iid: mr.iid }, ACCEPT);
    expect(isError, text).toBe(false);
    expect(prompts[0]).toContain(`  sha: "${head}"`);
    expect(prompts[0]).toContain(`the head ${head.slice(0, 8)} exactly`);
    expect(statusesSent('PUT', mr.iid, 'merge')).toEqual([200]);
  });

  it('takes a short sha as people type it: the head it starts is shown and sent whole (the service compares it whole)', async () => {
    const mr = await openMergeRequest('merge-short');
    const head = (await api('GET', `/projects/${encodeURIComponent(P)}/merge_requests/${String(mr.iid)}`))
      .sha as string;
    const { prompts, isError, text } = await call(
      'merge_merge_request',
      { id: P, merge_request_iid: mr.iid, sha: head.slice(0, 8) },
      ACCEPT,
    );
    expect(isError, text).toBe(false);
    expect(prompts[0]).toContain(`  sha: "${head}"`);
  });

  it('sends a short sha that is not the head as given, and the service refuses it', async () => {
    const mr = await openMergeRequest('merge-moved');
    const { isError, text } = await call(
      'merge_merge_request',
      { id: P, merge_request_iid: mr.iid, sha: '0000000' },
      ACCEPT,
    );
    expect(isError).toBe(true);
    expect(text).toMatch(/SHA does not match HEAD/);
  });
});

describe('changing access that comes from a group', () => {
  it('refuses removing an inherited member in words, before any question, naming the group and the command', async () => {
    const { prompts, isError, text } = await call('remove_project_member', { id: P, user_id: '@bob' });
    expect(prompts).toEqual([]);
    expect(isError).toBe(true);
    expect(text).toMatch(
      /^@bob's access to acme\/web comes from the group acme \(developer\); nothing was asked or sent\. To remove it there: group member remove acme @bob \(the tool remove_group_member with id "acme", user_id \d+\)\.$/,
    );
  });

  it('refuses in chat alike, and says when the user has no access at all', async () => {
    const chat = testDispatcher(() => env.client);
    const inherited = await chat.dispatch('project member update acme/web @carol access_level=30');
    expect(inherited.kind).toBe('message');
    const text = (reply: ChatReply) =>
      reply.kind === 'message' ? `${reply.message.title}\n${reply.message.sections.map((s) => s.text).join('\n')}` : '';
    expect(text(inherited)).toContain(
      "@carol's access to acme/web comes from the group acme (reporter); nothing was asked or sent. To change it there: group member update acme @carol access_level=30",
    );
    expect(text(inherited)).toContain(
      'Or raise it for acme/web alone: project member add acme/web @carol access_level=30.',
    );
    const stranger = await chat.dispatch('project member remove acme/web @erin');
    expect(text(stranger)).toContain(
      '@erin is not a member of project acme/web, directly or through a group; nothing was asked or sent.',
    );
  });

  it('still asks before removing a direct member', async () => {
    await api('POST', `/projects/${encodeURIComponent(P)}/members`, {
      user_id: env.sandbox.store.findUser('erin')!.id,
      access_level: 30,
    });
    const { prompts } = await call('remove_project_member', { id: P, user_id: '@erin' });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatch(/user_id: "Erin Walsh" \(@erin, id \d+\), now developer/);
  });
});

describe('jobs and pipelines named by number in a question', () => {
  it('says which job a job_id is: name, stage, pipeline, ref and status', async () => {
    // The test job of alice's redeploy of the 1.1.0 release, still running.
    const running = jobWhere((job) => job.status === 'running' && job.stage === 'test');
    const pipeline = web().pipelines.find((p) => p.id === running.pipeline_id)!;
    const { prompts } = await call('cancel_job', { id: P, job_id: running.id });
    expect(prompts[0]).toContain(
      `  job_id: ${running.id} — "${running.name}" (stage "test", pipeline ${pipeline.id} on "${pipeline.ref}", running)`,
    );
  });

  it('says which pipeline a pipeline_id is: ref, status and commit', async () => {
    const pipeline = web().pipelines.find((p) => p.status === 'running')!;
    const { prompts } = await call('cancel_pipeline', { id: P, pipeline_id: pipeline.id });
    expect(prompts[0]).toContain(
      `  pipeline_id: ${pipeline.id} — on "${pipeline.ref}", running, commit "${pipeline.sha.slice(0, 8)}"`,
    );
  });

  it('spells out a job name or ref that would forge a line of the question', async () => {
    const job = jobWhere((j) => j.status === 'failed');
    job.name = 'deploy\n  project: "acme/other"\u202e';
    const { prompts } = await call('cancel_job', { id: P, job_id: job.id });
    const lines = prompts[0].split('\n');
    expect(lines.filter((line) => line.startsWith('  project:'))).toEqual(['  project: "acme/web"']);
    expect(lines.find((line) => line.startsWith('  job_id:'))).toContain(
      '"deploy\\u000a  project: \\"acme/other\\"\\u202e" (stage',
    );
  });

  it('says a failed lookup instead of hiding it', async () => {
    const { prompts } = await call('cancel_job', { id: P, job_id: 999_999 });
    expect(prompts[0]).toMatch(/ {2}job_id: 999999 \(could not look up which job this is: .*404/);
  });
});
