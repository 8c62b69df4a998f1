// Slack's Connect links expire: a link and a sign-in under way live in the state store with a time to live, so these
// tests move the store's clock. And they are capped over everyone, since strangers in a workspace can make them. The Connect pages are the real ones on the Socket Mode listener (listenForPages), the
// code host the sandbox's OAuth provider; only Slack is left out (what the person is told there is onFinished's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadinessProbe } from '../../src/health.js';
import { CodeHostOAuth } from '../../src/identity/code-host-oauth.js';
import { TokenVault } from '../../src/identity/token-vault.js';
import { silentLogger } from '../../src/log.js';
import {
  type Finished,
  LINK_TTL_MS,
  MAX_LINKS,
  MAX_LINKS_PER_USER,
  MAX_SIGN_INS,
  SIGN_IN_TTL_MS,
  SlackConnect,
} from '../../src/slack/connect.js';
import { SlackConnectPages } from '../../src/slack/connect-pages.js';
import { Identities } from '../../src/slack/identity.js';
import { listenForPages } from '../../src/slack/main.js';
import { MemoryStore } from '../../src/state/store.js';
import { onFreePort } from '../../tools/ports.mjs';
import { useSandbox } from '../helpers/mcp.js';
import { FORGEOPS_APPLICATION, pressContinue, signInAt, signInThrough } from '../helpers/slack-connect.js';

const env = useSandbox({ applications: [FORGEOPS_APPLICATION] });

/** The store's clock: the tests move it past a link's and a sign-in's time to live. */
let clock = Date.now();
const store = new MemoryStore({ now: () => clock });
const finished: Finished[] = [];
let listener: { url: string; close(): Promise<void> } | undefined;
let connect: SlackConnect;
let identities: Identities;

// The listener's address is in the redirect URI, so its port is chosen first, and chosen again if another program
// was given it before the listener bound it.
beforeAll(async () => {
  await onFreePort(listenOn);
});

/** The Connect pages listening on `port`, the code host sending people back there. */
async function listenOn(port: number): Promise<void> {
  const app = env.sandbox.applications[0];
  const publicUrl = `http://127.0.0.1:${port}`;
  const oauth = new CodeHostOAuth({
    url: env.sandbox.url,
    clientId: app.uid,
    clientSecret: app.secret!,
    redirectUri: `${publicUrl}/oauth/callback`,
    scopes: ['api', 'read_user'],
  });
  const vault = new TokenVault({ store, secret: 'k'.repeat(40), oauth });
  identities = new Identities({ store, vault });
  connect = new SlackConnect({
    store,
    identities,
    oauth: () => oauth,
    vault,
    publicUrl: () => publicUrl,
    log: silentLogger,
  });
  const pages = new SlackConnectPages({
    connect,
    onFinished: async (end) => {
      finished.push(end);
    },
    log: silentLogger,
  });
  listener = await listenForPages(pages, new ReadinessProbe([]), port, '127.0.0.1');
  expect(listener.url).toBe(publicUrl);
}
afterAll(async () => {
  await listener?.close();
  await store.close();
});

/** A new link for `userId` (in team T1). */
async function linkFor(userId: string): Promise<string> {
  const offer = await connect.offer({ user: { teamId: 'T1', userId }, channelId: 'C1', command: 'whoami' });
  if (!offer.ok) throw new Error(offer.reason);
  return offer.url;
}

const bound = (userId: string) => identities.connectedPerson({ teamId: 'T1', userId });

describe('Connect links expire', () => {
  it('a link opened after ten minutes is refused, binds nothing, and says to type /forge login again', async () => {
    const link = await linkFor('U1');
    clock += LINK_TTL_MS - 1_000;
    expect((await fetch(link)).status).toBe(200);
    clock += 2_000;
    for (const answer of [await fetch(link), await pressContinue(link)]) {
      expect(answer.status).toBe(410);
      expect(answer.headers.get('location')).toBeNull();
      const page = await answer.text();
      expect(page).toContain('used or has expired');
      expect(page).toContain('run /forge login in Slack again');
    }
    expect(await bound('U1')).toBeUndefined();
    expect(finished).toHaveLength(0);
    // Its place under the person's cap is free again.
    expect(await store.count('slack-connect:user:T1:U1:')).toBe(0);
  });

  it('a sign-in that comes back after ten minutes binds nothing; one that comes back in time does', async () => {
    const late = await signInThrough(env.sandbox, await linkFor('U2'), 'bob');
    clock += SIGN_IN_TTL_MS + 1_000;
    const refused = await fetch(late);
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain('Nothing was linked');
    expect(page).toContain('run /forge login again');
    expect(await bound('U2')).toBeUndefined();
    expect(await store.keys('identity:codehost-tokens:')).toEqual([]);
    expect(finished).toHaveLength(0);

    // Just in time at each step: opened at 9 minutes, back from the code host 9 minutes after Continue.
    const link = await linkFor('U2');
    clock += LINK_TTL_MS - 60_000;
    const go = await pressContinue(link);
    expect(go.status).toBe(303);
    const callback = await signInAt(env.sandbox, go.headers.get('location')!, 'bob');
    clock += SIGN_IN_TTL_MS - 60_000;
    expect((await fetch(callback)).status).toBe(200);
    expect((await bound('U2'))?.account.username).toBe('bob');
    expect(finished).toMatchObject([{ ok: true, origin: { user: { userId: 'U2' }, command: 'whoami' } }]);
  });
});

describe('Connect links over everyone', () => {
  it('refuses a new person past the links waiting over everyone, and a Continue past the sign-ins under way without spending the link', async () => {
    clock += LINK_TTL_MS + SIGN_IN_TTL_MS;
    const early = await linkFor('U3');
    for (let i = 0; (await store.count('slack-connect:link:')) < MAX_LINKS; i++) {
      expect(i).toBeLessThan(MAX_LINKS);
      await linkFor(`F${i % (MAX_LINKS / MAX_LINKS_PER_USER)}`);
    }
    const refused = await connect.offer({ user: { teamId: 'T1', userId: 'U4' }, channelId: 'C1' });
    expect(refused).toEqual({ ok: false, reason: expect.stringMatching(/Too many people are connecting/) });
    // Someone at their own cap still gets a new link: it replaces their oldest, so the total does not grow.
    expect((await connect.offer({ user: { teamId: 'T1', userId: 'F0' }, channelId: 'C1' })).ok).toBe(true);
    expect(await store.count('slack-connect:link:')).toBe(MAX_LINKS);

    for (let i = 0; i < MAX_SIGN_INS; i++)
      await store.set(`slack-connect:state:busy${i}xxxxxxxxxxxx`, {}, { ttlMs: 60_000 });
    const busy = await pressContinue(early);
    expect(busy.status).toBe(503);
    expect(busy.headers.get('location')).toBeNull();
    const page = await busy.text();
    expect(page).toContain('open the link again in a few minutes');
    expect(page).not.toContain('used or expired');
    // Not spent: once the sign-ins under way are done, the same link goes on.
    clock += 61_000;
    expect((await pressContinue(early)).status).toBe(303);
  });
});
