// A CI variable's value is a credential whatever its key. Created and read over MCP and in
// Slack (the terminal chat's side is in test/e2e/chat.test.ts), the value shows in none of them unless revealed; a
// revealed read asks a human first, and in Slack goes to the asker alone even where the channel sees reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { startSlackBot, type SlackBotHandle } from '../../src/slack/main.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';
import {
  clickBody,
  commandBody,
  loginSubmitBody,
  messageText,
  postSigned,
  startFakeSlack,
  waitFor,
  type FakeSlack,
} from '../helpers/slack.js';

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
  const secret = 'test-signing-secret';
  let slack: FakeSlack;
  let bot: SlackBotHandle;
  let dataDir: string;

  beforeAll(async () => {
    slack = await startFakeSlack();
    dataDir = mkdtempSync(join(tmpdir(), 'forgeops-slack-credentials-'));
    const config = parseConfig({
      CODEHOST_URL: env.sandbox.url,
      CODEHOST_MAX_RETRIES: '0',
      SLACK_SIGNING_SECRET: secret,
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_API_URL: slack.apiUrl,
      FORGEOPS_DATA_DIR: dataDir,
      FORGEOPS_SECRET: 'k'.repeat(40),
      // A channel that wants to see variable reads and writes: the revealed value must still go to the asker alone.
      SLACK_IN_CHANNEL_OPERATIONS: 'create_group_variable,get_group_variable,list_group_variables',
    });
    bot = await startSlackBot(config, silentLogger, { port: 0, host: '127.0.0.1' });
    await postSigned(bot.url!, loginSubmitBody(env.sandbox.tokens.maintainer), { secret });
  });

  afterAll(async () => {
    await bot?.close();
    await slack?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function command(text: string) {
    const responseUrl = slack.responseUrl();
    const sent = await postSigned(bot.url!, commandBody(text, { responseUrl }), { secret });
    expect(sent.status).toBe(200);
    const path = new URL(responseUrl).pathname;
    return waitFor(() => slack.responses.find((r) => r.path === path)?.body, 10_000, `an answer to "${text}"`);
  }

  /** Everything the bot sent anywhere: response URLs and Web API calls (channel posts, ephemeral posts). */
  const everything = () => JSON.stringify([slack.responses, slack.calls]);

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
    const responseUrl = slack.responseUrl();
    await postSigned(bot.url!, clickBody('forge_confirm', confirm!.value, { responseUrl }), { secret });
    const path = new URL(responseUrl).pathname;
    const shown = await waitFor(
      () => slack.responses.find((r) => r.path === path && JSON.stringify(r.body).includes(SLACK_VALUE))?.body,
      10_000,
      'the revealed value',
    );
    expect(shown.response_type ?? 'ephemeral').toBe('ephemeral');
    expect(shown.replace_original === true || shown.response_type === 'ephemeral').toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Nothing that reached the channel carries it: no in_channel answer, no chat.postMessage.
    const inChannel = slack.responses
      .filter((r) => r.body.response_type === 'in_channel')
      .map((r) => JSON.stringify(r.body));
    expect(inChannel.join()).not.toContain(SLACK_VALUE);
    expect(JSON.stringify(slack.calls.filter((c) => c.method === 'chat.postMessage'))).not.toContain(SLACK_VALUE);
  });
});
