// A CI variable's value is a credential whatever its key. Created and read over MCP and in
// Slack (the terminal chat's side is in test/e2e/chat.test.ts), the value shows in none of them unless revealed; a
// revealed read asks a human first, and in Slack goes to the asker alone even where the channel sees reads.
import { describe, expect, it } from 'vitest';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';
import { messageText, waitFor } from '../helpers/slack.js';
import { useSlackBot } from '../helpers/slack-bot.js';

const env = useSandbox();
const AWS_VALUE = 'AKIAIOSFODNN7EXAMPLE';
const SLACK_VALUE = 'AKIASLACKEXAMPLE0042';

describe('over MCP', () => {
  it('creates and reads a variable without the value in any result; reveal asks the human, and shows it only when they accept', async () => {
    let answer: 'accept' | 'decline' = 'decline';
    const mcp = await connectInMemory({
      client: env.client,
      elicit: () => (answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' }),
    });
    try {
      const created = await mcp.client.callTool({
        name: 'create_group_variable',
        arguments: { id: 'acme', key: 'AWS_KEY', value: AWS_VALUE },
      });
      expect(created.isError).toBeFalsy();
      expect(JSON.stringify(created)).not.toContain(AWS_VALUE);
      expect(JSON.stringify(created)).toMatch(/<secret, 20 characters, sha256 [0-9a-f]{8}…>/);
      for (const [name, args] of [
        ['get_group_variable', { id: 'acme', key: 'AWS_KEY' }],
        ['list_group_variables', { id: 'acme' }],
      ] as const) {
        const read = await mcp.client.callTool({ name, arguments: args });
        expect(read.isError, name).toBeFalsy();
        expect(JSON.stringify(read), name).not.toContain(AWS_VALUE);
      }
      expect(mcp.prompts).toHaveLength(0);
      const declined = await mcp.client.callTool({
        name: 'get_group_variable',
        arguments: { id: 'acme', key: 'AWS_KEY', reveal: true },
      });
      expect(mcp.prompts).toHaveLength(1);
      expect(mcp.prompts[0]).toMatch(/unmasked/);
      expect(JSON.stringify(declined)).not.toContain(AWS_VALUE);
      answer = 'accept';
      const revealed = await mcp.client.callTool({
        name: 'get_group_variable',
        arguments: { id: 'acme', key: 'AWS_KEY', reveal: true },
      });
      expect(mcp.prompts).toHaveLength(2);
      expect(JSON.stringify(revealed)).toContain(AWS_VALUE);
    } finally {
      await mcp.close();
    }
  });
});

describe('in Slack', () => {
  const bots = useSlackBot(env, {
    name: 'credentials',
    people: { U1: 'maintainer' },
    // A channel that wants to see variable reads and writes: the revealed value must still go to the asker alone.
    settings: { SLACK_IN_CHANNEL_OPERATIONS: 'create_group_variable,get_group_variable,list_group_variables' },
  });
  const { command } = bots;

  /** Everything the bot sent anywhere: response URLs and Web API calls (channel posts, ephemeral posts). */
  const everything = () => JSON.stringify([bots.slack.responses, bots.slack.calls]);

  it('shows the value to nobody on create, get and list, and echoes no stray word of a credential-carrying command', async () => {
    const created = await command(`variable create acme key=SLACK_AWS_KEY value=${SLACK_VALUE}`);
    expect(messageText(created), JSON.stringify(created)).toMatch(/SLACK_AWS_KEY/);
    expect(created.response_type, messageText(created)).toBe('in_channel');
    expect(messageText(created)).toMatch(/SLACK_AWS_KEY/);
    const read = await command('variable get acme SLACK_AWS_KEY');
    expect(read.response_type).toBe('in_channel');
    expect(messageText(read), messageText(read)).toMatch(/secret, 20 characters, sha256/);
    await command('variable list acme');
    const stray = await command(`variable update acme SLACK_AWS_KEY value=${SLACK_VALUE} TAILPART`);
    expect(messageText(stray)).toMatch(/Too many values: 1 more than it takes \(not shown/);
    expect(everything()).not.toContain(SLACK_VALUE);
    expect(everything()).not.toContain('TAILPART');
  });

  it('reveals only after approval, and only to the asker (never in the channel)', async () => {
    const question = await command('variable get acme SLACK_AWS_KEY reveal=true');
    expect(question.response_type).toBe('ephemeral');
    expect(messageText(question)).toMatch(/unmasked/);
    expect(everything()).not.toContain(SLACK_VALUE);
    const confirm = (
      (question.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
        (b) => b.type === 'actions',
      )?.elements ?? []
    ).find((e) => e.action_id === 'forge_confirm');
    expect(confirm).toBeDefined();
    const path = await bots.click(confirm!);
    const shown = await waitFor(
      () => bots.answersTo(path).find((body) => JSON.stringify(body).includes(SLACK_VALUE)),
      10_000,
      'the revealed value',
    );
    expect(shown.response_type ?? 'ephemeral').toBe('ephemeral');
    expect(shown.replace_original === true || shown.response_type === 'ephemeral').toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Nothing that reached the channel carries it: no in_channel answer, no chat.postMessage.
    const inChannel = bots.slack.responses
      .filter((r) => r.body.response_type === 'in_channel')
      .map((r) => JSON.stringify(r.body));
    expect(inChannel.join()).not.toContain(SLACK_VALUE);
    expect(JSON.stringify(bots.slack.calls.filter((c) => c.method === 'chat.postMessage'))).not.toContain(SLACK_VALUE);
  });
});
