// --dry-run in the chat (shared by the terminal and Slack): the grammar reads it, the dispatcher answers with what the
// call would send and change, and the sandbox's request log shows nothing was sent.
import { beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type ChatReply, type DispatchContext } from '../../../src/chat/dispatch.js';
import { parse } from '../../../src/chat/grammar.js';
import { operations } from '../../../src/operations/index.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();

function dispatcher(overrides: Partial<DispatchContext> = {}) {
  return createDispatcher({
    operations,
    policy: { readOnly: false },
    runContext: () => ({ client: env.client }),
    explain: { operations },
    defaultProject: { get: () => 'acme/web', set: () => undefined },
    ...overrides,
  });
}

function messageOf(reply: ChatReply) {
  if (reply.kind !== 'message') throw new Error(`expected a message, got ${reply.kind}: ${reply.prompt}`);
  return reply;
}

beforeEach(() => {
  env.sandbox.requests.clear();
});

describe('the grammar', () => {
  it('reads --dry-run anywhere after the command words, and its yes/no forms', () => {
    expect(parse('pipeline retry acme/web 42 --dry-run')).toMatchObject({
      kind: 'call',
      input: { id: 'acme/web', pipeline_id: 42 },
      dryRun: true,
    });
    expect(parse('pipeline retry --dry-run acme/web 42')).toMatchObject({
      kind: 'call',
      input: { pipeline_id: 42 },
      dryRun: true,
    });
    expect(parse('pipeline retry acme/web 42 dry_run=yes')).toMatchObject({ dryRun: true });
    expect(parse('pipeline retry acme/web 42 —dry-run')).toMatchObject({ dryRun: true });
    const no = parse('pipeline retry acme/web 42 --dry-run no');
    expect(no).toMatchObject({ kind: 'call', input: { id: 'acme/web', pipeline_id: 42 } });
    expect(no).not.toHaveProperty('dryRun');
  });

  it('says why a read takes no --dry-run, and names a bad value', () => {
    expect(parse('pipeline get acme/web 1 --dry-run')).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/pipeline get only reads/),
    });
    expect(parse('pipeline retry acme/web 1 --dry-run=maybe')).toMatchObject({
      kind: 'error',
      message: '--dry-run takes no value (or yes/no), not "maybe".',
    });
  });
});

describe('a dry run in the chat', () => {
  it('shows the request and what it would change, asks nobody, and sends nothing', async () => {
    const reply = messageOf(await dispatcher().dispatch('pipeline delete 1 --dry-run'));
    expect(reply.ok).toBe(true);
    expect(reply.message.title).toBe('Dry run: Delete pipeline (nothing was sent)');
    expect(reply.message.sections[0].text).toBe('DELETE /api/v4/projects/acme%2Fweb/pipelines/1');
    expect(reply.message.fields).toEqual([
      ['would change', expect.stringMatching(/Cannot be undone/)],
      ['approval', 'a real run asks first'],
    ]);
    expect(reply.outcome?.ok && reply.outcome.result.data).toMatchObject({
      dry_run: 'nothing was sent',
      operation: 'delete_pipeline',
    });
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('shows the body as it would be sent, credentials by length', async () => {
    const reply = messageOf(
      await dispatcher().dispatch('variable update acme DEPLOY_TOKEN value=s3cr3t-value --dry-run'),
    );
    expect(reply.message.sections[0]).toEqual({
      title: 'Request (json body)',
      code: true,
      text: 'PUT /api/v4/groups/acme/variables/DEPLOY_TOKEN\n{\n  "value": "<secret, 12 characters>"\n}',
    });
    expect(JSON.stringify(reply.message)).not.toContain('s3cr3t');
    expect(JSON.stringify(reply.outcome?.ok && reply.outcome.result.data)).not.toContain('s3cr3t');
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('in a dry-run session previews every change and still runs reads', async () => {
    const session = dispatcher({ dryRun: true });
    const change = messageOf(await session.dispatch('pipeline retry 1'));
    expect(change.message.title).toBe('Dry run: Retry pipeline (nothing was sent)');
    const button = messageOf(await session.call('cancel_pipeline', { id: 'acme/web', pipeline_id: 1 }));
    expect(button.message.title).toBe('Dry run: Cancel pipeline (nothing was sent)');
    expect(env.sandbox.requests.all()).toEqual([]);
    const read = messageOf(await session.dispatch('pipeline get 1'));
    expect(read.message.title).toBe('Pipeline #1: success');
    expect(env.sandbox.requests.all()).toEqual([expect.objectContaining({ method: 'GET' })]);
  });

  it('is refused like the call itself: bad input by name, read-only mode, an asker who may not run it', async () => {
    const bad = messageOf(await dispatcher().dispatch('pipeline create --dry-run'));
    expect(bad.ok).toBe(false);
    expect(bad.message.title).toMatch(/ref is required/);
    const readOnly = messageOf(await dispatcher({ policy: { readOnly: true } }).dispatch('pipeline retry 1 --dry-run'));
    expect(readOnly.ok).toBe(false);
    expect(readOnly.message.sections[0].text).toMatch(/read-only mode/);
    const unlinked = messageOf(
      await dispatcher({ runContext: () => ({ refused: 'Link your account first.' }) }).dispatch(
        'pipeline retry 1 --dry-run',
      ),
    );
    expect(unlinked.ok).toBe(false);
    expect(unlinked.message.sections[0].text).toBe('Link your account first.');
    expect(env.sandbox.requests.all()).toEqual([]);
  });
});
