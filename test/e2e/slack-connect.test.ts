// Slack's Connect links end to end: a Slack user with no account gets a one-time link, signs in at the sandbox's
// OAuth provider (fetch playing the browser), is bound, told so, and the waiting command runs; a second open is refused.
// Then what the link promises: single use, a same-site POST only, the Slack user who asked and no other, a cap per
// person, logout revoking at the code host, and no token in anything Slack was sent or the bot logged.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log.js';
import { useSandbox } from '../helpers/mcp.js';
import { messageText, waitFor } from '../helpers/slack.js';
import { useSlackBot } from '../helpers/slack-bot.js';
import {
  applicationSettings,
  connectLinkOf,
  FORGEOPS_APPLICATION,
  offersConnect,
  pressContinue,
  signInAt,
  signInThrough,
  userStatus,
  vaultTokens,
} from '../helpers/slack-connect.js';
import { Browser, formOf, formsOf, signInFrom } from '../unit/sandbox/oauth-browser.js';

const env = useSandbox({ applications: [FORGEOPS_APPLICATION] });
/** Every line the bot logged, at every level. */
const logged: string[] = [];
const log: Logger = {
  error: (line) => logged.push(line),
  warn: (line) => logged.push(line),
  info: (line) => logged.push(line),
  debug: (line) => logged.push(line),
};
const bots = useSlackBot(env, {
  name: 'connect',
  log,
  get settings() {
    return applicationSettings(env.sandbox);
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
    // The waiting command ran as alice: its answer (the code host took her token), not another prompt to connect.
    expect(messageText(answers[2])).toMatch(/1 pipeline/);
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

/** What must never reach Slack or the log: the code host's tokens, codes and states seen in these tests, and secrets. */
const secrets = new Set<string>();

/** Remembers the tokens the vault holds now, and the code and state of a callback. */
async function remember(callback?: URL): Promise<void> {
  for (const pair of await vaultTokens(bots.bot.state.store, 'k'.repeat(40))) {
    secrets.add(pair.accessToken);
    if (pair.refreshToken) secrets.add(pair.refreshToken);
  }
  for (const name of ['code', 'state']) {
    const value = callback?.searchParams.get(name);
    if (value) secrets.add(value);
  }
}

/** A /forge login's Connect link for `user`. */
async function linkFor(user: string): Promise<string> {
  return connectLinkOf(await bots.command('login', { user }));
}

const whoami = async (user: string) => messageText(await bots.command('whoami', { user }));

describe('what a Connect link promises', () => {
  it('is spent once: of two Continues (even at once) one goes on, the other gets a clear page and binds nothing', async () => {
    const link = await linkFor('U10');
    const both = await Promise.all([pressContinue(link), pressContinue(link)]);
    expect(both.map((r) => r.status).sort()).toEqual([303, 410]);
    const refused = both.find((r) => r.status === 410)!;
    expect(refused.headers.get('location')).toBeNull();
    const page = await refused.text();
    expect(page).toContain('Link used or expired');
    expect(page).toContain('run /forge login in Slack again');
    // And later, once more: still refused, and the page no longer offers Continue.
    const third = await pressContinue(link);
    expect(third.status).toBe(410);
    const shown = await fetch(link);
    expect(shown.status).toBe(410);
    expect(await shown.text()).not.toContain('<form');
    expect(await whoami('U10')).toMatch(/not linked/);
    // The Continue that went on still signs in: one binding, for U10.
    const go = both.find((r) => r.status === 303)!;
    const callback = await signInAt(env.sandbox, go.headers.get('location')!, 'carol');
    expect((await fetch(callback)).status).toBe(200);
    await remember(callback);
    expect(await whoami('U10')).toMatch(/carol/);
  });

  it('is spent only by a same-site POST: another site’s form and a GET spend nothing', async () => {
    const link = await linkFor('U11');
    const foreign: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ];
    for (const headers of foreign) {
      const refused = await fetch(link, { method: 'POST', redirect: 'manual', headers });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.headers.get('location')).toBeNull();
      expect(await refused.text()).toContain('sent from another site');
    }
    for (let i = 0; i < 3; i++) {
      const shown = await fetch(link);
      expect(shown.status).toBe(200);
      expect(await shown.text()).toContain('Continue to');
    }
    expect(await whoami('U11')).toMatch(/not linked/);
    // None of that spent it: the page's own Continue still goes on to the code host.
    const callback = await signInThrough(env.sandbox, link, 'erin');
    expect((await fetch(callback)).status).toBe(200);
    await remember(callback);
    expect(await whoami('U11')).toMatch(/erin/);
  });

  it('binds nothing on a callback whose state is forged, unknown or replayed', async () => {
    const link = await linkFor('U12');
    const callback = await signInThrough(env.sandbox, link, 'root');
    // The real code under a state forgeops never made, and a state of the right shape it does not know.
    const forged = new URL(callback);
    forged.searchParams.set('state', 'A'.repeat(43));
    const unknown = new URL(`${bots.bot.webUrl}/oauth/callback?code=abc&state=${'f'.repeat(43)}`);
    for (const url of [forged, unknown]) {
      const answer = await fetch(url);
      expect(answer.status).toBe(400);
      expect(await answer.text()).toContain('Nothing was linked');
    }
    expect(await whoami('U12')).toMatch(/not linked/);
    // The real callback still finishes, once; its replay binds nothing more.
    expect((await fetch(callback)).status).toBe(200);
    await remember(callback);
    expect(await whoami('U12')).toMatch(/root/);
    const replay = await fetch(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('This sign-in is not known here');
  });

  it('binds the Slack user who asked, whoever completes it; another Slack user still gets their own link', async () => {
    const asked = await bots.ask('pipeline list acme/web per_page=1', { user: 'U13' });
    expect(asked.body.response_type).toBe('ephemeral');
    const link = connectLinkOf(asked.body);
    // The page says whose Slack account it binds.
    expect(await (await fetch(link)).text()).toContain('U13');
    // Completed in a browser that is nobody's in Slack, with U14 asking meanwhile: U13 is bound, U14 is not.
    const other = await bots.ask('pipeline list acme/web per_page=1', { user: 'U14' });
    const callback = await signInThrough(env.sandbox, link, 'dave');
    expect((await fetch(callback)).status).toBe(200);
    await remember(callback);
    expect(await whoami('U13')).toMatch(/dave/);
    expect(await whoami('U14')).toMatch(/not linked/);
    // U13 heard it on their own command's response_url, and U14 heard nothing of it.
    const answers = await bots.answers(asked.path, 3, 'Connected and the command');
    expect(messageText(answers[1])).toMatch(/Connected as @dave/);
    expect(messageText(answers[2])).toMatch(/1 pipeline/);
    expect(bots.answersTo(other.path)).toHaveLength(1);
    // U14's next command gets a Connect link of its own, not U13's.
    const again = await bots.command('pipeline list acme/web per_page=1', { user: 'U14' });
    expect(offersConnect(again)).toBe(true);
    expect(connectLinkOf(again)).not.toBe(link);
    expect(connectLinkOf(again)).not.toBe(connectLinkOf(other.body));
  });

  it('keeps five links per person: a sixth /forge login replaces the oldest', async () => {
    const links: string[] = [];
    for (let i = 0; i < 6; i++) {
      const body = await bots.command('login', { user: 'U15' });
      expect(offersConnect(body), messageText(body)).toBe(true);
      links.push(connectLinkOf(body));
    }
    expect(new Set(links).size).toBe(6);
    expect((await fetch(links[0])).status).toBe(410);
    for (const link of links.slice(1)) expect((await fetch(link)).status).toBe(200);
    // Another person's cap is their own.
    expect(offersConnect(await bots.command('login', { user: 'U16' }))).toBe(true);
  });

  it('logout revokes at the code host: the old token gets 401, and the next command gets a new link', async () => {
    const link = await linkFor('U17');
    const callback = await signInThrough(env.sandbox, link, 'alice');
    const held = async () => (await vaultTokens(bots.bot.state.store, 'k'.repeat(40))).map((t) => t.accessToken);
    const before = new Set(await held());
    expect((await fetch(callback)).status).toBe(200);
    await remember(callback);
    expect(await whoami('U17')).toMatch(/alice/);
    // The token this sign-in got: the one the vault did not hold before it.
    const fresh = (await held()).filter((t) => !before.has(t));
    expect(fresh).toHaveLength(1);
    const [token] = fresh;
    expect(await userStatus(env.sandbox, token)).toBe(200);
    expect(messageText(await bots.command('logout', { user: 'U17' }))).toMatch(/code host revoked/);
    expect(await userStatus(env.sandbox, token)).toBe(401);
    expect(await whoami('U17')).toMatch(/not linked/);
    const next = await bots.command('pipeline list acme/web per_page=1', { user: 'U17' });
    expect(offersConnect(next)).toBe(true);
    expect(connectLinkOf(next)).not.toBe(link);
  });

  it('a sign-in revoked at the code host says to connect again in Slack, and the next command offers a link', async () => {
    const link = await linkFor('U18');
    const callback = await signInThrough(env.sandbox, link, 'bob');
    const held = async () => vaultTokens(bots.bot.state.store, 'k'.repeat(40));
    const before = new Set((await held()).map((t) => t.accessToken));
    expect((await fetch(callback)).status).toBe(200);
    await remember(callback);
    const ran = await bots.command('pipeline list acme/web per_page=1', { user: 'U18' });
    expect(messageText(ran)).toMatch(/1 pipeline/);
    // bob revokes forgeops at the code host (this sign-in's tokens, as the code host's settings page would).
    const fresh = (await held()).filter((t) => !before.has(t.accessToken));
    expect(fresh).toHaveLength(1);
    const app = env.sandbox.applications[0];
    for (const token of [fresh[0].refreshToken!, fresh[0].accessToken]) {
      const revoked = await fetch(`${env.sandbox.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: app.uid, client_secret: app.secret! }).toString(),
      });
      expect(revoked.status).toBe(200);
    }
    expect(await userStatus(env.sandbox, fresh[0].accessToken)).toBe(401);
    // The first command after it: the code host refuses, the refresh is refused too, and a new link is the answer
    // (not advice for another front end or about personal access tokens).
    const refused = await bots.command('pipeline list acme/web per_page=1', { user: 'U18' });
    expect(offersConnect(refused)).toBe(true);
    expect(messageText(refused)).toMatch(/sign-in at the code host has ended/);
    expect(messageText(refused)).not.toMatch(/MCP host|personal access token/);
    expect(connectLinkOf(refused)).not.toBe(link);
    const next = await bots.command('pipeline list acme/web per_page=1', { user: 'U18' });
    expect(offersConnect(next)).toBe(true);
    expect(messageText(next)).toMatch(/has ended/);
  });

  it('never puts a token, code or secret in what Slack was sent or in the log', async () => {
    const app = env.sandbox.applications[0];
    const all = [...secrets, app.secret!, 'k'.repeat(40)];
    // The flows above left tokens, codes and states to look for.
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    const sent = JSON.stringify([bots.slack.calls, bots.slack.responses]);
    await waitFor(() => logged.length > 0 || undefined, 5_000, 'log lines');
    for (const secret of all) {
      expect(sent.includes(secret), 'a secret sent to Slack').toBe(false);
      for (const line of logged) expect(line.includes(secret), `a secret logged: ${line}`).toBe(false);
    }
    // What was looked at was really there to see: the Connect messages and the sign-in lines.
    expect(sent).toContain('Connected as @carol');
    expect(logged.join('\n')).toMatch(/connected the code host account/);
  });
});
