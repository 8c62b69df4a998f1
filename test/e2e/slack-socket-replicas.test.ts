// Two Slack bot replicas in Socket Mode, one connection each, sharing a real redis-server: Slack sends each payload
// to one connection, at least once, so a payload redelivered on the other replica's connection is acked there and
// run once.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { messageText, waitFor } from '../helpers/slack.js';
import { useSocketModeBot } from '../helpers/slack-bot.js';
import { commandEnvelope } from '../helpers/websocket.js';

const env = useSandbox();
const socketMode = useSocketModeBot(env, { name: 'socket-replicas', sharedRead: 'reporter', replicas: 2 });

describe('Socket Mode on two replicas', () => {
  it('acks a payload delivered on both connections, on each, and runs it once', async () => {
    const [first, second] = await waitFor(
      () => (socketMode.ws.sockets.length >= 2 ? socketMode.ws.sockets : undefined),
      10_000,
      'two Socket Mode connections',
    );
    const responseUrl = socketMode.slack.responseUrl();
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
    const answer = await waitFor(
      () => socketMode.slack.responses.find((r) => r.path === path)?.body,
      10_000,
      'the answer',
    );
    expect(messageText(answer)).toContain('1 pipeline');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(socketMode.slack.responses.filter((r) => r.path === path)).toHaveLength(1);
  });
});
