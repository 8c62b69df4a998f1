// The chat dispatcher against the sandbox: typed lines → messages, approval requests that run only when approved,
// the policy asked again on approval, the default project, and the meta commands.
import { describe, expect, it } from 'vitest';
import { createDispatcher, type ChatReply, type DispatchContext } from '../../../src/chat/dispatch.js';
import { HttpClient } from '../../../src/http/client.js';
import { operations } from '../../../src/operations/index.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();
const PROJECT = 'acme/web';

function dispatcher(overrides: Partial<DispatchContext> = {}) {
  let project: string | undefined;
  return createDispatcher({
    operations,
    policy: { readOnly: false },
    runContext: () => ({ client: env.client }),
    explain: { operations },
    defaultProject: {
      get: () => project,
      set: (p) => {
        project = p;
      },
    },
    ...overrides,
  });
}

function messageOf(reply: ChatReply) {
  if (reply.kind !== 'message') throw new Error(`expected a message, got ${reply.kind}`);
  return reply;
}

async function pipelineIds(status?: string): Promise<number[]> {
  const reply = messageOf(
    await dispatcher().call('list_pipelines', { id: PROJECT, per_page: 100, ...(status ? { status } : {}) }),
  );
  return (reply.outcome?.ok ? (reply.outcome.result.data as Array<{ id: number }>) : []).map((p) => p.id);
}

