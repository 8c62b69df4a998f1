// People by name in chat, against the sandbox: `@erin` resolved through the service before validation, a
// approval request that names her and the project, an outcome that says what happened to whom, and unknown names refused.
import { describe, expect, it } from 'vitest';
import type { ChatReply } from '../../../src/chat/dispatch.js';
import { connectInMemory, resultText, useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

const env = useSandbox();
const PROJECT = 'acme/web';

function dispatcher() {
  return testDispatcher(() => env.client);
}

function messageOf(reply: ChatReply) {
  if (reply.kind !== 'message')
    throw new Error(`expected a message, got ${reply.kind}: ${JSON.stringify(reply.message)}`);
  return reply;
}

async function erinId(): Promise<number> {
  const res = await env.client.request<Array<{ id: number }>>({
    method: 'GET',
    path: '/users',
    query: { username: 'erin' },
    idempotent: true,
  });
  return res.data[0].id;
}

describe('people by name in chat', () => {
  it('adds @erin by username, and removing @erin asks with her name and the project, then says whom it removed from where', async () => {
    const id = await erinId();
    const chat = dispatcher();
    const added = messageOf(await chat.dispatch(`project member add ${PROJECT} user_id=@erin access_level=30`));
    expect(added.ok, JSON.stringify(added.message)).toBe(true);
    expect(added.message.title).toBe('Added @erin to acme/web as developer');

    const ask = await chat.dispatch(`project member remove ${PROJECT} @erin`);
    expect(ask.kind).toBe('approve');
    if (ask.kind !== 'approve') return;
    expect(ask.input).toEqual({ id: PROJECT, user_id: id });
    expect(ask.prompt).toContain(`user_id: "Erin Walsh" (@erin, id ${id}), now developer`);
    expect(env.sandbox.requests.filter({ method: 'DELETE', path: `/projects/acme%2Fweb/members/${id}` })).toHaveLength(
      0,
    );

    const done = messageOf(await chat.approved(ask.operation, ask.input));
    expect(done.ok).toBe(true);
    expect(done.message.title).toBe('Removed @erin from acme/web (was developer)');
    expect(env.sandbox.requests.filter({ method: 'DELETE', path: `/projects/acme%2Fweb/members/${id}` })).toHaveLength(
      1,
    );
  });

  it('names the project by path when it was given by number', async () => {
    const listed = await env.client.request<Array<{ id: number; path_with_namespace: string }>>({
      method: 'GET',
      path: '/projects',
      query: { per_page: 100 },
      idempotent: true,
    });
    const project = { data: listed.data.find((p) => p.path_with_namespace === PROJECT)! };
    // A direct member: access inherited from a group, or none, is refused before any question.
    expect(
      messageOf(await dispatcher().dispatch(`project member add ${PROJECT} user_id=@erin access_level=30`)).ok,
    ).toBe(true);
    const ask = await dispatcher().dispatch(`project member update ${project.data.id} erin access_level=40`);
    expect(ask.kind).toBe('approve');
    if (ask.kind !== 'approve') return;
    expect(ask.prompt).toContain(`project: "acme/web" (id ${project.data.id})`);
    expect(ask.prompt).toMatch(/user_id: "Erin Walsh" \(@erin, id \d+\)/);
    expect(
      messageOf(await dispatcher().approved('remove_project_member', { id: PROJECT, user_id: await erinId() })).ok,
    ).toBe(true);
  });

  it('refuses an unknown name, naming the field, and sends nothing else', async () => {
    const before = env.sandbox.requests.all().length;
    const reply = messageOf(await dispatcher().dispatch(`project member remove ${PROJECT} @nobody-here`));
    expect(reply.ok).toBe(false);
    expect(reply.message.sections[0].text).toMatch(/^user_id: @nobody-here matches no user\./);
    const sent = env.sandbox.requests.all().slice(before);
    expect(sent.map((r) => r.method)).toEqual(['GET']);
  });

  it('previews a dry run with the id the name stands for', async () => {
    const id = await erinId();
    const reply = messageOf(
      await dispatcher().dispatch(`project member add ${PROJECT} user_id=@erin access_level=30 --dry-run`),
    );
    expect(reply.ok).toBe(true);
    expect(reply.message.sections[0].text).toContain(`"user_id": ${id}`);
  });

  it("user list shows each user's id", async () => {
    const reply = messageOf(await dispatcher().dispatch('user list username=erin'));
    const id = await erinId();
    expect(reply.message.fields).toEqual([['@erin', `Erin Walsh (id ${id}) · active`]]);
  });
});

describe('people by name over MCP', () => {
  it('takes a username where the schema says integer, and the outcome names the person and project', async () => {
    const mcp = await connectInMemory({ client: env.client });
    try {
      const result = await mcp.client.callTool({
        name: 'add_project_member',
        arguments: { id: PROJECT, user_id: '@erin', access_level: 20 },
      });
      expect(result.isError, resultText(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        outcome: 'Added @erin to acme/web as reporter',
        username: 'erin',
      });
      const unknown = await mcp.client.callTool({
        name: 'add_project_member',
        arguments: { id: PROJECT, user_id: 'nobody-here', access_level: 20 },
      });
      expect(unknown.isError).toBe(true);
      expect(resultText(unknown)).toMatch(/^user_id: @nobody-here matches no user/);
    } finally {
      await mcp.close();
    }
  });

  it('answers a write with no body in a sentence, not {status: 204}', async () => {
    const mcp = await connectInMemory({
      client: env.client,
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    try {
      const result = await mcp.client.callTool({
        name: 'remove_project_member',
        arguments: { id: PROJECT, user_id: 'erin' },
      });
      expect(result.isError, resultText(result)).toBeFalsy();
      expect(resultText(result)).toBe('Removed @erin from acme/web (was reporter).');
      expect(mcp.prompts[0]).toMatch(/"Erin Walsh" \(@erin, id \d+\)/);
    } finally {
      await mcp.close();
    }
  });
});
