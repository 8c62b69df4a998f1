// triage <project> against the sandbox: the default branch's pipelines with Retry/Cancel, the latest release, the
// recent commits, and a part that fails shown as a note rather than failing the whole message.
import { describe, expect, it } from 'vitest';
import { createDispatcher, type ChatReply } from '../../../src/chat/dispatch.js';
import { operations } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/define.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();
const PROJECT = 'acme/web';

function dispatcher(ops: readonly Operation[] = operations) {
  return createDispatcher({
    operations: ops,
    policy: { readOnly: false },
    runContext: () => ({ client: env.client }),
    explain: { operations: ops },
    defaultProject: { get: () => undefined, set: () => undefined },
  });
}

async function data(name: string, input: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const reply = await dispatcher().call(name, input);
  if (reply.kind !== 'message' || !reply.outcome?.ok) throw new Error(`${name} failed`);
  return reply.outcome.result.data as Array<Record<string, unknown>>;
}

function messageOf(reply: ChatReply) {
  if (reply.kind !== 'message') throw new Error(`expected a message, got ${reply.kind}`);
  return reply;
}

describe('triage', () => {
  it("gathers the default branch's pipelines, the latest release and the recent commits", async () => {
    const pipelines = await data('list_pipelines', { id: PROJECT, ref: 'main', per_page: 5 });
    const [release] = await data('list_releases', { id: PROJECT, per_page: 1 });
    const [commit] = await data('list_commits', { id: PROJECT, ref_name: 'main', per_page: 1 });
    const reply = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(reply.ok).toBe(true);
    const { message } = reply;
    expect(message.title).toBe(`Triage ${PROJECT}`);
    expect(message.link).toMatch(/\/acme\/web$/);
    expect(message.fields).toContainEqual(['default branch', 'main']);
    expect(message.fields).toContainEqual(['latest pipeline', `#${pipelines[0].id} ${pipelines[0].status}`]);
    expect(message.fields.find(([k]) => k === 'latest release')?.[1]).toMatch(new RegExp(`^${release.tag_name} · `));
    const [pipelineSection, commitSection] = message.sections;
    expect(pipelineSection.title).toBe('Pipelines on main');
    expect(pipelineSection.text.split('\n').map((line) => line.split(' ')[0])).toEqual(pipelines.map((p) => `#${p.id}`));
    expect(commitSection.title).toBe('Recent commits on main');
    expect(commitSection.text.split('\n')[0]).toMatch(new RegExp(`^${commit.short_id}  `));
    expect(message.notes).toEqual([]);
  });

  it('offers Retry for each failed pipeline and Cancel for each running one, naming the pipeline', async () => {
    const pipelines = await data('list_pipelines', { id: PROJECT, ref: 'main', per_page: 5 });
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    const expected = pipelines.flatMap((p) => {
      if (p.status === 'failed' || p.status === 'canceled') return [[`Retry #${p.id}`, 'retry_pipeline', p.id]];
      if (p.status === 'running' || p.status === 'pending') return [[`Cancel #${p.id}`, 'cancel_pipeline', p.id]];
      return [];
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(message.actions.map((a) => [a.label, a.operation, a.input.pipeline_id])).toEqual(expected);
    expect(message.actions.every((a) => a.input.id === PROJECT)).toBe(true);
  });

  it("follows the project's own default branch", async () => {
    const project = env.sandbox.store.projects.find((p) => p.full_path === PROJECT)!;
    const before = project.default_branch;
    project.default_branch = 'feature/dark-mode';
    try {
      const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
      expect(message.fields).toContainEqual(['default branch', 'feature/dark-mode']);
      expect(message.sections.map((s) => s.title)).toEqual(['Pipelines on feature/dark-mode', 'Recent commits on feature/dark-mode']);
    } finally {
      project.default_branch = before;
    }
  });

  it('shows a part that fails as a note and keeps the rest', async () => {
    env.sandbox.faults.add({ method: 'GET', path: '/projects/acme%2Fweb/releases', status: 500 });
    const reply = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(reply.ok).toBe(true);
    expect(reply.message.notes).toHaveLength(1);
    expect(reply.message.notes[0]).toMatch(/^Releases could not be read: /);
    expect(reply.message.fields.map(([k]) => k)).not.toContain('latest release');
    expect(reply.message.sections).toHaveLength(2);
  });

  it('says the project is missing when nothing can be read', async () => {
    const reply = messageOf(await dispatcher().dispatch('triage acme/nothing-here'));
    expect(reply.ok).toBe(false);
    expect(reply.message).toMatchObject({ title: 'Triage acme/nothing-here: nothing could be read', status: 'error' });
    expect(reply.message.notes.join('\n')).toMatch(/404/);
  });

  it('works without operations the registry may lack, assuming main', async () => {
    const withoutProjects = operations.filter((op) => op.name !== 'list_projects');
    const { message } = messageOf(await dispatcher(withoutProjects).dispatch(`triage ${PROJECT}`));
    expect(message.fields).toContainEqual(['default branch', 'main']);
    expect(message.notes[0]).toMatch(/list_projects is not offered here.*assuming the default branch is main/);
  });

  it('needs a project', async () => {
    const reply = messageOf(await dispatcher().dispatch('triage'));
    expect(reply.ok).toBe(false);
    expect(reply.message.title).toMatch(/triage needs a project/);
  });
});
