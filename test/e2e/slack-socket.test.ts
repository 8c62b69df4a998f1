// The Slack bot in Socket Mode (SLACK_APP_TOKEN): apps.connections.open on the fake Web API (SLACK_API_URL) hands
// out a loopback WebSocket; Slack's hello, then a slash command envelope, acked by its envelope_id and answered.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { messageText, waitFor } from '../helpers/slack.js';
import { useSocketModeBot } from '../helpers/slack-bot.js';
import { commandEnvelope } from '../helpers/websocket.js';

const env = useSandbox();
const socketMode = useSocketModeBot(env, { name: 'socket', sharedRead: 'reporter' });

describe('Socket Mode', () => {
  it('connects through apps.connections.open with the app token, acks a command envelope by its id and answers it', async () => {
    expect(socketMode.bot.url).toBeUndefined();
    const open = socketMode.slack.calls.find((c) => c.method === 'apps.connections.open');
    expect(open).toBeDefined();
    const socket = await waitFor(() => socketMode.ws.sockets[0], 10_000, 'the Socket Mode connection');
    const responseUrl = socketMode.slack.responseUrl();
    commandEnvelope(socket, 'env-1', 'pipeline list acme/web per_page=2', responseUrl);
    const ack = await waitFor(
      () =>
        socket.received.map((m) => JSON.parse(m) as { envelope_id?: string }).find((m) => m.envelope_id === 'env-1'),
      10_000,
      'the ack',
    );
    expect(ack).toEqual({ envelope_id: 'env-1', payload: {} });
    const answer = await waitFor(
      () => socketMode.slack.responses.find((r) => r.path === new URL(responseUrl).pathname)?.body,
      10_000,
      'the answer',
    );
    expect(messageText(answer)).toContain('2 pipelines');
  });

  it('acks a redelivered envelope and runs it once', async () => {
    const socket = socketMode.ws.sockets[0];
    const responseUrl = socketMode.slack.responseUrl();
    commandEnvelope(socket, 'env-2', 'whoami', responseUrl);
    commandEnvelope(socket, 'env-3', 'whoami', responseUrl);
    await waitFor(
      () => ['env-2', 'env-3'].every((id) => socket.received.some((m) => m.includes(`"${id}"`))) || undefined,
      10_000,
      'both acks',
    );
    await waitFor(() => socketMode.slack.responses.some((r) => r.path === new URL(responseUrl).pathname) || undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(socketMode.slack.responses.filter((r) => r.path === new URL(responseUrl).pathname)).toHaveLength(1);
  });
});
