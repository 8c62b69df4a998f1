// triage <project> against the sandbox's demo data: the triage_project report as chat shows it — the verdict on the
// head commit's pipelines, actions on the head's pipeline only, the latest release, and what could not be read.
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
  it('judges the default branch on its head commit: a [ci skip] head with a running pipeline is running, not red', async () => {
    const pipelines = await data('list_pipelines', { id: PROJECT, ref: 'main', per_page: 20 });
    const [head] = await data('list_commits', { id: PROJECT, ref_name: 'main', per_page: 1 });
    const running = pipelines.find((p) => p.sha === head.id && p.status === 'running')!;
    expect(running).toBeDefined();
    const reply = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(reply.ok).toBe(true);
    const { message } = reply;
    expect(message.title).toBe(`${PROJECT}: main is running`);
    expect(message.status).toBe('running');
    expect(message.link).toMatch(/\/acme\/web$/);
    const verdict = message.fields.find(([k]) => k === 'verdict')?.[1] ?? '';
    expect(verdict).toMatch(new RegExp(`^running: the head's pipeline #${running.id} has not finished; before it, #\\d+ at [0-9a-f]{8} failed$`));
    expect(message.fields.find(([k]) => k === 'head')?.[1]).toBe(`${String(head.id).slice(0, 8)} ${head.title} (${head.author_name})`);
  });

  it('offers Cancel for the head\'s running pipeline and never a Retry of an older failed one', async () => {
    const pipelines = await data('list_pipelines', { id: PROJECT, ref: 'main', per_page: 20 });
    const olderFailed = pipelines.filter((p) => p.status === 'failed');
    expect(olderFailed.length).toBeGreaterThan(0);
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    const running = pipelines.find((p) => p.status === 'running')!;
    expect(message.actions.map((a) => [a.label, a.operation, a.input.pipeline_id])).toEqual([[`Cancel #${running.id}`, 'cancel_pipeline', running.id]]);
    expect(message.actions.some((a) => a.operation === 'retry_pipeline')).toBe(false);
  });

  it('names the latest release and how many commits are unreleased', async () => {
    const [release] = await data('list_releases', { id: PROJECT, per_page: 1 });
    const { message } = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    expect(message.fields.find(([k]) => k === 'release')?.[1]).toMatch(new RegExp(`^${release.tag_name} · \\d+ commits? unreleased$`));
  });

  it('says what could not be read instead of hiding it', async () => {
    const missing = messageOf(await dispatcher().dispatch('triage acme/nope'));
    expect(missing.ok).toBe(true);
    expect(missing.message.fields.find(([k]) => k === 'verdict')?.[1]).toMatch(/^unknown/);
    expect(missing.message.sections.find((s) => s.title === 'Not read')?.text).toMatch(/get_project: .*404/);
  });
});
