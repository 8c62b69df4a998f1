// Slack's Connect links in Socket Mode: Slack reaches nothing of the bot, so the bot listens for the browser alone on
// a port of its own (listenForPages): the Connect page, the code host's callback and the probes, and nothing of Slack's.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { messageText, waitFor } from '../helpers/slack.js';
import { useSocketModeBot } from '../helpers/slack-bot.js';
import { applicationSettings, connectLinkOf, FORGEOPS_APPLICATION, signInThrough } from '../helpers/slack-connect.js';
import { commandEnvelope } from '../helpers/websocket.js';

const env = useSandbox({ applications: [FORGEOPS_APPLICATION] });
const socketMode = useSocketModeBot(env, {
  name: 'connect-socket',
  sharedRead: 'reporter',
  get settings() {
    return applicationSettings(env.sandbox);
  },
});

let envelopes = 0;
/** A /forge command over the Socket Mode connection (as U1); the answers on its response_url, once `count` came. */
async function command(text: string, count = 1) {
  const socket = await waitFor(() => socketMode.ws.sockets[0], 10_000, 'the Socket Mode connection');
  const responseUrl = socketMode.slack.responseUrl();
  const path = new URL(responseUrl).pathname;
  commandEnvelope(socket, `env-${++envelopes}`, text, responseUrl);
  const answers = () => socketMode.slack.responses.filter((r) => r.path === path).map((r) => r.body);
  await waitFor(() => answers().length >= count || undefined, 15_000, `${count} answers to "${text}"`);
  return { path, answers };
}

describe('Connect links in Socket Mode', () => {
  it('serve the Connect page, the callback and the probes on the bot’s own listener, and nothing of Slack’s', async () => {
    const pages = socketMode.bot.webUrl;
    expect(socketMode.bot.url).toBeUndefined();
    expect(pages).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${pages}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await fetch(`${pages}/readyz`)).status).toBe(200);
    const events = await fetch(`${pages}/slack/events`, { method: 'POST', body: '{}' });
    expect(events.status).toBe(404);
    await events.body?.cancel();

    const login = await command('login');
    const link = connectLinkOf(login.answers()[0]);
    expect(new URL(link).origin).toBe(pages);
    const shown = await fetch(link);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Continue to');
    const callback = await signInThrough(env.sandbox, link, 'alice');
    expect(callback.origin).toBe(pages);
    expect(callback.pathname).toBe('/oauth/callback');
    const back = await fetch(callback);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('Signed in as @alice');
    await waitFor(() => login.answers()[1], 15_000, 'the Connected message');
    expect(messageText(login.answers()[1])).toMatch(/Connected as @alice/);
    // Commands now run as alice (not the shared read token's carol), by Socket Mode as before.
    expect(messageText((await command('whoami')).answers()[0])).toMatch(/alice.*Connect/);
    expect(messageText((await command('pipeline list acme/web per_page=1')).answers()[0])).toMatch(/1 pipeline/);
    // The callback is spent; an unknown one binds nothing.
    expect((await fetch(callback)).status).toBe(400);
    expect((await fetch(`${pages}/oauth/callback?code=x&state=${'f'.repeat(43)}`)).status).toBe(400);
  });
});
