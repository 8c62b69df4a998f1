// A press refused as the presser does not spend an incident button: erin (no rights on acme/web) presses Retry and
// Revert on the channel's incident message, the service refuses her (403) and she alone is told why in words; alice
// (maintainer) presses the same buttons next and they run. Against the sandbox and a fake Slack, as Slack sends clicks.
import { describe, expect, it } from 'vitest';
import { buttonsOf, messageText, waitFor } from '../helpers/slack.js';
import { revertAsMergeRequest, useWatchedChannel } from '../helpers/slack-bot.js';

// U1 is alice (maintainer of acme), U3 erin (signed in, member of nothing: she may read acme/web, not act on it).
const { env, bots, posts, threadOf, updatesOf } = useWatchedChannel('refused-press', {
  U1: 'maintainer',
  U3: 'outsider',
});
const { press } = bots;

describe('an incident button refused as its presser', () => {
  it('stays for the next person: erin is refused in words, to her alone; alice then retries and reverts', async () => {
    await bots.command('watch acme/web', { user: 'U1' });
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    const ts = await waitFor(() => incident.answer?.ts, 5_000, "the message's ts");
    const buttons = buttonsOf(incident.args);
    const retry = buttons.find((b) => b.text.text === 'Retry failed jobs')!;
    const revert = buttons.find((b) => b.text.text.startsWith('Revert '))!;

    for (const button of [retry, revert]) {
      const refused = await press(button, { user: 'U3' });
      expect(refused.response_type).toBe('ephemeral');
      expect(messageText(refused)).toMatch(/403|not allowed|forbidden/i);
      expect(messageText(refused)).not.toMatch(/no longer works|already used/);
    }

    const retried = await press(retry, { user: 'U1' });
    expect(messageText(retried)).not.toMatch(/no longer works|already used/);
    await waitFor(
      () =>
        threadOf(ts).find((c) => /<@U1> pressed \*Retry failed jobs\* → Retried pipeline/.test(messageText(c.args))),
      15_000,
      "alice's retry in the thread",
    );
    // A version drawn after the retry, still offering Revert: its buttons stay unpressed for the next test, which
    // presses them once their premises have changed (versions drawn after the revert offer Merge when green instead).
    await waitFor(
      () => updatesOf(ts).find((c) => buttonsOf(c.args).some((b) => b.text.text.startsWith('Revert '))),
      15_000,
      'a version of the message drawn after the retry that still offers Revert',
    );

    const reverted = await revertAsMergeRequest(bots, revert, {
      user: 'U1',
      thread: () => threadOf(ts),
      what: "alice's revert in the thread",
    });
    expect(messageText(reverted)).not.toMatch(/no longer works|already used/);
    // Each write reached the service once as alice's (erin's two refused, alice's two made): one retry, one MR.
    expect(env.sandbox.requests.filter({ method: 'POST' }).filter((r) => r.path.endsWith('/retry'))).toHaveLength(2);
    expect(
      env.sandbox.requests
        .filter({ method: 'POST', path: '/projects/acme%2Fweb/merge_requests' })
        .filter((r) => r.status === 201),
    ).toHaveLength(1);
    // Her refusals were hers alone: nothing about them in the message's thread.
    expect(threadOf(ts).filter((c) => messageText(c.args).includes('<@U3>'))).toEqual([]);
  }, 50_000);

  it('checks each button of the old message as it is pressed: changed premises run nothing and say what changed', async () => {
    // The message's latest version carries buttons nobody pressed, drawn while pipeline #N was main's latest and
    // red; since then a newer pipeline started on main, and alice's revert's merge request is open. (Versions drawn
    // once the revert was open offer Merge when green in its place: the newest one with a Revert, drawn after the
    // retry and before the revert, its buttons unpressed.)
    const ts = posts()[0].answer!.ts as string;
    const buttons = await waitFor(
      () =>
        [...updatesOf(ts)]
          .reverse()
          .map((c) => buttonsOf(c.args))
          .find((b) => b.some((x) => x.text.text.startsWith('Revert '))),
      20_000,
      'a version of the message with its buttons',
    );
    const byLabel = (start: string) => buttons.find((b) => b.text.text.startsWith(start))!;
    await env.client.request({
      method: 'POST',
      path: '/projects/acme%2Fweb/pipeline',
      body: { ref: 'main' },
      idempotent: false,
    });
    const writesBefore = env.sandbox.requests.all().filter((r) => r.method !== 'GET').length;
    // Retry is spent above (alice's retry ran), and no later version offers another: a stale Retry is pressed in
    // slack-incident-stale-retry.test.ts (after a newer red pipeline, and on main green again).
    const revert = messageText(await press(byLabel('Revert '), { user: 'U1' }));
    expect(revert).toMatch(/merge request !\d+ reverting [0-9a-f]{8} is open already; nothing was reverted/);
    const log = messageText(await press(byLabel('Show the log'), { user: 'U1' }));
    expect(log).toMatch(/pipeline #\d+ is no longer main's latest/);
    expect(env.sandbox.requests.all().filter((r) => r.method !== 'GET')).toHaveLength(writesBefore);
  }, 30_000);

  it("checks the old message's Mute as it is pressed: after a newer pipeline on main nothing is muted, in words", async () => {
    const ts = posts()[0].answer!.ts as string;
    const mute = await waitFor(
      () => [...updatesOf(ts), posts()[0]].flatMap((c) => buttonsOf(c.args)).find((b) => b.action_id === 'forge_mute'),
      20_000,
      "the message's Mute button",
    );
    await env.client.request({
      method: 'POST',
      path: '/projects/acme%2Fweb/pipeline',
      body: { ref: 'main' },
      idempotent: false,
    });
    const answer = await press(mute, { user: 'U1' });
    expect(answer.response_type).toBe('ephemeral');
    expect(messageText(answer)).toMatch(
      /(pipeline #\d+ is no longer main's latest \(#\d+ is \w+\)|main is green again since .*); nothing was muted\./,
    );
    // Nothing muted: the thread hears no Mute.
    expect(threadOf(ts).filter((c) => messageText(c.args).includes('pressed Mute'))).toEqual([]);
  }, 30_000);
});
