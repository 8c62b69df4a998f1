// Slack's Connect links end to end: a Slack user with no account gets a one-time link, signs in at the sandbox's
// OAuth provider (fetch playing the browser), is bound, told so, and the waiting command runs; a second open is refused.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { messageText } from '../helpers/slack.js';
import { useSlackBot } from '../helpers/slack-bot.js';
import { Browser, formOf, formsOf, signInFrom } from '../unit/sandbox/oauth-browser.js';

const env = useSandbox({
  applications: [
    {
      name: 'forgeops',
      redirect_uris: ['http://127.0.0.1/oauth/callback'],
      scopes: ['api', 'read_user'],
      confidential: true,
    },
  ],
});
const settings: Record<string, string> = {};
const bots = useSlackBot(env, {
  name: 'connect',
  get settings() {
    const app = env.sandbox.applications[0];
    Object.assign(settings, { FORGEOPS_OAUTH_CLIENT_ID: app.uid, FORGEOPS_OAUTH_CLIENT_SECRET: app.secret! });
    return settings;
  },
});

describe('Connect links', () => {
  it('link a Slack user without a token, and run the waiting command as them', async () => {
    const asked = await bots.ask('pipeline list acme/web per_page=1');
    const button = (asked.body.blocks as any[]).find((b) => b.type === 'actions').elements[0];
    expect(button.url).toMatch(/\/connect\/[A-Za-z0-9_-]{22,}$/);
    const shown = await fetch(button.url);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Continue to');
    const go = await fetch(button.url, { method: 'POST', redirect: 'manual' });
    expect(go.status).toBe(303);
    const browser = new Browser(env.sandbox);
    let page = await browser.open(go.headers.get('location')!);
    page = await signInFrom(browser, page, 'alice');
    if (!page.leftTo && formsOf(page.html).some((f) => f.decisions.includes('authorize')))
      page = await browser.submit(formOf(page), { decision: 'authorize' });
    const back = await fetch(page.leftTo!);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('Signed in as @alice');
    const answers = await bots.answers(asked.path, 3, 'Connected and the command');
    expect(messageText(answers[1])).toMatch(/Connected as @alice/);
    // The waiting command ran as alice: its answer, not another prompt to connect.
    expect(messageText(answers[2])).toMatch(/[Pp]ipeline/);
    expect(messageText(answers[2])).not.toMatch(/Connect/);
    expect(messageText(await bots.command('whoami'))).toMatch(/alice.*Connect/);
    const again = await fetch(button.url, { method: 'POST', redirect: 'manual' });
    expect(again.status).toBe(410);
    const replay = await fetch(page.leftTo!);
    expect(replay.status).toBe(400);
  });

  it('binds the Slack user the link was made for, whoever opens it; a forged state binds nothing; logout signs out', async () => {
    const forged = await fetch(`${bots.bot.webUrl}/oauth/callback?code=abc&state=${'f'.repeat(43)}`);
    expect(forged.status).toBe(400);
    const asked = await bots.ask('login', { user: 'U3' });
    const button = (asked.body.blocks as any[]).find((b) => b.type === 'actions').elements[0];
    // Opened by anyone (here no Slack identity at all: the request names none): U3 is who gets bound.
    const go = await fetch(button.url, { method: 'POST', redirect: 'manual' });
    const browser = new Browser(env.sandbox);
    let page = await signInFrom(browser, await browser.open(go.headers.get('location')!), 'bob');
    if (!page.leftTo) page = await browser.submit(formOf(page), { decision: 'authorize' });
    expect((await fetch(page.leftTo!)).status).toBe(200);
    expect(messageText(await bots.command('whoami', { user: 'U3' }))).toMatch(/bob/);
    expect(messageText(await bots.command('whoami', { user: 'U2' }))).not.toMatch(/bob/);
    expect(messageText(await bots.command('logout', { user: 'U3' }))).toMatch(/Signed out/);
    expect(messageText(await bots.command('whoami', { user: 'U3' }))).toMatch(/not linked/);
  });
});