describe('dispatch', () => {
  it('runs a read and presents it', async () => {
    const reply = messageOf(await dispatcher().dispatch(`pipeline list ${PROJECT} per_page=3`));
    expect(reply.ok).toBe(true);
    expect(reply.message.title).toBe('3 pipelines');
    expect(reply.message.actions.filter((a) => a.row === undefined).map((a) => a.label)).toEqual(['Next page']);
    expect(reply.outcome?.ok && reply.outcome.result.status).toBe(200);
  });

  it('answers help with the generated help text', async () => {
    const reply = messageOf(await dispatcher({ prefix: '/forge ' }).dispatch('help pipeline retry'));
    expect(reply.ok).toBe(true);
    expect(reply.message.sections[0].text).toMatch(/^Usage: \/forge pipeline retry <id> <pipeline_id>/);
  });

  it('turns a mistyped command into an error with the suggestion, and bad input into one naming the field', async () => {
    const typo = messageOf(await dispatcher().dispatch('pipline list acme/web'));
    expect(typo).toMatchObject({ ok: false, message: { status: 'error' } });
    expect(typo.message.title).toMatch(/Did you mean: pipeline list\?/);
    const bad = messageOf(await dispatcher().dispatch(`pipeline get ${PROJECT} pipeline_id=abc`));
    expect(bad.ok).toBe(false);
    expect(bad.message.title).toMatch(/pipeline_id/);
    expect(bad.message.sections[0].text).toMatch(/^Usage: pipeline get/);
  });

  it("explains a service failure in the service's words", async () => {
    const reply = messageOf(await dispatcher().dispatch(`pipeline get ${PROJECT} 999999`));
    expect(reply).toMatchObject({ ok: false, message: { title: 'Get pipeline failed', status: 'error' } });
    expect(reply.message.sections[0].text).toMatch(/^404 /);
  });

  it('asks before a destructive call and runs it only when approved', async () => {
    const [target] = await pipelineIds('success');
    const chat = dispatcher();
    const asked = await chat.dispatch(`pipeline delete ${PROJECT} ${target}`);
    if (asked.kind !== 'approve') throw new Error('expected an approval request');
    expect(asked.operation.name).toBe('delete_pipeline');
    expect(asked.input).toEqual({ id: PROJECT, pipeline_id: target });
    expect(asked.prompt).toContain(`pipeline_id: ${target}`);
    expect(asked.message.sections[0].text).toBe(asked.prompt);
    expect(await pipelineIds()).toContain(target);
    const done = messageOf(await chat.approved(asked.operation, asked.input));
    expect(done).toMatchObject({ ok: true, message: { status: 'success' } });
    expect(await pipelineIds()).not.toContain(target);
  });

  it('asks the policy again on approval: read-only since then runs nothing', async () => {
    const [target] = await pipelineIds('success');
    const policy = { readOnly: false };
    const chat = dispatcher({ policy });
    const asked = await chat.dispatch(`pipeline delete ${PROJECT} ${target}`);
    expect(asked.kind).toBe('approve');
    policy.readOnly = true;
    const refused = messageOf(await chat.approved('delete_pipeline', { id: PROJECT, pipeline_id: target }));
    expect(refused.ok).toBe(false);
    expect(refused.message.sections[0].text).toMatch(/read-only/);
    expect(await pipelineIds()).toContain(target);
  });

  it('runs a follow-up by name: Retry on a failed pipeline leaves it pending', async () => {
    const [failed] = await pipelineIds('failed');
    const reply = messageOf(await dispatcher().call('retry_pipeline', { id: PROJECT, pipeline_id: failed }));
    expect(reply.ok).toBe(true);
    expect(reply.message).toMatchObject({ title: `Retried pipeline #${failed} in acme/web`, status: 'pending' });
    // The answer names the jobs the retry re-queued (the demo's failed pipelines each have a failed job).
    expect(reply.message.fields[0]).toEqual([
      'result',
      expect.stringMatching(new RegExp(`^Retried pipeline #${failed}: re-queued \\S`)),
    ]);
    expect(reply.message.fields[1]).toEqual(['status', 'pending']);
  });

  it('keeps the default project set with use', async () => {
    const chat = dispatcher();
    expect(messageOf(await chat.dispatch('pipeline list')).ok).toBe(false);
    expect(messageOf(await chat.dispatch(`use ${PROJECT}`)).message.title).toBe(`Default project: ${PROJECT}`);
    const reply = messageOf(await chat.dispatch('pipeline list per_page=1'));
    expect(reply.ok).toBe(true);
    expect(reply.outcome?.input.id).toBe(PROJECT);
  });

  it('answers whoami with the account the calls run as, and login as a Slack-only command', async () => {
    const me = messageOf(await dispatcher().dispatch('whoami'));
    expect(me.ok).toBe(true);
    expect(me.message.fields).toContainEqual(['username', 'alice']);
    const login = messageOf(await dispatcher().dispatch('login'));
    expect(login.ok).toBe(false);
    expect(login.message.title).toMatch(/Slack/);
  });

  it("uses the run context's token: an outsider does not see a private project", async () => {
    const outsider = new HttpClient({
      baseUrl: env.sandbox.url,
      token: env.sandbox.tokens.outsider,
      retry: { maxRetries: 0 },
    });
    try {
      const reply = messageOf(
        await dispatcher({ runContext: () => ({ client: outsider }) }).dispatch(
          'pipeline list acme/platform/payments-api',
        ),
      );
      expect(reply.ok).toBe(false);
      expect(reply.message.sections[0].text).toMatch(/^404 /);
    } finally {
      await outsider.close();
    }
  });

  it('turns a refusing run context into a refusal: nothing sent, no question asked, triage notes it', async () => {
    const [target] = await pipelineIds('success');
    const asked: string[] = [];
    const chat = dispatcher({
      runContext: (op) => {
        asked.push(op.name);
        return { refused: 'link your account with /forge login' };
      },
    });
    const read = messageOf(await chat.dispatch(`pipeline get ${PROJECT} ${target}`));
    expect(read).toMatchObject({ ok: false, message: { title: 'Get pipeline: not run', status: 'error' } });
    expect(read.message.sections[0].text).toBe('link your account with /forge login');
    expect(read.outcome).toBeUndefined();
    const destroy = await chat.dispatch(`pipeline delete ${PROJECT} ${target}`);
    expect(destroy.kind).toBe('message');
    expect(messageOf(destroy).message.sections[0].text).toMatch(/\/forge login/);
    expect(messageOf(await chat.approved('delete_pipeline', { id: PROJECT, pipeline_id: target })).ok).toBe(false);
    expect(await pipelineIds()).toContain(target);
    const triaged = messageOf(await chat.dispatch(`triage ${PROJECT}`));
    expect(triaged.ok).toBe(false);
    expect(triaged.message.title).toBe(`Triage ${PROJECT} failed`);
    expect(triaged.message.sections[0].text).toMatch(/link your account/);
    expect(asked).toContain('delete_pipeline');
  });
});
