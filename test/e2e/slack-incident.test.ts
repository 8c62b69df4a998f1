// The incident loop in Slack, end to end against the sandbox (jobs sped up) and a fake Slack: a channel watches
// acme/web, whose main is red; ONE message says broken with its buttons; Retry, pressed by a person, goes to the
// message's thread and the same message is updated (running, then still red); Revert as a merge request, then its
// merge, turn main green and the message says resolved and after how long; one post for the episode throughout.
import { describe, expect, it } from 'vitest';
import { buttonsOf, messageText, waitFor } from '../helpers/slack.js';
import { revertAsMergeRequest, useWatchedChannel } from '../helpers/slack-bot.js';

const CULPRIT = "Show order dates in the store's time zone";
// U1 (ana) links the demo maintainer's token (alice's); U2 the developer's, who is Bob Chen, the culprit's author; U3 an
// outsider's, who sees only public projects.
const { env, bots, posts, updatesOf, threadOf, retryUntilStillRed } = useWatchedChannel('incident', {
  U1: 'maintainer',
  U2: 'developer',
  U3: 'outsider',
});
const command = (text: string, user = 'U1') => bots.command(text, { user });

describe('the incident loop in Slack', () => {
  it('posts one message for the red episode, updates it through a retry and a revert, and says when it is resolved', async () => {
    const answer = await command('watch acme/web');
    expect(messageText(answer)).toContain('Watching acme/web main in this channel: it is red now (message below).');
    expect(answer.response_type).toBe('in_channel');

    // ONE message: the verdict and its evidence, the failing job's error lines, the culprit's author as a mention.
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    const text = messageText(incident.args);
    expect(text).toMatch(/is red: \*broken\*/);
    expect(text).toMatch(/\*broken\*: test failed on \d+ of \d+ runs since [0-9a-f]{8}/);
    expect(text).toContain('*Failed:* test');
    expect(text).toContain('```');
    expect(text).toContain(`${CULPRIT} by <@U2>`);
    // The culprit went live (the demo's deploys need only the build): where, and a rollback of each after the revert.
    expect(text).toMatch(/:warning: \*Where it went:\* .*reached production .* it is live in PRODUCTION/);
    const labels = buttonsOf(incident.args).map((b) => b.text.text);
    expect(labels).toEqual([
      'Retry failed jobs',
      expect.stringMatching(/^Revert [0-9a-f]{8} as a merge request$/),
      'Roll back production',
      'Roll back staging',
      'Open an incident issue',
      'Show the log',
      'Mute for an hour',
    ]);
    const ts = await waitFor(() => incident.answer?.ts, 5_000, "the message's ts");

    // Show the log: the failing job's log to the presser alone; the thread says they looked.
    const log = await bots.press(buttonsOf(incident.args).find((b) => b.text.text === 'Show the log')!, { user: 'U2' });
    expect(log.response_type).toBe('ephemeral');
    expect(messageText(log)).toContain('Expected: \\"2024-03-10\\"');
    await waitFor(
      () => threadOf(ts).find((c) => messageText(c.args).includes('<@U2> pressed *Show the log*')),
      15_000,
      'the log press in the thread',
    );

    // Retry, pressed by ana: the thread names her, and the message shows the retry running, then still red.
    const { pressed, stillRed } = await retryUntilStillRed(incident, ts);
    expect(messageText(pressed.args)).toMatch(/→ /);
    expect(messageText(stillRed.args)).toContain('still red after the retry: broken, not flaky');
    const order = updatesOf(ts).map((c) => messageText(c.args));
    expect(order.findIndex((t) => t.includes('retrying…'))).toBeLessThan(
      order.findIndex((t) => t.includes('still red after the retry')),
    );

    // Revert as a merge request, from the updated message (approved if the policy asks).
    const revert = buttonsOf(stillRed.args).find((b) => b.text.text.startsWith('Revert '))!;
    const sha8 = /^Revert ([0-9a-f]{8})/.exec(revert.text.text)![1];
    await revertAsMergeRequest(bots, revert, {
      user: 'U1',
      thread: () => threadOf(ts),
      what: 'the revert in the thread',
    });

    // The same message now offers merging that merge request when its pipeline passes, first and primary, and no
    // second revert. Pressed (approved if the policy asks), it is set as the presser, and the thread says which
    // pipeline it waits for.
    const offered = await waitFor(
      () => updatesOf(ts).find((c) => buttonsOf(c.args).some((b) => b.text.text === 'Merge when green')),
      15_000,
      'the Merge when green button',
    );
    const iid = Number(/\*Revert:\* !(\d+) /.exec(messageText(offered.args))![1]);
    expect(messageText(offered.args)).toContain(`*Revert:* !${iid} Revert `);
    const offeredLabels = buttonsOf(offered.args).map((b) => b.text.text);
    expect(offeredLabels[0]).toBe('Merge when green');
    expect(offeredLabels.some((l) => l.startsWith('Revert '))).toBe(false);
    const merge = buttonsOf(offered.args)[0];
    const first = await bots.press(merge, { user: 'U1' });
    const approve = buttonsOf(first).find((b) => b.action_id === 'forge_confirm');
    if (approve) await bots.press(approve, { user: 'U1' });
    const set = await waitFor(
      () =>
        threadOf(ts).find((c) =>
          /<@U1> (pressed|approved) \*Merge when green\* → Merge request !\d+ will merge when pipeline #\d+ passes/.test(
            messageText(c.args),
          ),
        ),
      15_000,
      'the merge set in the thread',
    );
    expect(messageText(set.args)).toContain(`!${iid} will merge when pipeline #`);
    const waiting = await waitFor(
      () =>
        updatesOf(ts).find(
          (c) =>
            messageText(c.args).includes(`!${iid} Revert`) &&
            messageText(c.args).includes('will merge when pipeline #'),
        ),
      15_000,
      'the message saying it will merge',
    );
    expect(buttonsOf(waiting.args).some((b) => b.text.text === 'Merge when green')).toBe(false);
    const mr = (
      await env.client.request<{ merge_when_pipeline_succeeds: boolean; merge_user: { username: string } | null }>({
        method: 'GET',
        path: `/projects/acme%2Fweb/merge_requests/${iid}`,
        idempotent: true,
      })
    ).data;
    expect(mr.merge_user?.username).toBe('alice');
    // Pressed again on the message as it was: its premise no longer holds, nothing runs, the presser is told why.
    const again = await bots.press(merge, { user: 'U2' });
    expect(again.response_type).toBe('ephemeral');
    expect(messageText(again)).toContain(`merge request !${iid} is set to merge when its pipeline passes already`);
    expect(threadOf(ts).some((c) => messageText(c.args).includes('<@U2> pressed *Merge'))).toBe(false);

    // Its pipeline passes, it merges, main's pipeline runs and passes: resolved by the merge request, in the thread too.
    const resolved = await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes('*Resolved:* green again after')),
      40_000,
      'the resolved update',
    );
    expect(messageText(resolved.args)).toMatch(
      new RegExp(
        `Resolved:\\* green again after (less than a minute|\\d+ (min|h|d)[^,]*), fixed by !${iid} \\(revert of \`${sha8}\`\\)`,
      ),
    );
    await waitFor(
      () =>
        threadOf(ts).find((c) =>
          messageText(c.args).includes(`Resolved: green again, fixed by !${iid} (revert of ${sha8})`),
        ),
      15_000,
      'the resolved line in the thread',
    );
    expect(buttonsOf(resolved.args)).toEqual([]);
    // One post for the episode; main green again reaches production, whose deployment waits in a message of its own.
    expect(posts().filter((c) => !String(c.args.text).includes('waits for approval'))).toHaveLength(1);
  }, 58_000);

  it("lists the channel's watches across a restart, stops one on unwatch, and refuses a project the asker cannot read", async () => {
    expect(messageText(await command('watching'))).toMatch(
      /This channel watches:\\n• acme\/web \(default branch\), since \d{2}:\d{2} UTC, by @ana/,
    );
    await bots.restart();
    expect(messageText(await command('watching'))).toContain('acme/web (default branch)');
    const again = await command('watch acme/web');
    expect(messageText(again)).toContain('Already watching acme/web main in this channel: it is green now.');

    const stopped = await command('unwatch acme/web');
    expect(messageText(stopped)).toMatch(
      /Stopped watching acme\/web in this channel \(watched since \d{2}:\d{2} UTC, by @ana\)\./,
    );
    expect(messageText(await command('watching'))).toContain('This channel watches nothing.');
    expect(messageText(await command('unwatch acme/web'))).toContain(
      'This channel was not watching acme/web; nothing changed.',
    );

    // The service token forgeops watches with could read it; the asker (an outsider) cannot, so nothing is watched.
    const refused = await command('watch acme/platform/payments-api', 'U3');
    expect(messageText(refused)).toMatch(/Not watching acme\/platform\/payments-api: you cannot read it \(.*404.*\)\./);
    expect(messageText(await command('watching'))).toContain('This channel watches nothing.');
  }, 30_000);
});
