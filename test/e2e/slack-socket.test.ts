// The Slack bot in Socket Mode (SLACK_APP_TOKEN): apps.connections.open on the fake Web API (SLACK_API_URL) hands
// out a loopback WebSocket; Slack's hello, then a slash command envelope, acked by its envelope_id and answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { startSlackBot, type SlackBotHandle } from '../../src/slack/main.js';
import { useSandbox } from '../helpers/mcp.js';
import { messageText, startFakeSlack, waitFor, type FakeSlack } from '../helpers/slack.js';
import { commandEnvelope, startTestWebSocketServer, type TestWebSocketServer } from '../helpers/websocket.js';

const env = useSandbox();
let slack: FakeSlack;
let ws: TestWebSocketServer;
let bot: SlackBotHandle;

beforeAll(async () => {
  slack = await startFakeSlack();
  ws = await startTestWebSocketServer((socket) =>
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        connection_info: { app_id: 'A1' },
        debug_info: { host: 'test' },
      }),
    ),
  );
  slack.socketUrl = ws.url;
  const config = parseConfig({
    CODEHOST_URL: env.sandbox.url,
    CODEHOST_MAX_RETRIES: '0',
    SLACK_APP_TOKEN: 'xapp-1-test',
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: slack.apiUrl,
    SLACK_SHARED_READ_TOKEN: env.sandbox.tokens.reporter,
  });
  bot = await startSlackBot(config, silentLogger);
});

afterAll(async () => {
  await bot?.close();
  await ws?.close();
  await slack?.close();
});

describe('Socket Mode', () => {
  it('connects through apps.connections.open with the app token, acks a command envelope by its id and answers it', async () => {
    expect(bot.url).toBeUndefined();
    const open = slack.calls.find((c) => c.method === 'apps.connections.open');
    expect(open).toBeDefined();
    const socket = await waitFor(() => ws.sockets[0], 10_000, 'the Socket Mode connection');
    const responseUrl = slack.responseUrl();
    commandEnvelope(socket, 'env-1', 'pipeline list acme/web per_page=2', responseUrl);
    const ack = await waitFor(
      () =>
        socket.received.map((m) => JSON.parse(m) as { envelope_id?: string }).find((m) => m.envelope_id === 'env-1'),
      10_000,
      'the ack',
    );
    expect(ack).toEqual({ envelope_id: 'env-1', payload: {} });
    const answer = await waitFor(
      () => slack.responses.find((r) => r.path === new URL(responseUrl).pathname)?.body,
      10_000,
      'the answer',
    );
    expect(messageText(answer)).toContain('2 pipelines');
  });

  it('acks a redelivered envelope and runs it once', async () => {
    const socket = ws.sockets[0];
    const responseUrl = slack.responseUrl();
    commandEnvelope(socket, 'env-2', 'whoami', responseUrl);
    commandEnvelope(socket, 'env-3', 'whoami', responseUrl);
    await waitFor(
      () => ['env-2', 'env-3'].every((id) => socket.received.some((m) => m.includes(`"${id}"`))) || undefined,
      10_000,
      'both acks',
    );
    await waitFor(() => slack.responses.some((r) => r.path === new URL(responseUrl).pathname) || undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slack.responses.filter((r) => r.path === new URL(responseUrl).pathname)).toHaveLength(1);
  });
});
