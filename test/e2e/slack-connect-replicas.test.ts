// Slack's Connect links on two replicas sharing a real redis-server: a link one replica offered is opened, spent and
// completed on the other, the person is bound on both, and the command that waited runs once; a link spent on one
// replica is spent on both.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { messageText } from '../helpers/slack.js';
import { useSlackBot } from '../helpers/slack-bot.js';
import {
  applicationSettings,
  connectLinkOf,
  FORGEOPS_APPLICATION,
  pressContinue,
  signInThrough,
} from '../helpers/slack-connect.js';

const env = useSandbox({ applications: [FORGEOPS_APPLICATION] });
const bots = useSlackBot(env, {
  name: 'connect-replicas',
  replicas: 2,
  get settings() {
    return applicationSettings(env.sandbox);
  },
});

/** The same link as reached on replica `i` (each replica's public address is its own port here). */
function on(i: number, link: string): string {
  const url = new URL(link);
  const other = new URL(bots.bots[i].webUrl!);
  url.host = other.host;
  return url.href;
}

const whoami = async (user: string, replica: number) => messageText(await bots.command('whoami', { user, replica }));

describe('Connect links on two replicas sharing Redis', () => {
  it('offered on one replica, completed on the other: bound on both, the waiting command answered once', async () => {
    const asked = await bots.ask('pipeline list acme/web per_page=1', { user: 'U20', replica: 0 });
    const link = connectLinkOf(asked.body);
    expect(new URL(link).origin).toBe(bots.bots[0].webUrl);
    const onB = on(1, link);
    expect(onB).not.toBe(link);
    const shown = await fetch(onB);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('U20');
    const callback = await signInThrough(env.sandbox, onB, 'alice');
    expect(callback.origin).toBe(bots.bots[1].webUrl);
    expect((await fetch(callback)).status).toBe(200);
    const answers = await bots.answers(asked.path, 3, 'Connected and the command');
    expect(messageText(answers[1])).toMatch(/Connected as @alice/);
    expect(messageText(answers[2])).toMatch(/1 pipeline/);
    expect(await whoami('U20', 0)).toMatch(/alice/);
    expect(await whoami('U20', 1)).toMatch(/alice/);
    // Later commands run as alice on either replica.
    for (const replica of [0, 1])
      expect(messageText(await bots.command('pipeline list acme/web per_page=1', { user: 'U20', replica }))).toMatch(
        /1 pipeline/,
      );
    // The link is spent on both replicas, and the callback done on both.
    expect((await fetch(link)).status).toBe(410);
    expect((await pressContinue(link)).status).toBe(410);
    const onA = new URL(callback);
    onA.host = new URL(bots.bots[0].webUrl!).host;
    expect((await fetch(onA)).status).toBe(400);
    // Whatever else would have answered on the command's response_url has had the time to: nothing did.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bots.answersTo(asked.path)).toHaveLength(3);
  });

  it('spends a link once when Continue reaches both replicas at the same moment', async () => {
    const link = connectLinkOf(await bots.command('login', { user: 'U21', replica: 1 }));
    const both = await Promise.all([pressContinue(on(0, link)), pressContinue(on(1, link))]);
    expect(both.map((r) => r.status).sort()).toEqual([303, 410]);
    expect(await whoami('U21', 0)).toMatch(/not linked/);
  });
});
