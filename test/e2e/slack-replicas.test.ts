// Two Slack bot replicas behind one Slack app, sharing a real redis-server (FORGEOPS_REDIS_URL): a link made on one
// is known to the other, a request Slack redelivers to the other replica runs once, and an approval asked on one
// is given on the other, once.
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { clickBody, commandBody, loginSubmitBody, messageText, waitFor } from '../helpers/slack.js';
import { useSlackBot } from '../helpers/slack-bot.js';
import { onOutput } from '../helpers/child-output.js';

const env = useSandbox();
const bots = useSlackBot(env, { name: 'replica', replicas: 2 });
const { secret } = bots;

/** Sends a signed body to one replica; it must ack. */
async function send(replica: number, body: string, o: { timestamp?: number; retryNum?: number } = {}) {
  const sent = await bots.post(body, { replica, ...o });
  expect(sent.status).toBe(200);
  return sent;
}

const command = (replica: number, text: string) => bots.command(text, { replica });

describe('two replicas sharing Redis', () => {
  it('keep their state in Redis, and say so', () => {
    for (const bot of bots.bots)
      expect(bot.state).toMatchObject({ shared: true, where: `Redis at 127.0.0.1:${bots.redis.port}` });
  });

  it('know on one replica the account linked on the other', async () => {
    const linked = await send(0, loginSubmitBody(env.sandbox.tokens.maintainer));
    expect(JSON.parse(linked.text)).toMatchObject({ response_action: 'update' });
    expect(messageText(await command(1, 'whoami'))).toMatch(/alice/);
  });

  it('run a request Slack redelivers to the other replica once', async () => {
    const responseUrl = bots.slack.responseUrl();
    const body = commandBody('pipeline list acme/web per_page=1', { responseUrl });
    const timestamp = Math.floor(Date.now() / 1000);
    const path = new URL(responseUrl).pathname;
    await send(0, body, { timestamp });
    await waitFor(() => bots.slack.responses.find((r) => r.path === path));
    await send(1, body, { timestamp, retryNum: 1 });
    // Whatever the second replica would answer would have arrived by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bots.slack.responses.filter((r) => r.path === path)).toHaveLength(1);
  });

  it('approve on one replica a call asked on the other, once', async () => {
    const pipelines = (
      await env.client.request<Array<{ id: number; status: string }>>({
        method: 'GET',
        path: '/projects/acme%2Fweb/pipelines',
        query: { status: 'skipped' },
        idempotent: true,
      })
    ).data;
    const id = pipelines[0].id;
    const asked = await command(0, `pipeline delete acme/web ${id}`);
    const confirm = (
      (asked.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
        (b) => b.type === 'actions',
      )?.elements ?? []
    ).find((e) => e.action_id === 'forge_confirm')!;
    expect(confirm).toBeDefined();

    const first = bots.slack.responseUrl();
    await send(1, clickBody('forge_confirm', confirm.value, { responseUrl: first }));
    expect(
      messageText(await waitFor(() => bots.slack.responses.find((r) => r.path === new URL(first).pathname)?.body)),
    ).toMatch(/Approved by/);
    const gone = await env.client
      .request({ method: 'GET', path: `/projects/acme%2Fweb/pipelines/${id}`, idempotent: true })
      .then(
        () => false,
        () => true,
      );
    expect(gone).toBe(true);

    const again = bots.slack.responseUrl();
    await send(0, clickBody('forge_confirm', confirm.value, { responseUrl: again }));
    expect(
      messageText(await waitFor(() => bots.slack.responses.find((r) => r.path === new URL(again).pathname)?.body)),
    ).toMatch(/already used/);
  });
});

describe('the built CLI', () => {
  it('loads the Redis client only when FORGEOPS_REDIS_URL is set, and says where the state is', async () => {
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'slack', '--port', '0'], {
      env: {
        PATH: process.env.PATH ?? '',
        TMPDIR: tmpdir(),
        FORGEOPS_REDIS_URL: bots.redis.url,
        SLACK_SIGNING_SECRET: secret,
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_API_URL: bots.slack.apiUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    onOutput(child, (chunk) => {
      text += chunk;
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      // Bounded by the CLI's start-up, which took over 15 s with four test files sharing two loaded cores.
      await waitFor(() => (/listening for Slack|forgeops: /.test(text) ? true : undefined), 40_000, 'the bot to start');
      expect(text).toContain(`slack: state in Redis at 127.0.0.1:${bots.redis.port}, shared with every replica`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});

describe('when Redis goes away', () => {
  it('the replica says not ready (503, in words) and a command that needs the state fails in words; nothing falls back', async () => {
    const readyz = bots.bots[0].url!.replace(/\/slack\/events$/, '/readyz');
    const before = await fetch(readyz);
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({ ready: true, checks: { service: 'ok', state: 'ok', watching: 'ok' } });
    expect((await fetch(readyz.replace('/readyz', '/healthz'))).status).toBe(200);
    await bots.redis.stop();
    // Past the probe's one-second cache.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await fetch(readyz);
    expect(after.status).toBe(503);
    expect(await after.json()).toEqual({
      ready: false,
      // Watching pauses once a check meets the store away: at once, or at the next interval.
      checks: {
        service: 'ok',
        state: `Redis at 127.0.0.1:${bots.redis.port} does not answer`,
        watching: expect.stringMatching(/^(ok|watching paused: Redis at .* unreachable)$/),
      },
    });
    const answer = messageText(await command(1, 'whoami'));
    expect(answer).toMatch(/shared state store \(Redis at 127\.0\.0\.1:\d+\) cannot be reached/);
  });

  it('once Redis is back, the replica is ready again and commands work, without a restart', async () => {
    await bots.redis.start();
    const readyz = bots.bots[1].url!.replace(/\/slack\/events$/, '/readyz');
    // Bounded: 60 tries of 100 ms (the client reconnects within 2 s; the probe caches for 1 s).
    let status = 0;
    for (let i = 0; i < 60 && status !== 200; i++) {
      status = (await fetch(readyz)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    // The Redis that came back is empty (nothing saved): the link is gone, and the bot says so rather than failing.
    const answer = messageText(await command(1, 'whoami'));
    expect(answer).not.toMatch(/cannot be reached/);
    expect(answer).toMatch(/link|login/i);
  });
});
