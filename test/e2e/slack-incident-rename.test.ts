// A watched project renamed mid-incident, end to end against the sandbox (jobs sped up) and a fake Slack: the
// channel keeps one watch and the one message of the red episode, whose updates (running, still red) say the new
// path; `watching` lists the new path, and the old path, the new one and the project's number all name that watch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { startSlackBot, type SlackBotHandle } from '../../src/slack/main.js';
import { useSandbox } from '../helpers/mcp.js';
import {
  buttonsOf,
  channelCalls,
  clickBody,
  commandBody,
  loginSubmitBody,
  messageText,
  postSigned,
  startFakeSlack,
  waitFor,
  type FakeSlack,
} from '../helpers/slack.js';

const secret = 'test-signing-secret';
// Jobs take 0.3 of their usual seconds: a retried test runs for about 2 s, long enough for a 1 s watch to see it run.
const env = useSandbox({ jobTimeScale: 0.3 });
let slack: FakeSlack;
let bot: SlackBotHandle;
let dataDir: string;

beforeAll(async () => {
  slack = await startFakeSlack();
  dataDir = mkdtempSync(join(tmpdir(), 'forgeops-slack-rename-'));
  const config = parseConfig({
    CODEHOST_URL: env.sandbox.url,
    CODEHOST_TOKEN: env.sandbox.tokens.reporter,
    CODEHOST_MAX_RETRIES: '0',
    SLACK_SIGNING_SECRET: secret,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: slack.apiUrl,
    FORGEOPS_DATA_DIR: dataDir,
    FORGEOPS_SECRET: 'k'.repeat(40),
    FORGEOPS_WATCH_INTERVAL_MS: '1000',
  });
  bot = await startSlackBot(config, silentLogger, { port: 0, host: '127.0.0.1' });
  const linked = await postSigned(bot.url!, loginSubmitBody(env.sandbox.tokens.maintainer, { user: 'U1' }), { secret });
  expect(JSON.parse(linked.text)).toMatchObject({ response_action: 'update' });
});

afterAll(async () => {
  await bot?.close();
  await slack?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const { posts, updatesOf, threadOf } = channelCalls(() => slack, 'C1');

async function command(text: string): Promise<Record<string, unknown>> {
  const responseUrl = slack.responseUrl();
  const sent = await postSigned(bot.url!, commandBody(text, { responseUrl, user: 'U1' }), { secret });
  expect(sent.status).toBe(200);
  const path = new URL(responseUrl).pathname;
  return waitFor(() => slack.responses.find((r) => r.path === path)?.body, 15_000, `an answer to "${text}"`);
}

describe('a watched project renamed mid-incident', () => {
  it('keeps one watch and one message, which says the new path from the next update on', async () => {
    expect(messageText(await command('watch acme/web'))).toContain(
      'Watching acme/web main in this channel: it is red now (message below).',
    );
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    expect(messageText(incident.args)).toContain('*acme/web* main');
    const ts = await waitFor(() => incident.answer?.ts, 5_000, "the message's ts");

    // Renamed and moved to another path by a maintainer, as the service's project settings do.
    const { id } = (
      await env.client.request<{ id: number }>({
        method: 'PUT',
        path: '/projects/acme%2Fweb',
        body: { path: 'web-app', name: 'Web App' },
        idempotent: false,
      })
    ).data;

    // Retry, pressed on the message posted before the rename: its update shows the retry running, then still red,
    // each under the new path.
    await postSigned(
      bot.url!,
      clickBody(buttonsOf(incident.args)[0].action_id, buttonsOf(incident.args)[0].value, {
        user: 'U1',
        responseUrl: slack.responseUrl(),
      }),
      { secret },
    );
    await waitFor(
      () => threadOf(ts).find((c) => messageText(c.args).includes('<@U1> pressed *Retry failed jobs*')),
      15_000,
      'the press in the thread',
    );
    const running = await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes('retrying… pipeline #')),
      20_000,
      'the running update',
    );
    expect(messageText(running.args)).toContain('*acme/web-app* main');
    const stillRed = await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes('still red after the retry')),
      30_000,
      'the still-red update',
    );
    expect(messageText(stillRed.args)).toContain('*acme/web-app* main');
    expect(messageText(stillRed.args)).not.toContain('*acme/web* main');

    // One watch, listed under the new path, whichever name it is asked by; one message throughout.
    expect(messageText(await command('watching'))).toMatch(
      /This channel watches:\\n• acme\/web-app \(default branch\)/,
    );
    for (const name of ['acme/web', 'acme/web-app', String(id)])
      expect(messageText(await command(`watch ${name}`)), name).toContain(
        'Already watching acme/web-app main in this channel: it is red now (its message is above).',
      );
    expect(posts()).toHaveLength(1);
    expect(messageText(await command('unwatch acme/web'))).toContain('Stopped watching acme/web-app in this channel');
    expect(messageText(await command('watching'))).toContain('This channel watches nothing.');
  }, 90_000);
});
