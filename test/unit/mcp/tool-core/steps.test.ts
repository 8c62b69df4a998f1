// A tool call's chain of steps against the sandbox, each ending told apart: a preview, a refusal before sending, a
// human's no, a stateless question, a service failure, a done call, and a step that throws after sending.
import { describe, expect, it, vi } from 'vitest';
import { catalogOf } from '../../../../src/mcp/catalog.js';
import { type CallContext, type AskApproval, runCall } from '../../../../src/mcp/tool-core/steps.js';
import type { CallExtra } from '../../../../src/mcp/tool-core/progress.js';
import { operations } from '../../../../src/operations/index.js';
import { useSandbox } from '../../../helpers/mcp.js';
import { quietLog } from '../../../helpers/watch.js';

const env = useSandbox();
const extra = {
  signal: new AbortController().signal,
  requestId: 1,
  sendNotification: async () => {},
} as unknown as CallExtra;

function call(name: string, confirm: AskApproval = async () => ({ approved: true })): CallContext {
  const op = operations.find((o) => o.name === name);
  if (!op) throw new Error(`no operation ${name}`);
  return {
    settings: { client: env.client, readOnly: false, callTimeoutMs: 10_000, maxResultChars: 60_000 },
    op,
    explain: { operations: catalogOf(operations).tools },
    extra,
    limits: {},
    askApproval: confirm,
    log: quietLog,
    operation: async (wanted) => operations.find((o) => o.name === wanted),
  };
}

const branch = (name: string) => ({ id: 'acme/web', branch: name });

async function makeBranch(name: string): Promise<void> {
  await env.client.request({
    method: 'POST',
    path: `/projects/${encodeURIComponent('acme/web')}/repository/branches`,
    query: { branch: name, ref: 'main' },
    idempotent: false,
  });
}

describe('runCall', () => {
  it('ends a read that the service answers as done', async () => {
    const ending = await runCall(call('list_pipelines'), { id: 'acme/web' });
    expect(ending.kind).toBe('done');
  });

  it('ends a dry run as previewed, without asking anybody', async () => {
    const confirm = vi.fn<AskApproval>();
    const ending = await runCall(call('delete_branch', confirm), { ...branch('main'), dry_run: true });
    expect(ending.kind).toBe('previewed');
    expect(confirm).not.toHaveBeenCalled();
  });

  it('ends bad input and a bad dry_run as refused, before anything is asked or sent', async () => {
    const confirm = vi.fn<AskApproval>();
    expect((await runCall(call('delete_branch', confirm), { id: 'acme/web' })).kind).toBe('refused');
    expect((await runCall(call('list_pipelines'), { id: 'acme/web', dry_run: true })).kind).toBe('refused');
    expect(confirm).not.toHaveBeenCalled();
  });

  it('ends a call the human declines, or leaves unanswered, as declined, and one a stateless client is asked as asked', async () => {
    await makeBranch('steps-declined');
    const no: AskApproval = async () => ({ approved: false, reason: 'no thanks' });
    expect((await runCall(call('delete_branch', no), branch('steps-declined'))).kind).toBe('declined');
    const gone: AskApproval = async () => {
      throw new Error('the client went away');
    };
    const unanswered = await runCall(call('delete_branch', gone), branch('steps-declined'));
    expect(unanswered).toMatchObject({ kind: 'declined', result: { isError: true } });
    const ask: AskApproval = async () => ({ ask: { resultType: 'input_required' } });
    expect(await runCall(call('delete_branch', ask), branch('steps-declined'))).toEqual({
      kind: 'asked',
      result: { resultType: 'input_required' },
    });
  });

  it('ends a call the service refuses as failed', async () => {
    const ending = await runCall(call('get_pipeline'), { id: 'acme/web', pipeline_id: 999_999 });
    expect(ending).toMatchObject({ kind: 'failed', result: { isError: true } });
  });

  it('runs an approved call and ends it as done', async () => {
    await makeBranch('steps-approved');
    expect((await runCall(call('delete_branch'), branch('steps-approved'))).kind).toBe('done');
  });

  it('tells a step that threw before sending from one that threw once sending, and passes the error on', async () => {
    const broken = new Error('the log is broken');
    const failingLog = {
      ...quietLog,
      info: () => {
        throw broken;
      },
    };
    const no: AskApproval = async () => ({ approved: false, reason: 'no thanks' });
    const declined = await runCall({ ...call('delete_branch', no), log: failingLog }, branch('main'));
    expect(declined).toEqual({ kind: 'threw', error: broken, sent: false });
    await makeBranch('steps-thrown');
    // A write's outcome is logged once the service did it: the call was sent.
    const done = await runCall({ ...call('delete_branch'), log: failingLog }, branch('steps-thrown'));
    expect(done).toEqual({ kind: 'threw', error: broken, sent: true });
  });
});
