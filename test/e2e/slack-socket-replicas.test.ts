// Two Slack bot replicas in Socket Mode, one connection each, sharing a real redis-server: Slack sends each payload
// to one connection, at least once, so a payload redelivered on the other replica's connection is acked there and
// run once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { startSlackBot, type SlackBotHandle } from '../../src/slack/main.js';
import { useSandbox } from '../helpers/mcp.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { messageText, startFakeSlack, waitFor, type FakeSlack } from '../helpers/slack.js';
import { commandEnvelope, startTestWebSocketServer, type TestWebSocketServer } from '../helpers/websocket.js';

const env = useSandbox();
let redis: RedisServer;
let slack: FakeSlack;
let ws: TestWebSocketServer;
const bots: SlackBotHandle[] = [];

beforeAll(async () => {
  redis = await startRedis();
  slack = await startFakeSlack();
  ws = await startTestWebSocketServer((socket) =>
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 2,
        connection_info: { app_id: 'A1' },
        debug_info: { host: 'test' },
      }),
    ),
  );
  slack.socketUrl = ws.url;
  for (let i = 0; i < 2; i++) {
    const config = parseConfig({
      CODEHOST_URL: env.sandbox.url,
      CODEHOST_MAX_RETRIES: '0',
      FORGEOPS_REDIS_URL: redis.url,
      SLACK_APP_TOKEN: 'xapp-1-test',
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_API_URL: slack.apiUrl,
      SLACK_SHARED_READ_TOKEN: env.sandbox.tokens.reporter,
    });
    bots.push(await startSlackBot(config, silentLogger));
  }
});

afterAll(async () => {
  for (const bot of bots) await bot.close();
  await ws?.close();
  await slack?.close();
  await redis?.stop();
});

describe('Socket Mode on two replicas', () => {
  it('acks a payload delivered on both connections, on each, and runs it once', async () => {
    const [first, second] = await waitFor(
      () => (ws.sockets.length >= 2 ? ws.sockets : undefined),
      10_000,
      'two Socket Mode connections',
    );
    const responseUrl = slack.responseUrl();
    commandEnvelope(first, 'env-a', 'pipeline list acme/web per_page=1', responseUrl);
    commandEnvelope(second, 'env-b', 'pipeline list acme/web per_page=1', responseUrl);
    await waitFor(
      () =>
        (first.received.some((m) => m.includes('"env-a"')) && second.received.some((m) => m.includes('"env-b"'))) ||
        undefined,
      10_000,
      'both acks',
    );
    const path = new URL(responseUrl).pathname;
    const answer = await waitFor(() => slack.responses.find((r) => r.path === path)?.body, 10_000, 'the answer');
    expect(messageText(answer)).toContain('1 pipeline');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(slack.responses.filter((r) => r.path === path)).toHaveLength(1);
  });
});
